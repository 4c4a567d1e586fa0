"""GRAPH_REPORT.md: what the graph holds, bounded in length however big the vault."""
from __future__ import annotations

import datetime as dt
import sqlite3

from ..index import graph as G
from .graphdata import LOUVAIN_MAX_NODES
from ..core.config import Config
from ..core.textutil import plural


def _cell(s: str | None, n: int = 160) -> str:
    s = (s or "").replace("|", "\\|").replace("\n", " ").strip()
    return s if len(s) <= n else s[: n - 1] + "…"


def _more(lines: list[str], total: int, shown: int, what: str) -> None:
    if total > shown:
        lines.append(f"\n… and {total - shown} more {what} (`memory-plugin {what.split()[0]} --json` lists all).")


def render(cfg: Config, conn: sqlite3.Connection, g=None, comms=None) -> str:
    k = cfg.report_max_items
    counts = dict(conn.execute("SELECT type, count(*) FROM notes GROUP BY type").fetchall())
    n_notes = sum(counts.values())
    n_links = conn.execute("SELECT count(*) FROM links").fetchone()[0]
    n_dang = conn.execute("SELECT count(*) FROM links WHERE target IS NULL").fetchone()[0]
    n_tags = conn.execute("SELECT count(DISTINCT tag_lc) FROM tags").fetchone()[0]
    n_att = conn.execute("SELECT count(*) FROM files WHERE is_note = 0").fetchone()[0]
    built = conn.execute("SELECT value FROM meta WHERE key='changed_at'").fetchone()
    when = dt.datetime.fromtimestamp(float(built[0])).strftime("%Y-%m-%d %H:%M") if built else "?"
    L = [f"# Graph report: {cfg.vault.name}", "",
         f"Vault `{cfg.vault}` · index updated {when} · [interactive graph](graph.html) "
         f"(`memory-plugin view`)", "",
         "## Counts", "",
         f"- {plural(n_notes, 'note')}, {plural(n_att, 'attachment')}, {plural(n_tags, 'tag')}",
         f"- {plural(n_links, 'link')} ({n_dang} dangling)",
         "- by type: " + ", ".join(f"{t} {c}" for t, c in sorted(counts.items(), key=lambda x: -x[1])), ""]
    hub_rows = G.hubs(conn, k)
    L += ["## Hub notes", "", "The vault's entry points, best first: home notes, pinned notes, authored hubs, "
          "categories, folder notes and hierarchy roots, what the home notes list; then by links (journals, "
          "templates and people never).", "",
          "| note | type | entry | in | out | summary |", "|---|---|---|---|---|---|"]
    for h in hub_rows:
        L.append(f"| [[{_cell(h['path'][:-3])}]] | {h['type']} | {h['entry']} | "
                 f"{h['in_degree']} | {h['out_degree']} | {_cell(h['summary'])} |")
    conv = G.conventions(conn)
    L += ["", "## Conventions", ""]
    L += [f"- **{_cell(c['display_title'], 80)}** (`{c['path']}`): {_cell(c['summary'], 200)}" for c in conv[:k]]
    if not conv:
        L.append("None found (notes with `type: convention` or a "
                 f"`#{cfg.convention_tag_prefix}/...` tag).")
    _more(L, len(conv), min(k, len(conv)), "conventions")
    if comms is not None:
        how = ("Louvain communities" if n_notes <= LOUVAIN_MAX_NODES else
               f"each note joined to its nearest hub (above {LOUVAIN_MAX_NODES:,} notes Louvain is too slow)")
        L += ["", "## Communities", "",
              f"Groups of notes that link mostly among themselves, named by their hub ({how}).", ""]
        for c in comms[:k]:
            mark = "" if c["has_hub"] else " (no hub note)"
            sample = ", ".join(f"[[{m[:-3]}]]" for m in c["members"][1:6])
            L.append(f"- **{_cell(c['name'], 80)}**{mark}: {plural(c['size'], 'note')}, e.g. {sample}")
        if len(comms) > k:
            L.append(f"\n… and {len(comms) - k} more communities.")
    orph = G.orphans(conn)
    L += ["", "## Orphans", "", f"{plural(len(orph), 'note')} with no links in or out.", ""]
    L += [f"- `{o['path']}`" for o in orph[:k]]
    _more(L, len(orph), min(k, len(orph)), "orphans")
    dang = G.dangling(conn)
    L += ["", "## Dangling targets", "", f"{plural(len(dang), 'link target')} with no file (notes still to write).", "",
          "| target | links | from |", "|---|---|---|"]
    for d in dang[:k]:
        L.append(f"| {_cell(d['target'], 80)} | {d['count']} | {_cell(', '.join(d['from_notes'][:3]), 120)} |")
    _more(L, len(dang), min(k, len(dang)), "dangling targets")
    amb = G.ambiguous(conn)
    L += ["", "## Ambiguous links", "",
          f"{plural(len(amb), 'link')} whose name matches several files; Obsidian's choice is shown.", ""]
    L += [f"- `{a['src']}` line {a['line']}: [[{_cell(a['linkpath'], 80)}]] → `{a['target']}`" for a in amb[:k]]
    _more(L, len(amb), min(k, len(amb)), "ambiguous links")
    warn = G.warnings(conn)
    L += ["", "## Parse warnings", "", f"{plural(len(warn), 'warning')}.", ""]
    L += [f"- `{w['path']}`: {_cell(w['message'], 160)}" for w in warn[:k]]
    _more(L, len(warn), min(k, len(warn)), "warnings")
    return "\n".join(L) + "\n"
