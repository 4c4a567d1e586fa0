"""The command line as a user runs it: a whole process per command."""
import json
import os
import stat

import pytest

from conftest import hash_tree, run_cli


@pytest.fixture
def built(vault):
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    return vault


def test_rebuild_status_and_files(built, cache_dir):
    r = run_cli("--vault", str(built), "status", "--json")
    info = json.loads(r.stdout)
    assert info["vault"] == str(built) and info["cache_dir"] == str(cache_dir)
    assert info["notes"] >= 40 and info["links"] > 100
    for key in ("index", "graph_json", "report", "html", "brief", "hooks_log"):
        assert info["files"][key].startswith(str(cache_dir))
    g = json.loads((cache_dir / "graph.json").read_text())
    assert g["directed"] is True and g["multigraph"] is True
    kinds = {n["kind"] for n in g["nodes"]}
    assert {"note", "tag", "unresolved", "attachment"} <= kinds
    note_ids = {n["id"] for n in g["nodes"] if n["kind"] == "note"}
    assert all(not i.startswith("/") and i.endswith(".md") for i in note_ids)
    assert all("type" in e for e in g["links"])
    types = {e["type"] for e in g["links"]}
    assert {"links_to", "embeds", "tagged", "subtag_of", "related", "supersedes"} <= types


def test_piped_rebuild_shows_no_progress(vault):
    r = run_cli("--vault", str(vault), "rebuild")
    assert "reading notes" not in r.stderr and r.stdout.startswith("rebuilt ")


def test_report_is_bounded_and_has_sections(built, cache_dir):
    text = (cache_dir / "GRAPH_REPORT.md").read_text()
    for section in ("## Counts", "## Hub notes", "## Conventions", "## Communities", "## Orphans",
                    "## Dangling targets", "## Ambiguous links", "## Parse warnings"):
        assert section in text
    assert "graph.html" in text
    assert "sk-test" not in text  # the private note's secret


def test_hubs_authored_first_and_conventions_with_summaries(built):
    hubs = json.loads(run_cli("--vault", str(built), "hubs", "--json").stdout)
    assert hubs[0]["hub"] and all(h["type"] != "journal" for h in hubs)
    flags = [h["hub"] for h in hubs]
    assert flags == sorted(flags, reverse=True)
    conv = json.loads(run_cli("--vault", str(built), "conventions", "--json").stdout)
    assert len(conv) >= 5 and all(c["summary"] for c in conv)


def test_explain_backlinks_path_orphans_dangling(built):
    hubs = json.loads(run_cli("--vault", str(built), "hubs", "--json").stdout)
    hub = hubs[0]["path"]
    ex = json.loads(run_cli("--vault", str(built), "explain", hub.upper(), "--json").stdout)
    assert ex["path"] == hub and ex["outgoing"]
    target = next(l["target"] for l in ex["outgoing"] if l["target"] and l["target"].endswith(".md")
                  and l["target"] != hub)
    bl = json.loads(run_cli("--vault", str(built), "backlinks", target, "--json").stdout)
    assert any(b["src"] == hub for b in bl["backlinks"])
    p = json.loads(run_cli("--vault", str(built), "path", hub, target, "--json").stdout)
    assert p["found"] and p["steps"][0]["from"] == hub and p["steps"][-1]["to"] == target
    d = json.loads(run_cli("--vault", str(built), "dangling", "--json").stdout)
    assert any(x["target"].lower() == "notes to write someday" and x["count"] >= 2 for x in d)
    o = run_cli("--vault", str(built), "orphans", "--json")
    assert o.returncode == 0 and isinstance(json.loads(o.stdout), list)


def test_note_lookup_by_name_title_and_ambiguity(built):
    r = run_cli("--vault", str(built), "explain", "overview")
    assert r.returncode == 2 and "ambiguous" in r.stderr and "Archive/Overview.md" in r.stderr
    r = run_cli("--vault", str(built), "explain", "No such note at all")
    assert r.returncode == 2 and r.stderr.startswith("Error:") and len(r.stderr.strip().splitlines()) == 1


def test_a_path_names_its_note_when_another_differs_only_in_case(tmp_path, cache_dir):
    v = tmp_path / "v"
    v.mkdir()
    (v / "Perso.dumb.md").write_text("Upper.\n")
    (v / "perso.dumb.md").write_text("Lower.\n")
    if len(list(v.iterdir())) < 2:
        pytest.skip("a case-insensitive file system")
    assert run_cli("--vault", str(v), "rebuild").returncode == 0
    for name in ("Perso.dumb.md", "perso.dumb.md", "perso.dumb"):
        ex = json.loads(run_cli("--vault", str(v), "explain", name, "--json").stdout)
        assert ex["path"] == (name if name.endswith(".md") else name + ".md")
    r = run_cli("--vault", str(v), "explain", "PERSO.DUMB.md")
    assert r.returncode == 2 and "ambiguous" in r.stderr


def test_no_command_modifies_the_vault(vault):
    before = hash_tree(vault)
    for args in (["rebuild"], ["sync"], ["status"], ["hubs"], ["conventions"], ["orphans"], ["dangling"],
                 ["explain", "Home"], ["backlinks", "Home"], ["reindex", "Home.md"], ["sync", "--json"]):
        r = run_cli("--vault", str(vault), *args)
        assert r.returncode == 0, (args, r.stderr)
    assert hash_tree(vault) == before


@pytest.mark.parametrize("kind", ["missing", "file", "unreadable"])
def test_bad_vault_is_one_line_error_and_writes_nothing(tmp_path, cache_dir, kind):
    v = tmp_path / "v"
    if kind == "file":
        v.write_text("not a folder")
    elif kind == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root can read anything")
        v.mkdir()
        v.chmod(0)
    for cmd in ("rebuild", "sync", "status", "hubs"):
        r = run_cli("--vault", str(v), cmd)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("Error: vault")
    assert not cache_dir.exists()


def test_unwritable_cache_dir(vault, tmp_path):
    ro = tmp_path / "ro"
    ro.write_text("a file where the cache dir should be")
    r = run_cli("--vault", str(vault), "--cache-dir", str(ro / "sub"), "rebuild")
    assert r.returncode == 2 and r.stderr.startswith("Error: cache dir") and len(r.stderr.strip().splitlines()) == 1


def test_missing_index_says_to_rebuild(vault):
    r = run_cli("--vault", str(vault), "hubs")
    assert r.returncode == 2 and "memory-plugin rebuild" in r.stderr


def test_skipped_files_and_symlink_loops_are_warnings(vault, cache_dir):
    (vault / "bin.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")  # binary: not UTF-8
    (vault / "nul.md").write_bytes(b"\x00\x01\x02 [[Home]]")  # UTF-8 with NUL: a note, as in Obsidian
    (vault / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    (vault / "empty.md").write_bytes(b"")
    (vault / "loop").symlink_to(vault, target_is_directory=True)
    (vault / "outside.md").symlink_to("/etc/hostname")
    r = run_cli("--vault", str(vault), "rebuild", "--json")
    assert r.returncode == 0, r.stderr
    import sqlite3
    conn = sqlite3.connect(cache_dir / "index.sqlite")
    w = dict(((p, m) for p, m in conn.execute("SELECT path, message FROM warnings")))
    assert "UTF-8" in w["bin.md"] and "UTF-8" in w["latin.md"] and "empty" in w["empty.md"]
    assert "nul.md" not in w and conn.execute("SELECT target FROM links WHERE src='nul.md'").fetchone() == ("Home.md",)
    assert "loop" in w["loop"] and "outside" in w["outside.md"]
    assert not conn.execute("SELECT 1 FROM notes WHERE path LIKE 'loop/%'").fetchone()


def test_note_lookup_ignores_case_beyond_ascii(built):
    """SQLite's lower() folds ASCII only; names in Greek or German must be found in any case too."""
    (built / "Learnings" / "Ärger.md").write_text("# Ärger\n\nLinks [[Ελληνικά notes]].\n", encoding="utf-8")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    for ref, want in (("ελληνικά NOTES", "Learnings/Ελληνικά notes.md"),
                      ("LEARNINGS/ΕΛΛΗΝΙΚΆ NOTES.md", "Learnings/Ελληνικά notes.md"),
                      ("ärger", "Learnings/Ärger.md"), ("learnings/ärger", "Learnings/Ärger.md")):
        r = run_cli("--vault", str(built), "explain", ref, "--json")
        assert r.returncode == 0, (ref, r.stderr)
        assert json.loads(r.stdout)["path"] == want


def test_dangling_targets_grouped_like_the_graph(built, cache_dir):
    """[[Ζήτα]] and [[ζήτα]] are one dangling target in `dangling`, the report and graph.json alike."""
    (built / "Dangling cases.md").write_text("[[Ζήτα]] [[ζήτα]] [[Über]] [[über]] [[a,b]]\n", encoding="utf-8")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    d = {x["target"].lower(): x for x in json.loads(run_cli("--vault", str(built), "dangling", "--json").stdout)}
    assert d["ζήτα"]["count"] == 2 and d["über"]["count"] == 2 and "Ζήτα".lower() in d
    assert d["a,b"]["from_notes"] == ["Dangling cases.md"]  # a comma in a target or path splits nothing
    g = json.loads((cache_dir / "graph.json").read_text())
    unresolved = {n["id"] for n in g["nodes"] if n["kind"] == "unresolved"}
    assert {"unresolved:ζήτα", "unresolved:über"} <= unresolved
    assert len(d) == len(unresolved) - sum(1 for n in g["nodes"] if n["kind"] == "unresolved"
                                           and n["id"][len("unresolved:"):] not in d)


def test_private_note_shows_nothing_through_explain_or_path(built):
    """A private note can be named, but explain (text or --json) shows nothing it holds, it is not found
    by its summary or tags, and `path` never follows the links written in it."""
    for args in (("explain", "Salary negotiation"), ("explain", "Salary negotiation", "--json")):
        r = run_cli("--vault", str(built), *args)
        assert r.returncode == 0, r.stderr
        for secret in ("compensation", "sk-test-FAKE", "personal", "Atlas", "2026-10-02"):
            assert secret not in r.stdout, (args, secret)
    r = run_cli("--vault", str(built), "path", "Salary negotiation", "Atlas", "--json")
    assert r.returncode == 0
    steps = json.loads(r.stdout)["steps"]
    assert not any(s["from"] == "Personal/Salary negotiation.md" and s["direction"] == "->" for s in steps)
    assert not any(s["to"] == "Personal/Salary negotiation.md" and s["direction"] == "<-" for s in steps)


def test_usage_errors_are_one_line(vault):
    for args in (("explain",), ("rebuild", "--no-such-option"), ("no-such-command",)):
        r = run_cli("--vault", str(vault), *args)
        assert r.returncode == 2 and r.stderr.startswith("Error:"), (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, (args, r.stderr)
