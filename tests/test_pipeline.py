"""The build pipeline: scan → parse → index → outputs (and embed), run by one driver; the index layer knows
nothing of outputs; graph outputs are rewritten only when the graph changed; commands that do not
draw the graph never import networkx."""
import json
import subprocess
import sys

from memory_plugin.index import store as I
from memory_plugin.outputs import pipeline as P
from memory_plugin.core.config import load_config

from conftest import run_cli

GRAPH_FILES = ("graph.json", "GRAPH_REPORT.md", "graph.html")
MOC = "Maps/Python MOC.md"


def _stamps(cache_dir):
    return {f: (cache_dir / f).stat().st_mtime_ns for f in GRAPH_FILES}


def test_index_layer_writes_and_imports_no_outputs(vault, cache_dir):
    """index.rebuild/sync/reindex alone: no graph files, no brief, and none of the output modules
    (nor networkx) loaded."""
    code = f"""
import sys
from memory_plugin.index import store as I
from memory_plugin.core.config import load_config
cfg = load_config(vault={str(vault)!r})
I.rebuild(cfg)
open({str(vault / MOC)!r}, "a").write("\\nSee [[Brand new note]].\\n")
I.sync(cfg)
I.reindex(cfg, [{MOC!r}])
print(sorted(m for m in sys.modules if m.startswith("memory_plugin") or m == "networkx"))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    loaded = set(eval(r.stdout))
    assert "memory_plugin.index.store" in loaded
    for m in ("memory_plugin.outputs.stage", "memory_plugin.index.graph", "memory_plugin.outputs.brief",
              "memory_plugin.outputs.report", "memory_plugin.outputs.view", "memory_plugin.outputs.pipeline",
              "memory_plugin.semantic.vectors", "memory_plugin.semantic.embedder", "networkx"):
        assert m not in loaded, m
    for f in GRAPH_FILES + ("brief.json", "outputs.json"):
        assert not (cache_dir / f).exists(), f


def test_each_stage_imports_only_the_stages_before_it():
    """scan reads no note (no parse module), parse knows nothing of the index, the index nothing
    of outputs or embedding."""
    code = """
import importlib, sys
out = {}
for stage in ("vault.scan", "vault.notes", "index.store"):
    before = set(sys.modules)
    importlib.import_module("memory_plugin." + stage)
    out[stage] = sorted(m for m in set(sys.modules) - before if m.startswith("memory_plugin."))
print(out)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = eval(r.stdout)
    assert "memory_plugin.vault.notes" not in got["vault.scan"] and "memory_plugin.vault.links" not in got["vault.scan"]
    assert "memory_plugin.index.store" not in got["vault.notes"]
    later = {"memory_plugin.outputs.stage", "memory_plugin.semantic.vectors", "memory_plugin.outputs.pipeline"}
    assert not later & set(got["vault.scan"] + got["vault.notes"] + got["index.store"])
    assert got["index.store"]  # the check sees what a stage imports


def test_pipeline_rebuild_runs_every_stage(vault, cache_dir):
    stats = P.rebuild(load_config(vault=vault))
    assert stats["notes"] >= 40 and stats["outputs"]["graph"] == "written"
    for f in GRAPH_FILES + ("brief.json", "brief.md", "outputs.json"):
        assert (cache_dir / f).exists(), f


def test_sync_rewrites_graph_outputs_only_when_the_graph_changed(vault, cache_dir):
    cfg = load_config(vault=vault)
    P.rebuild(cfg)
    before = _stamps(cache_dir)
    # a paragraph added at the end: the body changed, nothing the graph shows did
    with open(vault / MOC, "a", encoding="utf-8") as f:
        f.write("\nA closing remark with no link in it.\n")
    stats = P.sync(cfg)
    assert stats["changed"] is True and stats["outputs"]["graph"] == "unchanged: not rewritten"
    assert _stamps(cache_dir) == before
    r = run_cli("--vault", str(vault), "status", "--json")
    out = json.loads(r.stdout)["outputs"]
    assert out["skipped"] == 1 and out["skipped_at"] >= out["written_at"]
    text = run_cli("--vault", str(vault), "status").stdout
    assert "rewrite skipped" in text and "the graph unchanged" in text
    # the search index did take the new words
    conn = I.open_index(cfg)
    assert conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'closing remark'").fetchone()[0] == 1
    conn.close()
    # a new link changes the graph: everything is rewritten and the skip count starts again
    with open(vault / MOC, "a", encoding="utf-8") as f:
        f.write("\nSee [[A note still to write]].\n")
    assert P.sync(cfg)["outputs"]["graph"] == "written"
    after = _stamps(cache_dir)
    assert all(after[f] != before[f] for f in GRAPH_FILES)
    assert "A note still to write" in (cache_dir / "graph.json").read_text(encoding="utf-8")
    assert json.loads(run_cli("--vault", str(vault), "status", "--json").stdout)["outputs"]["skipped"] == 0


def test_the_second_output_process_hashes_what_the_next_sync_compares(vault, cache_dir, monkeypatch):
    """With graph.json and the report written by a second process (a big vault's path, forced here
    on the fixture) while this one hashes the index, the forced rebuild's hash equals the hash of
    the index both wrote from, so a sync with nothing the graph shows changed skips the rewrite."""
    from memory_plugin.outputs import stage as O

    monkeypatch.setattr(O, "PARALLEL_MIN_NOTES", 1)
    cfg = load_config(vault=vault)
    stats = P.rebuild(cfg)
    conn = I.open_index(cfg)
    try:
        want = O.graph_hash(cfg, conn)
    finally:
        conn.close()
    assert stats["outputs"]["graph_hash"] == want
    assert json.loads((cache_dir / "outputs.json").read_text())["graph_hash"] == want
    before = _stamps(cache_dir)
    with open(vault / MOC, "a", encoding="utf-8") as f:
        f.write("\nOne more plain line, no link.\n")
    assert P.sync(cfg)["outputs"]["graph"] == "unchanged: not rewritten"
    assert _stamps(cache_dir) == before
    with open(vault / MOC, "a", encoding="utf-8") as f:
        f.write("\nSee [[Drawn by the second process]].\n")
    assert P.sync(cfg)["outputs"]["graph"] == "written"
    assert "Drawn by the second process" in (cache_dir / "graph.json").read_text(encoding="utf-8")


def test_sync_refreshes_outputs_after_a_reindex_changed_the_index(vault, cache_dir):
    """PostToolUse reindexes without touching outputs; the next sync finds nothing new to read but
    sees the index changed since the outputs were made, and refreshes them."""
    cfg = load_config(vault=vault)
    P.rebuild(cfg)
    with open(vault / MOC, "a", encoding="utf-8") as f:
        f.write("\nSee [[Written between syncs]].\n")
    I.reindex(cfg, [MOC])
    stats = P.sync(cfg)
    assert stats["changed"] is False and stats["outputs"]["graph"] == "written"
    assert "Written between syncs" in (cache_dir / "GRAPH_REPORT.md").read_text(encoding="utf-8")
    assert "outputs" not in P.sync(cfg)  # nothing changed since: no work at all


def test_a_detached_worker_sync_skips_unchanged_graph_outputs(vault, cache_dir):
    cfg = load_config(vault=vault)
    P.rebuild(cfg)
    before = _stamps(cache_dir)
    with open(vault / MOC, "a", encoding="utf-8") as f:
        f.write("\nAnother plain closing line.\n")
    r = subprocess.run([sys.executable, "-m", "memory_plugin", "hook", "worker", "sync"],
                       env={**__import__("os").environ, "MEMORY_PLUGIN_VAULT": str(vault)},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert _stamps(cache_dir) == before
    assert json.loads((cache_dir / "outputs.json").read_text())["skipped"] == 1


DO_NOT_DRAW = [("status",), ("hubs",), ("conventions",), ("orphans",), ("dangling",), ("search", "pytest"),
               ("query", "any pitfalls for testing?"), ("explain", "Python MOC"), ("backlinks", "Python MOC"),
               ("sync",), ("reindex", MOC)]


def _imports(vault, args):
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "memory_plugin", "--vault", str(vault),
                        *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}


def test_commands_that_do_not_draw_the_graph_never_import_networkx(vault, cache_dir):
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    for args in DO_NOT_DRAW:
        assert "networkx" not in _imports(vault, args), args
    assert "networkx" in _imports(vault, ("path", "Python MOC", "Testing MOC"))  # the check can see it


def test_a_reindex_between_the_two_snapshots_records_no_hash(vault, cache_dir, monkeypatch):
    """graph.json and the report are read in one snapshot of the index, the hash, graph.html and
    the brief in another; a note reindexed between the two leaves no hash behind (it would describe
    only some of the files), so the next sync rewrites everything."""
    from memory_plugin.outputs import stage as O

    cfg = load_config(vault=vault)
    P.rebuild(cfg)
    files = O.write_graph_files

    def reindex_first(cfg_, digest=None):
        with open(vault / MOC, "a", encoding="utf-8") as f:
            f.write("\nSee [[Linked between the snapshots]].\n")
        I.reindex(cfg_, [str(vault / MOC)])
        return files(cfg_, digest)

    monkeypatch.setattr(O, "write_graph_files", reindex_first)
    assert O.refresh(cfg, force=True)["graph_hash"] is None
    assert json.loads((cache_dir / "outputs.json").read_text())["graph_hash"] is None
    monkeypatch.setattr(O, "write_graph_files", files)
    assert P.sync(cfg)["outputs"]["graph"] == "written"  # not trusted: rewritten, and hashed again
    conn = I.open_index(cfg)
    try:
        assert json.loads((cache_dir / "outputs.json").read_text())["graph_hash"] == O.graph_hash(cfg, conn)
    finally:
        conn.close()
    assert "Linked between the snapshots" in (cache_dir / "graph.json").read_text(encoding="utf-8")
