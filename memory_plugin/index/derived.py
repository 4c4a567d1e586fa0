"""What is computed from the index and read again by the next command: kept in the process and in a
JSON file beside the index, for as long as the index is in the state it was computed from (its
`generation`, which every rebuild moves, and `changed_at`, which every write moves). The project
catalogue (`projects.json`) and the vault's note shape (`style.json`) are made this way: each reads
thousands of notes, and a command such as `remember` asks for both."""
from __future__ import annotations

import json
import os
import sqlite3
TYPE_CHECKING = False  # typing costs the hooks that import this module a few ms
if TYPE_CHECKING:
    from typing import Any, Callable

_MEMO: dict[str, tuple[list, Any]] = {}  # file name -> (state, value), per process


# A share of the vault's notes (its note shape) holds while the note count is the same to this many
# significant bits: exactly below 128 notes, within 1% above (a new one each 128 notes at 10,000).
SHARE_BITS = 7


def state(conn: sqlite3.Connection, extra: Any = None, shares: bool = False) -> list:
    """The index's state: its file, generation and last change, and `extra` (the other inputs). With
    `shares` (a result made of shares of the notes), the note count to SHARE_BITS significant bits
    stands for the last change: one note more moves no share."""
    db = conn.execute("PRAGMA database_list").fetchone()[2] or ""
    if shares:
        gen = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        n = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        return [db, gen[0] if gen else None, n >> max(0, n.bit_length() - SHARE_BITS), extra]
    return [db, *(r[0] for r in conn.execute(
        "SELECT value FROM meta WHERE key IN ('generation', 'changed_at') ORDER BY key")), extra]


def cached(conn: sqlite3.Connection, name: str, compute: Callable[[], Any], extra: Any = None,
           shares: bool = False) -> Any:
    """`compute()` (a JSON value) for the index in its present state (see `state`), from the process,
    else from the file `name` beside the index, else computed and kept in both. A copy: callers may
    change it."""
    st = json.loads(json.dumps(state(conn, extra, shares)))  # as it reads back from the file
    memo = _MEMO.get(name)
    if memo is None or memo[0] != st:
        path = os.path.join(os.path.dirname(st[0]), name) if st[0] else ""
        got = None
        try:
            with open(path, encoding="utf-8") as f:
                saved = json.load(f)
            if saved.get("state") == st and "value" in saved:
                got = saved["value"]
        except (OSError, ValueError, AttributeError):
            pass
        if got is None:
            got = json.loads(json.dumps(compute()))
            if path:
                from ..core.fsutil import atomic_write

                try:
                    atomic_write(path, json.dumps({"state": st, "value": got}, ensure_ascii=False), durable=False)
                except OSError:
                    pass  # a read-only cache: computed again next time
        memo = _MEMO[name] = (st, got)
    return json.loads(json.dumps(memo[1]))
