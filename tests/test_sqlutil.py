"""sqlutil.rows_in: one query over more values than SQLite takes parameters at once."""
import sqlite3

import pytest

from memory_plugin.core.sqlutil import rows_in


@pytest.fixture
def conn():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE TABLE t(k INTEGER, kind TEXT)")
    c.executemany("INSERT INTO t VALUES (?, ?)", [(i, "even" if i % 2 == 0 else "odd") for i in range(3000)])
    yield c
    c.close()


def test_every_piece_is_asked(conn):
    wanted = list(range(0, 3000, 2)) + [5000]  # 1,501 values: four pieces of 400, one key absent
    got = sorted(k for (k,) in rows_in(conn, "SELECT k FROM t WHERE k IN ({in})", wanted))
    assert got == list(range(0, 3000, 2))


def test_each_place_gets_the_piece_and_params_come_after(conn):
    sql = "SELECT k FROM t WHERE (k IN ({in}) OR k + 1 IN ({in})) AND kind = ?"
    got = sorted(k for (k,) in rows_in(conn, sql, range(1, 1001, 10), ["even"], size=7))
    assert got == sorted(range(0, 1000, 10))  # k + 1 in the list, and even


def test_empty_values_ask_nothing(conn):
    assert list(rows_in(conn, "SELECT k FROM t WHERE k IN ({in})", [])) == []


def test_a_query_without_the_place_is_refused(conn):
    with pytest.raises(ValueError):
        list(rows_in(conn, "SELECT k FROM t", [1]))
