"""One SQLite query over a long list of values, in pieces small enough for SQLite's parameter cap."""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

IN_CHUNK = 400  # values per piece: `{in}` may appear twice in one query, and SQLite's default cap
                # on parameters is 999 (older builds)


def rows_in(conn: sqlite3.Connection, sql: str, values: Sequence, params: Sequence = (),
            size: int = IN_CHUNK) -> Iterator[tuple]:
    """The rows of `sql` for every piece of `values`. `sql` says `IN ({in})` where the piece goes
    (once or more: each place gets the piece); `params` are bound after the pieces."""
    places = sql.count("{in}")
    if not places:
        raise ValueError("rows_in needs an IN ({in}) in its query")
    values = list(values)
    for i in range(0, len(values), size):
        part = values[i:i + size]
        yield from conn.execute(sql.replace("{in}", ",".join("?" * len(part))), [*part * places, *params])
