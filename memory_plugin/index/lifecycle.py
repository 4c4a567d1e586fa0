"""The lifecycle of a memory: whether a note still holds (its status, its supersession) and how far
to trust it (confidence: stored, decayed since the note was last validated; `validate` raises it).
Being returned by `query` is not use: a note listed twenty times is no more trustworthy for it,
so nothing a search does moves a note's confidence.

Every reader of "what is current" asks here: the brief, `query`, `reorganize` and the write path.
A note is superseded when a public note succeeds it: `supersedes: [[Old]]` on the new note, or
`superseded_by: [[New]]` (or any other spelling in SUPERSEDED_BY) on the old one. The index keeps
property links with their key lowercased (vault.links), so one list of lowercase keys reads them all.

Standard library only, and no sqlite3 at import: the brief imports this on the SessionStart path.
"""
from __future__ import annotations

import datetime as _dt
import json
import re
TYPE_CHECKING = False  # importing typing costs every hook a few ms
if TYPE_CHECKING:
    import sqlite3
    from typing import Any, Iterable

    from ..core.config import Config

# ---------------------------------------------------------------- status

# A note with one of these statuses no longer holds: query ranks it below what is current,
# reorganize neither proposes it as stale nor counts it as linking as current.
HISTORICAL = frozenset({"superseded", "retracted", "stale", "deprecated", "obsolete", "archived"})
# The brief's lists (open pitfalls; current decisions and notes) read status with sets of their own:
# a pitfall also closes when it is fixed or resolved, a decision also ends when it is rejected. Unlike
# HISTORICAL, neither holds "archived": the brief still lists an archived decision as current.
CLOSED_PITFALL = ("resolved", "closed", "fixed", "done", "retracted", "superseded", "obsolete")
OLD_DECISION = ("superseded", "retracted", "deprecated", "rejected", "obsolete", "stale")


def historical(status: str | None, superseded: bool = False) -> bool:
    """The note no longer holds: its status says so, or a note succeeds it."""
    return superseded or (status or "") in HISTORICAL


def current(status: str | None, superseded: bool = False) -> bool:
    """A decision (or another note) the brief shows as current."""
    return not superseded and (status or "current") not in OLD_DECISION


def open_pitfall(status: str | None, superseded: bool = False) -> bool:
    return not superseded and (status or "open") not in CLOSED_PITFALL


def shown_status(status: str | None, superseded: bool = False) -> str | None:
    """The status a reader shows: "superseded" for a superseded note whose own status does not
    already say it no longer holds."""
    return "superseded" if superseded and not historical(status) else status


# ---------------------------------------------------------------- supersession

# Every spelling either side of a supersession is written in (all lowercase, as the index keeps them).
SUPERSEDES = ("supersedes",)
SUPERSEDED_BY = ("superseded_by", "superseded-by", "supersededby", "replaced_by", "replaced-by")
SUPERSESSION = SUPERSEDES + SUPERSEDED_BY


def in_sql(keys: Iterable[str]) -> str:
    """`('a', 'b')`, for `prop IN ...`: property keys are plain lowercase words, never user input."""
    return "(" + ", ".join(f"'{k}'" for k in keys) + ")"


SUPERSESSION_SQL = in_sql(SUPERSESSION)
_SUCCESSOR_SIDE = f"CASE WHEN l.prop IN {in_sql(SUPERSEDES)} THEN l.src ELSE l.target END"


def successors(conn: sqlite3.Connection, paths: Iterable[str] | None = None) -> dict[str, list[str]]:
    """old note path -> the paths of the public notes that succeed it, in link order. `paths`: only
    supersessions with one of these notes on either side (a query's candidates, not the vault).
    A private successor is never named, and does not make its predecessor historical."""
    from ..core.sqlutil import rows_in

    sql = (f"SELECT l.src, l.prop, l.target FROM links l JOIN notes n ON n.path = {_SUCCESSOR_SIDE} "
           f"AND n.private = 0 WHERE l.kind = 'property' AND l.prop IN {SUPERSESSION_SQL} AND l.target IS NOT NULL")
    rows = (conn.execute(sql + " ORDER BY l.rowid") if paths is None else
            rows_in(conn, sql + " AND (l.src IN ({in}) OR l.target IN ({in})) ORDER BY l.rowid", list(paths)))
    out: dict[str, list[str]] = {}
    for src, prop, target in rows:
        old, new = (target, src) if prop in SUPERSEDES else (src, target)
        if old != new and new not in out.setdefault(old, []):
            out[old].append(new)
    return {old: news for old, news in out.items() if news}


def successor_titles(conn: sqlite3.Connection) -> dict[str, str]:
    """old note path -> its first successor's title (what the brief shows: "[superseded by X]")."""
    from ..core.sqlutil import rows_in

    succ = successors(conn)
    titles = dict(rows_in(conn, "SELECT path, display_title FROM notes WHERE path IN ({in})",
                          sorted({news[0] for news in succ.values()})))
    return {old: titles[news[0]] for old, news in succ.items()}


# ---------------------------------------------------------------- dates and confidence

def parse_date(value: Any) -> _dt.date | None:
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, str):
        m = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})", value)
        if m:
            try:
                return _dt.date(int(m[1]), int(m[2]), int(m[3]))
            except ValueError:
                return None
    return None


class Confidence(dict):
    """A dict for --json, one readable line for `explain`."""

    def __str__(self) -> str:
        if self.get("default"):
            s = f"{self['effective']:.2f} (default {self['stored']:.2f}: the note stores no confidence, so none decays"
        elif not self.get("decays", True):
            s = f"{self['effective']:.2f} (stored {self['stored']:.2f}: a rule its owner set does not decay"
        else:
            s = f"{self['effective']:.2f} (stored {self['stored']:.2f}"
        if self.get("since") and not self.get("default") and self.get("decays", True):
            s += f", since {self['since']}, {self['age_days']} d ago, half-life {self['half_life_days']} d"
        return s + ")"

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731


def has_confidence(props: dict) -> bool:
    c = props.get("confidence")
    return isinstance(c, (int, float)) and not isinstance(c, bool)


def stored_confidence(cfg: Config, props: dict) -> float:
    c = props.get("confidence")
    if isinstance(c, (int, float)) and not isinstance(c, bool):
        return max(0.0, min(1.0, float(c if c <= 1 else c / 100)))
    return float(cfg.confidence_default)


# A convention is a rule its owner set, not an observation that ages: its confidence does not decay,
# so time alone never makes it "stale" (reorganize) or ranks it lower (query).
NO_DECAY_TYPES = frozenset({"convention"})


def decays(type_: str | None) -> bool:
    return (type_ or "") not in NO_DECAY_TYPES


def confidence(cfg: Config, props: dict, created: str | None, today: _dt.date | None = None,
               type_: str | None = None) -> Confidence:
    """Stored confidence halved every `confidence_half_life_days` since `last_validated` (else
    `created`), unless the note is of a kind that does not decay (NO_DECAY_TYPES; `type_` is the
    type the index gave the note)."""
    today = today or _dt.date.today()
    stored = stored_confidence(cfg, props)
    since = parse_date(props.get("last_validated")) or parse_date(props.get("created")) or parse_date(created)
    age = max(0, (today - since).days) if since else 0
    hl = float(cfg.confidence_half_life_days) or 0
    # Only a confidence the note stores decays: a default it never stored says nothing about its age.
    eff = stored * (0.5 ** (age / hl)) if hl > 0 and has_confidence(props) and decays(type_) else stored
    return Confidence(effective=round(eff, 3), stored=round(stored, 3), decayed=round(eff, 3),
                      default=not has_confidence(props), decays=decays(type_),
                      since=since.isoformat() if since else None, age_days=age,
                      half_life_days=cfg.confidence_half_life_days)


def effective_confidence(cfg: Config, conn: sqlite3.Connection, path: str,
                         today: _dt.date | None = None) -> Confidence:
    from ..core.errors import NoteNotFound

    row = conn.execute("SELECT props, created, type FROM notes WHERE path=?", (path,)).fetchone()
    if not row:
        raise NoteNotFound(f"no note at {path}")
    return confidence(cfg, json.loads(row[0] or "{}"), row[1], today, type_=row[2])
