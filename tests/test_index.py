"""The index: rebuild, sync and reindex agree; nothing outlives its note."""
import os
import random
import re
import shutil
import sqlite3

from hypothesis import HealthCheck, given, settings, strategies as st

from memory_plugin.index import store as I
from memory_plugin.outputs import pipeline as P
from memory_plugin.semantic import vectors as S
from memory_plugin.core.config import load_config

from conftest import FIXTURE_VAULT, gen_vault


def snap(cfg):
    conn = I.open_index(cfg)
    try:
        return I.snapshot(conn)
    finally:
        conn.close()


def fresh_snapshot(cfg, tmp):
    other = load_config(vault=cfg.vault, cache_dir=tmp)
    I.rebuild(other)
    return snap(other)


def test_rebuild_swaps_generations_and_keeps_one(vault, cache_dir):
    cfg = load_config(vault=vault)
    I.rebuild(cfg)
    first = os.readlink(cache_dir / "index.sqlite")
    I.rebuild(cfg)
    second = os.readlink(cache_dir / "index.sqlite")
    assert first != second
    assert sorted(p.name for p in cache_dir.glob("index-*.sqlite")) == [second]
    assert (cache_dir / "rebuild.stamp").exists()


def test_sync_with_nothing_changed_reads_nothing(vault, cache_dir):
    cfg = load_config(vault=vault)
    I.rebuild(cfg)
    stats = I.sync(cfg)
    assert stats["changed"] is False and stats["modified"] == 0 and stats["new"] == 0


def test_reindex_single_note_and_resolution_of_others(vault, cache_dir, tmp_path):
    cfg = load_config(vault=vault)
    I.rebuild(cfg)
    conn = I.open_index(cfg)
    dangling = conn.execute("SELECT linkpath, src FROM links WHERE target IS NULL AND kind='link' "
                            "AND linkpath NOT LIKE '%/%' LIMIT 1").fetchone()
    conn.close()
    assert dangling, "fixture vault needs a dangling link"
    (vault / f"{dangling[0]}.md").write_text("# now written\n")
    I.reindex(cfg, [str(vault / f"{dangling[0]}.md")])
    conn = I.open_index(cfg)
    t = conn.execute("SELECT target FROM links WHERE linkpath=? AND src=?", dangling).fetchone()[0]
    conn.close()
    assert t == f"{dangling[0]}.md"
    assert snap(cfg) == fresh_snapshot(cfg, tmp_path / "fresh")
    os.unlink(vault / f"{dangling[0]}.md")
    I.reindex(cfg, [f"{dangling[0]}.md"])
    assert snap(cfg) == fresh_snapshot(cfg, tmp_path / "fresh2")


def test_no_phantom_search_hits_after_delete(vault, cache_dir):
    cfg = load_config(vault=vault)
    (vault / "Zebra unique.md").write_text("quixotic zebra words\n")
    I.rebuild(cfg)
    conn = I.open_index(cfg)
    assert conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'quixotic'").fetchone()[0] == 1
    conn.close()
    os.unlink(vault / "Zebra unique.md")
    I.sync(cfg)
    conn = I.open_index(cfg)
    assert conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'quixotic'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM fts").fetchone()[0] == \
        conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    conn.close()


def test_pending_queue_is_drained_by_lock_holder(vault, cache_dir):
    cfg = load_config(vault=vault)
    I.rebuild(cfg)
    with I.index_lock(cfg):
        (vault / "Queued.md").write_text("# queued [[Nowhere]]\n")
        stats = I.reindex(cfg, ["Queued.md"], lock_timeout=0.05)
        assert stats["queued"] == 1
    # the next lock holder drains it
    I.sync(cfg)
    conn = I.open_index(cfg)
    assert conn.execute("SELECT count(*) FROM notes WHERE path='Queued.md'").fetchone()[0] == 1
    conn.close()


OPS = st.lists(st.tuples(st.sampled_from(["create", "edit", "rename", "delete", "touch", "attach"]),
                         st.integers(0, 10_000)), min_size=1, max_size=12)


def sem_snap(cfg):
    conn = I.open_index(cfg)
    try:
        return S.snapshot(conn), S.pending(conn)
    finally:
        conn.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_sync_after_random_changes_equals_rebuild(tmp_path_factory, semantic_env, real_encoder, ops):
    """Vectors included: after sync and the embedding pass, every chunk row and vector is what a
    rebuild from scratch embeds (the real model, memoised per text for speed), none is stale and
    none belongs to a note that is gone."""
    base = tmp_path_factory.mktemp("prop")
    vault = base / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    cfg = load_config(vault=vault, cache_dir=base / "cache")
    I.rebuild(cfg)
    S.embed_pending(cfg, encode=real_encoder)
    names = ["Overview", "Alpha note", "Überblick", "README", "wal", "Notes to write someday"]
    for op, n in ops:
        rng = random.Random(n)
        existing = sorted(p for p in vault.rglob("*.md") if not any(x.startswith(".") for x in p.relative_to(vault).parts))
        folders = sorted({p.parent for p in existing})
        if op == "create" or not existing:
            d = rng.choice(folders)
            (d / f"{rng.choice(names)} {n % 3 or ''}".strip()).with_suffix(".md").write_text(
                f"---\ntags: [t{n % 5}]\n---\nnew [[{rng.choice(names)}]] #x{n % 4}\n", encoding="utf-8")
        elif op == "edit":
            p = rng.choice(existing)
            p.write_text(p.read_text(encoding="utf-8", errors="replace") + f"\n[[{rng.choice(names)}]] #e{n}\n",
                         encoding="utf-8")
        elif op == "rename":
            p = rng.choice(existing)
            p.rename(rng.choice(folders) / f"{rng.choice(names)} r{n}.md")
        elif op == "delete":
            rng.choice(existing).unlink()
        elif op == "touch":
            p = rng.choice(existing)
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 1_000_000_000))
        elif op == "attach":
            (rng.choice(folders) / f"{rng.choice(names)}.png").write_bytes(b"\x89PNG")
        if n % 2:
            I.sync(cfg)
        if n % 3 == 0:
            S.embed_pending(cfg, encode=real_encoder)
    I.sync(cfg)
    S.embed_pending(cfg, encode=real_encoder)
    assert snap(cfg) == fresh_snapshot(cfg, base / "fresh")
    fresh = load_config(vault=vault, cache_dir=base / "fresh")
    S.embed_pending(fresh, encode=real_encoder)
    (rows, vecs), pend = sem_snap(cfg)
    assert pend == [] and rows and ((rows, vecs), pend) == sem_snap(fresh)


def test_sync_equals_rebuild_on_generated_vault(tmp_path):
    vault = gen_vault(tmp_path / "v", 400, 5, "--dup-share", "0.1")
    cfg = load_config(vault=vault, cache_dir=tmp_path / "c")
    I.rebuild(cfg)
    rng = random.Random(5)
    notes = sorted(vault.rglob("*.md"))
    notes = [p for p in notes if ".groundtruth" not in str(p)]
    for p in rng.sample(notes, 20):
        p.unlink()
    for p in rng.sample([p for p in notes if p.exists()], 20):
        p.rename(p.parent.parent / p.name if p.parent != vault else vault / ("moved " + p.name))
    I.sync(cfg)
    assert snap(cfg) == fresh_snapshot(cfg, tmp_path / "fresh")


def test_outputs_after_sync_equal_outputs_of_a_rebuild(tmp_path):
    """graph.json and GRAPH_REPORT.md (communities included) do not depend on the order notes were
    indexed in: after renames and a sync they are what a rebuild from scratch writes."""
    vault = gen_vault(tmp_path / "v", 300, 3)
    cfg = load_config(vault=vault, cache_dir=tmp_path / "c")
    P.rebuild(cfg)
    notes = sorted(p for p in vault.rglob("*.md") if ".groundtruth" not in str(p))
    for p in random.Random(3).sample(notes, 15):
        p.rename(p.with_name("renamed " + p.name))
    assert P.sync(cfg)["outputs"]["graph"] == "written"
    fresh = load_config(vault=vault, cache_dir=tmp_path / "fresh")
    P.rebuild(fresh)
    assert cfg.path("graph.json").read_bytes() == fresh.path("graph.json").read_bytes()
    # the report names the minute the index changed: the rest must be the same
    same = [re.sub(r"index updated [0-9: -]+", "", c.path("GRAPH_REPORT.md").read_text()) for c in (cfg, fresh)]
    assert same[0] == same[1]


def test_a_background_sync_waits_for_the_lock_to_heal_a_broken_index(vault, cache_dir):
    # SessionStart's sync asks for no lock; when another process holds it, a broken index used to be
    # left broken for the next session. Now the sync waits, rebuilds, and a second one finds it done.
    import threading

    cfg = load_config(vault=vault, cache_dir=cache_dir)
    P.rebuild(cfg)
    I.index_path(cfg).resolve().write_bytes(b"garbage" * 1000)
    lock = I.index_lock(cfg, 5)
    lock.acquire()
    got = {}
    t = threading.Thread(target=lambda: got.update(I.sync(cfg, lock_timeout=0)))
    t.start()
    t.join(1.0)
    assert t.is_alive()  # waiting for the lock, not given up
    lock.release()
    t.join(60)
    assert got.get("rebuilt") and not got.get("skipped")
    conn = I.open_index(cfg)
    assert conn.execute("SELECT count(*) FROM notes").fetchone()[0] > 40
    conn.close()
    assert I.sync(cfg, lock_timeout=0).get("rebuilt") is None  # usable now: an ordinary sync


def test_a_template_changed_since_the_last_sync_is_read_into_every_notes_summary(tmp_path):
    """A summary skips the prose of the vault's templates: a new template whose line a note also
    carries takes that line out of the note's summary at the next sync, as a rebuild would."""
    vault = tmp_path / "vault"
    (vault / "Templates").mkdir(parents=True)
    (vault / "Note.md").write_text("Describe the decision in one paragraph.\n\nThe real text.\n", encoding="utf-8")
    cfg = load_config(vault=vault, cache_dir=tmp_path / "cache")
    I.rebuild(cfg)

    def summary():
        conn = I.open_index(cfg)
        try:
            return conn.execute("SELECT summary FROM notes WHERE path = 'Note.md'").fetchone()[0]
        finally:
            conn.close()
    assert summary() == "Describe the decision in one paragraph."
    (vault / "Templates" / "Decision.md").write_text("Describe the decision in one paragraph.\n", encoding="utf-8")
    I.sync(cfg)
    assert summary() == "The real text."
    assert snap(cfg) == fresh_snapshot(cfg, tmp_path / "fresh")
