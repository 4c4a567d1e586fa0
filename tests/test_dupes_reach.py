"""`remember`'s lexical duplicate check skips the candidates `dupes.beyond_reach` proves can be
neither a duplicate nor a successor of the would-be note (their frequencies are never looked up):
the rule must hold for every pair, and `find_similar` must answer exactly as when it judges them
all."""
from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from conftest import ROOT, gen_vault, run_cli

DEVVAULT = ROOT / "fixtures" / "devvault"
PAIR_SETS = sorted((ROOT / "bench" / "dev").glob("duplicates-*.yaml"))


def _index(vault: Path, cache: Path):
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index

    r = run_cli("--vault", str(vault), "--cache-dir", str(cache), "rebuild")
    assert r.returncode == 0, r.stderr
    return open_index(load_config(vault=str(vault), cache_dir=str(cache)))


def _devvault_memories() -> list[dict]:
    out = []
    for f in PAIR_SETS:
        for p in yaml.safe_load(f.read_text(encoding="utf-8"))["pairs"]:
            if p.get("vault") == "devvault" and p.get("new"):
                out.append(p["new"])
    return out


def _docs(conn):
    from memory_plugin.memory import dupes

    return [dupes.Doc(t, typ, project, summary or "", body or "", (dt,) if dt != t else (), path, h)
            for path, t, dt, typ, project, summary, body, h in conn.execute(
                "SELECT n.path, n.title, n.display_title, n.type, n.project, n.summary, f.body, n.hash "
                "FROM notes n JOIN fts f ON f.rowid = n.id WHERE n.private = 0")]


def _memories_of(conn, k: int) -> list:
    """Would-be notes made of the vault's own notes: each one's summary and body under another title
    (duplicates), the first half of its body (near ones), a decision of its words (successors), and
    lessons of other words (as bench/bench_query.py remembers)."""
    from memory_plugin.memory import dupes

    out = [dupes.Doc(f"Bench lesson {i}", "learning", None, f"Benchmark lesson number {i} about zebra{i} stripes.")
           for i in range(3)]
    for d in _docs(conn)[:k]:
        half = d.body[: len(d.body) // 2]
        out += [dupes.Doc(f"Again {d.title}", d.type, d.project, d.summary, d.body),
                dupes.Doc("Another note", "learning", None, d.summary, half),
                dupes.Doc("A choice", "decision", d.project, f"Use this instead of {d.title}.", half)]
    return out


def _check(conn, memories) -> int:
    """Every pair the rule rules out is judged neither duplicate nor successor, and find_similar
    answers the same with the rule and without it; the number of pairs ruled out."""
    from memory_plugin.memory import dupes, write

    idf = dupes.Idf.from_index(conn)
    docs = _docs(conn)
    skipped = 0
    for me in memories:
        for other in docs:
            if dupes.beyond_reach(me, other):
                skipped += 1
                v = dupes.judge(me, other, idf, newer=True)
                assert not v.duplicate and v.successor is None, (me.title, other.path, v)
        got_succ: list = []
        got = write.find_similar(conn, me, limit=50, successors=got_succ)
        want_succ: list = []
        real = dupes.beyond_reach
        try:
            dupes.beyond_reach = lambda a, b: False
            want = write.find_similar(conn, me, limit=50, successors=want_succ)
        finally:
            dupes.beyond_reach = real
        assert got == want and got_succ == want_succ, me.title
    return skipped


def test_the_rule_holds_on_the_dev_pairs(tmp_path):
    from memory_plugin.memory import dupes

    vault = tmp_path / "vault"
    shutil.copytree(DEVVAULT, vault)
    conn = _index(vault, tmp_path / "cache")
    try:
        memories = [dupes.Doc(m["title"], m.get("type"), m.get("project"), m.get("summary") or "",
                              m.get("body") or "") for m in _devvault_memories()]
        assert len(memories) > 20
        _check(conn, memories + _memories_of(conn, 15))
    finally:
        conn.close()


def test_the_rule_holds_and_prunes_in_a_larger_vault(tmp_path):
    conn = _index(gen_vault(tmp_path / "vault", 300, 3), tmp_path / "cache")
    try:
        assert _check(conn, _memories_of(conn, 12)) > 0
    finally:
        conn.close()


def test_a_note_sharing_no_word_is_beyond_reach_and_identical_content_never():
    from memory_plugin.memory import dupes

    me = dupes.Doc("Chess openings", "learning", None, "Open with the king's pawn.", "")
    other = dupes.Doc("Chess", "learning", None, "Water orchids when the bark is dry.", "", path="o.md")
    assert dupes.beyond_reach(me, other)  # a title word in common is no text in common
    assert not dupes.beyond_reach(me, dupes.Doc("X", "note", None, "The king's pawn opens.", "", path="k.md"))
    same = dupes.Doc("A", summary="x", hash="h1")
    assert not dupes.beyond_reach(same, dupes.Doc("B", summary="y", path="b.md", hash="h1"))
