"""The `memory-plugin` command line: parse options, call one core function, render the result."""
from __future__ import annotations

import json
import os
import sys

import click

from ..core.errors import MemoryPluginError, report
from ..core.textutil import plural


from .base import Ctx, _age, _none_because, _open, cli, echo_json, json_opt, no_notes, pass_ctx


@cli.command()
@json_opt
@pass_ctx
def rebuild(c: Ctx, as_json):
    """Build the index and graph from scratch and swap them in."""
    from ..outputs.pipeline import rebuild as do_rebuild

    cfg = c.cfg
    cfg.require_vault()
    progress = None
    if sys.stderr.isatty() and not as_json:
        def progress(i, n):
            click.echo(f"\rreading notes {i}/{n}", err=True, nl=(i == n))
    stats = do_rebuild(cfg, progress=progress)
    from .semantic_cmds import describe, embed_after_index

    stats["embedding"], err = embed_after_index(cfg, as_json)
    if as_json:
        echo_json(stats)
    else:
        click.echo(f"rebuilt {cfg.vault}: {plural(stats['notes'], 'note')}, "
                   f"{plural(stats['attachments'], 'attachment')}, {plural(stats['links'], 'link')}, "
                   f"{plural(stats['warnings'], 'warning')} in {stats['seconds']} s")
        if describe(stats["embedding"]):
            click.echo(describe(stats["embedding"]))
        if not stats["notes"]:
            click.echo(no_notes(cfg), err=True)
    if not as_json:
        lexical_hint(cfg, stats["embedding"], err)
    if err:
        raise err


@cli.command()
@json_opt
@pass_ctx
def sync(c: Ctx, as_json):
    """Re-read only new, changed, deleted and renamed notes."""
    from ..outputs.pipeline import sync as do_sync

    stats = do_sync(c.cfg)
    from .semantic_cmds import describe, embed_after_index

    stats["embedding"], err = embed_after_index(c.cfg, as_json)
    if as_json:
        echo_json(stats)
    elif stats.get("rebuilt"):
        click.echo(f"no usable index: rebuilt ({plural(stats['notes'], 'note')})")
    else:
        click.echo("synced: " + ", ".join(f"{stats[k]} {k}" for k in
                                          ("new", "modified", "deleted", "renamed", "unchanged"))
                   + (f"; graph outputs {stats['outputs']['graph']}" if "outputs" in stats else ""))
    if not as_json and describe(stats["embedding"]):
        click.echo(describe(stats["embedding"]))
    if not as_json:
        lexical_hint(c.cfg, stats["embedding"], err)
    if err:
        raise err


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@json_opt
@pass_ctx
def reindex(c: Ctx, paths, as_json):
    """Re-read single notes (paths absolute or relative to the vault)."""
    from ..index.store import reindex as do_reindex

    stats = do_reindex(c.cfg, paths)
    if as_json:
        echo_json(stats)
    else:
        click.echo("reindexed: " + ", ".join(f"{v} {k}" for k, v in stats.items()))


# ---------------------------------------------------------------- looking

@cli.command()
@json_opt
@pass_ctx
def status(c: Ctx, as_json):
    """The vault, the cache dir, the state files and how fresh the index is."""
    from ..outputs import stage as outputs
    from ..index.store import IndexMissing, get_meta, open_index

    cfg = c.cfg
    cfg.require_vault()
    info = {"vault": str(cfg.vault), "cache_dir": str(cfg.cache_dir), "files": outputs.paths(cfg),
            "config_sources": {k: v for k, v in cfg.sources.items() if v != "default"},
            "outputs": outputs.state(cfg)}
    try:
        conn = open_index(cfg)
    except IndexMissing as e:
        info.update(indexed=False, problem=str(e))
    else:
        try:
            q = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
            info.update(indexed=True, notes=q("SELECT count(*) FROM notes"),
                        links=q("SELECT count(*) FROM links"),
                        dangling=q("SELECT count(*) FROM links WHERE target IS NULL"),
                        tags=q("SELECT count(DISTINCT tag_lc) FROM tags"),
                        warnings=q("SELECT count(*) FROM warnings"),
                        built_at=float(get_meta(conn, "built_at") or 0),
                        synced_at=float(get_meta(conn, "synced_at") or 0),
                        changed_at=float(get_meta(conn, "changed_at") or 0))
            from ..semantic import vectors as semantic

            info["vectors"] = semantic.counts(conn)
        finally:
            conn.close()
    from ..semantic import vectors as semantic

    info["search_mode"], info["search_mode_detail"] = semantic.mode(cfg)
    if as_json:
        echo_json(info)
        return
    click.echo(f"vault      {info['vault']}")
    click.echo(f"cache dir  {info['cache_dir']}")
    if not info["indexed"]:
        click.echo(f"index      none: {info['problem']}")
        click.echo(f"search     {info['search_mode']}: {info['search_mode_detail']}")
        return
    click.echo(f"index      {plural(info['notes'], 'note')}, {plural(info['links'], 'link')} "
               f"({info['dangling']} dangling), {plural(info['tags'], 'tag')}, {plural(info['warnings'], 'warning')}"
               + ("" if info["notes"] else f": {no_notes(cfg)}"))
    click.echo(f"rebuilt    {_age(info['built_at'])}; synced {_age(info['synced_at'])}")
    v = info["vectors"]
    click.echo(f"search     {info['search_mode']}: {info['search_mode_detail']}"
               + (f"; {v['embedded_notes']}/{plural(v['embeddable_notes'], 'note')} embedded"
                  if info["search_mode"] == "semantic" else ""))
    out = info["outputs"]
    if out.get("written_at"):
        click.echo(f"outputs    graph files written {_age(out['written_at'])}"
                   + (f"; rewrite skipped {_age(out['skipped_at'])}, the graph unchanged "
                      f"({out['skipped']}× since written)" if out.get("skipped_at") else ""))
    for k in ("graph_json", "report", "html", "brief"):
        p = info["files"][k]
        click.echo(f"{k:<10} {p}{'' if os.path.exists(p) else ' (not written yet)'}")
    html = info["files"]["html"]
    if os.path.exists(html):
        click.echo(f"graph view file://{html}")


@cli.command()
@click.option("-n", "--limit", type=click.IntRange(1), default=None, help="How many (default hub_count).")
@json_opt
@pass_ctx
def hubs(c: Ctx, limit, as_json):
    """Hub notes: the vault's entry points (home, favorites, authored hubs, categories, folder notes,
    hierarchy roots), then notes by link degree."""
    from ..index import graph as G

    conn = _open(c)
    rows = G.hubs(conn, limit or c.cfg.hub_count)
    if as_json:
        return echo_json(rows)
    if not rows:
        cfg = c.cfg
        click.echo(_none_because(c, conn, "no hubs: no note is an authored hub (a `type` in hub_types "
                                 f"{_names(cfg.hub_types)}, a tag in hub_tags {_names(cfg.hub_tags)}, a folder "
                                 "in hub_folders or a name matching hub_title_patterns) and no note links "
                                 "to or from another; see docs/configuration.md"))
    for r in rows:
        mark = plural(r["degree"], "link") if r.get("entry", "links") == "links" else r["entry"]
        click.echo(f"{r['display_title']}  ({r['path']}, {mark})")
        if r["summary"]:
            click.echo(f"    {r['summary']}")


@cli.command()
@json_opt
@pass_ctx
def conventions(c: Ctx, as_json):
    """Convention notes with their summaries."""
    from ..index import graph as G

    conn = _open(c)
    rows = G.conventions(conn)
    if as_json:
        return echo_json(rows)
    if not rows:
        prefix = c.cfg.convention_tag_prefix
        click.echo(_none_because(c, conn, f"no conventions: no note is tagged {prefix} (or {prefix}/<area>) "
                                 "or typed convention (`type: convention`); see convention_tag_prefix in "
                                 "docs/configuration.md"))
    for r in rows:
        click.echo(f"{r['display_title']}  ({r['path']})")
        click.echo(f"    {r['summary'] or '(no summary)'}")


def _project_of(conn, info: dict) -> str:
    """The note's projects as explain shows them: each name its `project` / `projects` properties
    give, with the project's title, and which is the working folder's project (project.detect); a
    project's own note, its project. Sets info["projects"] (every name), info["project_title"] and
    info["current_project"] (of the current project when the note names it, else of the first)."""
    from ..index import project as P

    cat = P.catalog(conn)
    names = P.note_projects(info.get("properties") or {}) or ([info["project"]] if info["project"] else [])
    info["projects"] = names
    found = [(n, next((p for p in cat if P.key(n) in p["keys"]), None)) for n in names]
    own = next((p for p in cat if p["hub"] == info["path"]), None) if info.get("hub") else None
    if own and not any(mine for _, mine in found):
        found = [(names[0] if names else None, own)] + found[1:]
    current = P.detect(cat).project
    parts, first = [], None
    for n, mine in found:
        if mine is None:
            parts.append(n or "")
            continue
        now = bool(current and current["name"] == mine["name"])
        if first is None or now:
            first = (mine, now)
        parts.append(f"{n or mine['name']} (project {mine['title']}" + (", the current project)" if now else ")"))
    if first:
        info["project_title"], info["current_project"] = first[0]["title"], first[1]
    return ", ".join(p for p in parts if p)


def _note_or_file(c: Ctx, conn, ref: str) -> tuple[str | None, tuple[str, str] | None]:
    """(note path, None) for a note; (None, (repository, file)) for a file of the working folder's
    repository that is no note's name (explain and backlinks take either)."""
    from ..core.errors import NoteNotFound
    from ..index import graph as G

    try:
        return G.find_note(conn, ref), None
    except NoteNotFound:
        from ..index import code

        found = code.repo_file(conn, ref, os.getcwd())
        if found is None:
            raise
        return None, found


def _code_project(conn) -> str | None:
    """The working folder's project: notes of another project do not cite this repository's files."""
    from ..index import project as P

    return P.detect_in_index(conn).name


def _file_notes(c: Ctx, conn, repo: str, rel: str) -> list[dict]:
    from ..index import code

    rows = code.file_notes(conn, str(c.cfg.cache_dir), repo, rel, _code_project(conn))
    for r in rows:
        title, type_ = conn.execute("SELECT display_title, type FROM notes WHERE path = ?", (r["path"],)).fetchone()
        r.update(title=title, type=type_)
    return rows


def _file_line(r: dict) -> str:
    from ..core.textutil import CODE_CHANGED as CHANGED_SINCE

    state = {"changed": CHANGED_SINCE, "moved": f"moved to {r['where']}", "missing": "the file is gone"
             }.get(r["state"], "")
    return (f"  {r['type'] or 'note'}: {r['title']}  ({r['path']}; cites {', '.join(r['anchors'])})"
            + (f"; {state}" if state else ""))


def _explain_file(c: Ctx, conn, repo: str, rel: str, as_json: bool) -> None:
    rows = _file_notes(c, conn, repo, rel)
    if as_json:
        return echo_json({"file": rel, "repository": repo, "exists": os.path.isfile(os.path.join(repo, rel)),
                          "notes": rows})
    click.echo(f"{rel}  (a file of the repository {repo}" + ("" if os.path.isfile(os.path.join(repo, rel))
                                                              else "; no longer there") + ")")
    click.echo(f"notes citing it ({len(rows)}), the most specific first:" if rows else
               "no note cites it (by its path, its lines or a function it defines)")
    for r in rows:
        click.echo(_file_line(r))


def _show_note_code(code_info: dict, path: str) -> None:
    """explain: the code a note cites, each citation with its state in the working folder's repository."""
    from ..core.textutil import CODE_CHANGED as CHANGED_SINCE

    if not code_info["anchors"]:
        return
    repo = code_info["repository"]
    click.echo(f"code it cites ({len(code_info['anchors'])})" + (f", in {repo}:" if repo else
                                                                  ", not checked (not in a git repository):"))
    for a in code_info["anchors"]:
        where = f" -> {a['where']}" if a["state"] == "moved" and a["where"] else \
            f" ({a['where']})" if a["kind"] == "symbol" and a["where"] else ""
        click.echo(f"  {a['cite']}{where}  {a['state']}")
    if code_info["state"] == "changed":
        click.echo(f"{CHANGED_SINCE}: check it, then `memory-plugin validate '{path}'`")
    elif code_info["state"] == "missing":
        click.echo(f"some code it cites is no longer there: update the note, then `memory-plugin validate '{path}'`")


@cli.command()
@click.argument("note")
@json_opt
@pass_ctx
def explain(c: Ctx, note, as_json):
    """A note's properties, tags, links out and in by type, and the code it cites with its state; or,
    for a file of the working folder's repository, the notes citing it."""
    from ..index import code
    from ..index import graph as G

    conn = _open(c)
    path, file = _note_or_file(c, conn, note)
    if file is not None:
        return _explain_file(c, conn, *file, as_json)
    info = G.explain(conn, path)
    if info["private"]:
        if as_json:
            return echo_json(info)
        click.echo(f"{path}: private note; its content is not shown.")
        return
    try:
        from ..index.lifecycle import effective_confidence
        info["confidence"] = effective_confidence(c.cfg, conn, path)
    except ImportError:
        pass
    project_line = _project_of(conn, info)
    code_info = code.note_code(conn, str(c.cfg.cache_dir), code.repo_root(os.getcwd()), path, _code_project(conn))
    info["anchors"] = code_info["anchors"]
    info["code_state"] = code_info["state"]
    if as_json:
        return echo_json(info)
    click.echo(f"{info['display_title']}  ({path})")
    click.echo(f"type: {info['type']}" + (f" · status: {info['status']}" if info["status"] else "")
               + (f" · project: {project_line}" if project_line else ""))
    if info.get("confidence"):
        click.echo(f"confidence: {info['confidence']}")
    if info["summary"]:
        click.echo(f"summary: {info['summary']}")
    if info["aliases"]:
        click.echo(f"aliases: {', '.join(info['aliases'])}")
    if info["tags"]:
        click.echo(f"tags: {', '.join('#' + t for t in info['tags'])}")
    for k, v in info["properties"].items():
        if k not in ("summary", "tags", "aliases", "type", "status") and k.lower() not in ("project", "projects"):
            click.echo(f"  {k}: {json.dumps(v, ensure_ascii=False, default=str)}")
    click.echo(f"outgoing ({len(info['outgoing'])}):")
    for l in info["outgoing"]:
        tgt = l["target"] or (f"{l['linkpath']} (a private note)" if l.get("private")
                              else f"{l['linkpath']} (dangling)")
        click.echo(f"  {l['type']:<12} {tgt}{l['subpath'] or ''}")
    click.echo(f"incoming ({len(info['incoming'])}):")
    for l in info["incoming"]:
        click.echo(f"  {l['type']:<12} {l['src']}")
    _show_note_code(code_info, path)
    for w in info["warnings"]:
        click.echo(f"warning: {w}")


@cli.command()
@click.argument("note")
@json_opt
@pass_ctx
def backlinks(c: Ctx, note, as_json):
    """Notes that link to NOTE; for a file of the working folder's repository, the notes citing it."""
    from ..index import graph as G

    conn = _open(c)
    path, file = _note_or_file(c, conn, note)
    if file is not None:
        repo, rel = file
        rows = _file_notes(c, conn, repo, rel)
        if as_json:
            return echo_json({"file": rel, "repository": repo, "backlinks": rows})
        click.echo(f"{plural(len(rows), 'note')} {'cites' if len(rows) == 1 else 'cite'} {rel}")
        for r in rows:
            click.echo(_file_line(r))
        return
    rows = G.backlinks(conn, path)
    if as_json:
        return echo_json({"note": path, "backlinks": rows})
    click.echo(f"{plural(len(rows), 'link')} to {path}")
    for r in rows:
        click.echo(f"  {r['src']}  ({r['type']}, line {r['line']})")


@cli.command()
@click.argument("a")
@click.argument("b")
@json_opt
@pass_ctx
def path(c: Ctx, a, b, as_json):
    """The shortest chain of links between two notes."""
    from ..index import graph as G

    conn = _open(c)
    pa, pb = G.find_note(conn, a), G.find_note(conn, b)
    steps = G.shortest_path(conn, pa, pb)
    if as_json:
        return echo_json({"from": pa, "to": pb, "steps": steps, "found": bool(steps) or pa == pb})
    if not steps:
        click.echo(f"no path between {pa} and {pb}" if pa != pb else pa)
        return
    click.echo(pa)
    for s in steps:
        arrow = f"--{s['type']}-->" if s["direction"] == "->" else f"<--{s['type']}--"
        click.echo(f"  {arrow} {s['to']}")


@cli.command()
@json_opt
@pass_ctx
def orphans(c: Ctx, as_json):
    """Notes with no links in or out."""
    from ..index import graph as G

    conn = _open(c)
    rows = G.orphans(conn)
    if as_json:
        return echo_json(rows)
    for r in rows:
        click.echo(r["path"])
    click.echo(plural(len(rows), "orphan") if rows else
               _none_because(c, conn, "no orphans: every note links to another note or is linked from one"),
               err=True)


@cli.command()
@json_opt
@pass_ctx
def dangling(c: Ctx, as_json):
    """Link targets with no file, most linked first."""
    from ..index import graph as G

    conn = _open(c)
    rows = G.dangling(conn)
    if as_json:
        return echo_json(rows)
    if not rows:
        click.echo(_none_because(c, conn, "no dangling links: every link leads to a note or file of the vault"))
    for r in rows:
        click.echo(f"{r['count']:>4}  {r['target']}  (from {', '.join(r['from_notes'][:3])}"
                   f"{' …' if len(r['from_notes']) > 3 else ''})")


def _names(values) -> str:
    return "(" + ", ".join(map(str, values)) + ")" if values else "(none)"


def lexical_hint(cfg, embedding: dict | None, err) -> None:
    """After rebuild/sync: when semantic search is installed but its model is not there (and nobody
    asked for that model by name, which is an error instead), one line saying how to get it."""
    if embedding is not None or err is not None:
        return
    from ..semantic import vectors as semantic

    m, why = semantic.mode(cfg)
    if m == "lexical" and semantic.model_missing(cfg):
        click.echo(f"search is lexical: {why}", err=True)


def _register_commands() -> None:
    """The command modules of the other stages: memory writes and search, hooks and install, view, semantic."""
    from . import hook_cmds, memory_cmds, semantic_cmds, view_cmds

    for m in (memory_cmds, hook_cmds, view_cmds, semantic_cmds):
        m.register(cli)


def run(argv: list[str]) -> int:
    _register_commands()
    try:
        cli.main(args=argv, prog_name="memory-plugin", standalone_mode=False)
    except getattr(click.exceptions, "NoArgsIsHelpError", ()) as e:  # a group alone: its help (click < 8.2 too)
        click.echo(e.ctx.get_help())
        return 0
    except MemoryPluginError as e:
        return report(e, click.echo)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 1
    except click.UsageError as e:  # one line, like every other error
        where = e.ctx.command_path if e.ctx else "memory-plugin"
        click.echo(f"Error: {' '.join(e.format_message().split())} (see `{where} --help`)", err=True)
        return 2
    except click.ClickException as e:
        e.show()
        return 2
    except BrokenPipeError:
        return 0
    except Exception as e:  # never a traceback for the user; the type says where to look
        return report(e, click.echo)
    return 0
