"""Big and hostile vaults: a note far above max_note_bytes, a note with 100k links, a tag tree 50
levels deep, thousands of notes in one folder, and the parallel rebuild. No crash, the index is what
it should be, the outputs are written. (The figures, memory included, are in bench/bench_scale.py.)"""
import json
import re

from memory_plugin.index import store as I
from memory_plugin.outputs import stage as O
from memory_plugin.outputs import pipeline as P
from memory_plugin.core.config import load_config

from conftest import gen_vault, run_cli

DEEP = "/".join(f"level{i}" for i in range(50))


def _build(vault):
    r = run_cli("--vault", str(vault), "rebuild", "--json")
    assert r.returncode == 0 and not r.stderr.strip(), r.stderr
    return json.loads(r.stdout)


def test_a_50_mb_note_is_skipped_with_a_warning(tmp_path, cache_dir):
    v = tmp_path / "v"
    v.mkdir()
    (v / "Huge.md").write_text("# Huge\n\n" + "zyzzyva " * 6_250_000, encoding="utf-8")  # 50 MB
    (v / "Small.md").write_text("Links to [[Huge]].\n", encoding="utf-8")
    stats = _build(v)
    assert stats["notes"] == 2 and stats["warnings"] == 1
    r = run_cli("--vault", str(v), "search", "zyzzyva", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["hits"] == []
    report = (cache_dir / "GRAPH_REPORT.md").read_text(encoding="utf-8")
    assert "`Huge.md`: larger than max_note_bytes (50,000,008 bytes > 5,000,000): skipped" in report
    conn = I.open_index(load_config(vault=v))
    assert conn.execute("SELECT skipped, body_chars FROM notes WHERE path = 'Huge.md'").fetchone() == (1, 0)
    assert conn.execute("SELECT target FROM links WHERE src = 'Small.md'").fetchone()[0] == "Huge.md"
    conn.close()


def test_a_note_with_100k_links(tmp_path, cache_dir):
    v = tmp_path / "v"
    v.mkdir()
    (v / "Index.md").write_text("# Index\n\n" + "\n".join(f"- [[Topic {i}]]" for i in range(100_000)) + "\n",
                                encoding="utf-8")
    for i in range(3):
        (v / f"Topic {i}.md").write_text("Back to [[Index]].\n", encoding="utf-8")
    stats = _build(v)
    assert stats["links"] == 100_003
    g = json.loads((cache_dir / "graph.json").read_text(encoding="utf-8"))
    assert sum(1 for e in g["links"] if e["source"] == "Index.md") == 100_000
    assert sum(1 for n in g["nodes"] if n["kind"] == "unresolved") == 99_997
    r = run_cli("--vault", str(v), "backlinks", "Topic 2", "--json")
    assert r.returncode == 0 and [b["src"] for b in json.loads(r.stdout)["backlinks"]] == ["Index.md"]
    assert "99997 link targets with no file" in (cache_dir / "GRAPH_REPORT.md").read_text(encoding="utf-8")


def test_a_tag_tree_50_levels_deep(tmp_path, cache_dir):
    v = tmp_path / "v"
    v.mkdir()
    (v / "Deep.md").write_text(f"---\ntags: [{DEEP}]\n---\n# Deep\n\nInline #{DEEP}/leaf too.\n", encoding="utf-8")
    (v / "Shallow.md").write_text("#level0 only\n", encoding="utf-8")
    _build(v)
    g = json.loads((cache_dir / "graph.json").read_text(encoding="utf-8"))
    tags = {n["id"] for n in g["nodes"] if n["kind"] == "tag"}
    assert len(tags) == 51 and f"tag:{DEEP.lower()}/leaf" in tags
    sub = {(e["source"], e["target"]) for e in g["links"] if e["type"] == "subtag_of"}
    assert len(sub) == 50 and ("tag:level0/level1", "tag:level0") in sub
    html = (cache_dir / "graph.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="graph-data">(.*?)</script>', html, re.S).group(1))
    assert sum(1 for k in data["nodes"]["k"] if k == 1) == 51
    r = run_cli("--vault", str(v), "explain", "Deep", "--json")
    assert r.returncode == 0 and f"{DEEP}/leaf" in json.loads(r.stdout)["tags"]


def test_thousands_of_notes_in_one_folder_rebuilt_in_parallel_equal_a_serial_rebuild(tmp_path, monkeypatch):
    v = tmp_path / "v"
    v.mkdir()
    for i in range(4000):
        (v / f"Note {i}.md").write_text(f"---\ntags: [t{i % 7}]\n---\nSee [[Note {(i * 7) % 4000}]] and "
                                        f"[[Note {i + 1}]].\n", encoding="utf-8")
    par = load_config(vault=v, cache_dir=tmp_path / "par")
    assert P.rebuild(par)["notes"] == 4000
    monkeypatch.setattr(I, "PARALLEL_MIN_NOTES", 10**9)
    # and the outputs' two halves one after the other in one process, as in a vault over
    # PARALLEL_MAX_NOTES (par wrote them in two processes side by side)
    monkeypatch.setattr(O, "PARALLEL_MAX_NOTES", 1000)
    ser = load_config(vault=v, cache_dir=tmp_path / "ser")
    P.rebuild(ser)
    snaps = []
    for cfg in (par, ser):
        conn = I.open_index(cfg)
        snaps.append(I.snapshot(conn))
        conn.close()
    assert snaps[0] == snaps[1] and len(snaps[0]["links"]) == 8000
    assert par.path("graph.json").read_bytes() == ser.path("graph.json").read_bytes()
    # the report names the minute it was made, the page the index's time: the rest must be the same
    same = [re.sub(r"index updated [0-9: -]+", "", c.path("GRAPH_REPORT.md").read_text()) for c in (par, ser)]
    assert same[0] == same[1]
    pages = [re.sub(r'"updated": ?[0-9.]+', "", c.path("graph.html").read_text()) for c in (par, ser)]
    assert pages[0] == pages[1] and len(pages[0]) > 100_000


def test_parallel_rebuild_with_aliases_resolved_equals_a_serial_one(tmp_path, monkeypatch):
    v = gen_vault(tmp_path / "v", 1600, 9)
    snaps = []
    for name, floor in (("par", 1500), ("ser", 10**9)):
        monkeypatch.setattr(I, "PARALLEL_MIN_NOTES", floor)
        cfg = load_config(vault=v, cache_dir=tmp_path / name, overrides={"resolve_aliases": True})
        I.rebuild(cfg)
        conn = I.open_index(cfg)
        snaps.append(I.snapshot(conn))
        conn.close()
    assert snaps[0] == snaps[1]



def test_properties_read_the_same_with_and_without_libyaml(tmp_path):
    """PyYAML's C loader (libyaml) when it is there, its pure-Python loader when not: every note of
    the fixture vault and of a generated vault parses to the same record either way."""
    code = """
import json, sys, yaml
from pathlib import Path
if sys.argv[1] == "python":
    del yaml.CSafeLoader  # PyYAML built without libyaml
from memory_plugin.vault import notes as N
from memory_plugin.vault.scan import walk_vault
from memory_plugin.core.config import load_config
out = {}
for root in sys.argv[2:]:
    cfg = load_config(vault=root, cache_dir=Path(root).parent / "c")
    files, _ = walk_vault(cfg.vault, cfg.exclude, [])
    for rel, vf in sorted(files.items()):
        n = N.read_note(vf, cfg.values)
        out[root + "/" + rel] = [n.props, n.tags, n.aliases, n.type, n.summary, n.warnings, n.private]
from memory_plugin.core import yamlread as Y
print(Y._yaml_loader.__name__)
print(N.dumps(out))
"""
    import shutil
    import subprocess
    import sys

    from conftest import FIXTURE_VAULT
    fx = tmp_path / "fx" / "vault"
    shutil.copytree(FIXTURE_VAULT, fx, symlinks=True)
    gen = gen_vault(tmp_path / "gen" / "vault", 300, 2)
    runs = {}
    for loader in ("c", "python"):
        r = subprocess.run([sys.executable, "-c", code, loader, str(fx), str(gen)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        name, data = r.stdout.split("\n", 1)
        runs[loader] = (name, json.loads(data))
    assert runs["c"][0] == "CSafeLoader" and runs["python"][0] == "SafeLoader"
    assert len(runs["c"][1]) > 300 and runs["c"][1] == runs["python"][1]
