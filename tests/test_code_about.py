"""The command line's side of notes tied to code: `remember --about` records the code a memory is
about with fingerprints, `validate` records them again, `explain` and `backlinks` show a note's code
and a file's notes with their state, `reorganize` proposes re-validating notes whose code changed or
vanished, and `query` says "changed since". A real git repository, the real CLI as a process, run
from inside the repository as Claude runs it."""
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from codesample import SRC
from conftest import hash_tree
from memory_plugin.index import code

LIMIT_LINES = (9, 10)  # the limit check in SRC


def fp_of(text: str, l1: int | None = None, l2: int | None = None) -> str:
    lines = text.split("\n")
    return code.fingerprint(code.block(lines, l1, l2) if l1 else lines)


def run(ce, *args, cwd=None):
    """The CLI as a whole process, in `cwd` (default: the repository's top-level)."""
    exe = Path(sys.executable).parent / "memory-plugin"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memory_plugin"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=str(cwd or ce["repo"]),
                          env={**os.environ, **ce["env"]}, timeout=300)


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


@pytest.fixture
def ce(tmp_path, cache_dir):
    repo = tmp_path / "acme"
    (repo / "acme").mkdir(parents=True)
    (repo / "acme" / "parser.py").write_text(SRC, encoding="utf-8")
    (repo / "acme" / "old.py").write_text("def legacy():\n    return 1\n", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    (vault / "Notes" / "Home.md").write_text("# Home\n", encoding="utf-8")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    out = {"env": env, "repo": repo, "vault": vault, "cache": cache_dir, "outside": tmp_path}
    r = run(out, "rebuild")
    assert r.returncode == 0, r.stderr
    return out


def remember(ce, title, *about, cwd=None, extra=()):
    args = ["remember", "--type", "pitfall", "--title", title, "--summary", f"{title}: what to remember here.",
            "--no-project", "--force", "--json", *extra]
    for a in about:
        args += ["--about", a]
    return run(ce, *args, cwd=cwd)


def props_of(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])


def edit_src(ce, old, new):
    p = ce["repo"] / "acme" / "parser.py"
    p.write_text(p.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


# ---------------------------------------------------------------- remember --about

def test_remember_about_records_each_anchor_with_the_fingerprint_of_its_lines(ce):
    r = remember(ce, "Part limit raises", "acme/parser.py:9-10", "acme/parser.py#L14-L15", "acme/old.py")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    files = props_of(ce["vault"] / res["path"])["files"]
    assert files == [f"acme/parser.py#L9-L10 fp={fp_of(SRC, 9, 10)}", f"acme/parser.py#L14-L15 fp={fp_of(SRC, 14, 15)}",
                     f"acme/old.py fp={fp_of((ce['repo'] / 'acme' / 'old.py').read_text())}"]
    # the index reads them back as the anchors they are, current
    got = json.loads(run(ce, "explain", res["path"], "--json").stdout)
    assert [(a["kind"], a["file"], a["lines"], a["state"]) for a in got["anchors"]] == [
        ("lines", "acme/parser.py", [9, 10], "current"), ("lines", "acme/parser.py", [14, 15], "current"),
        ("file", "acme/old.py", None, "current")]


def test_about_paths_are_relative_to_the_working_folder_or_absolute(ce):
    sub = ce["repo"] / "acme"
    r = remember(ce, "From a subfolder", "parser.py:9", str(sub / "old.py"), cwd=sub)
    assert r.returncode == 0, r.stderr
    files = props_of(ce["vault"] / json.loads(r.stdout)["path"])["files"]
    assert [f.split(" fp=")[0] for f in files] == ["acme/parser.py#L9", "acme/old.py"]


@pytest.mark.parametrize("spec, says", [
    ("acme/nope.py", "no file acme/nope.py"),
    ("acme/parser.py:15-99", "has 15 lines"),
    ("acme/parser.py:0", "has 15 lines"),
    ("acme", "is a folder"),
    (".git/HEAD", "inside .git"),
    ("acme/parser.py:2-3", "blank"),
])
def test_about_refuses_bad_input_in_one_line_and_writes_nothing(ce, spec, says):
    before = hash_tree(ce["vault"])
    r = remember(ce, "Refused", "acme/parser.py:9-10", spec)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("Error: --about") and says in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert hash_tree(ce["vault"]) == before


def test_about_refuses_a_file_outside_the_repository_and_a_folder_outside_any(ce):
    before = hash_tree(ce["vault"])
    elsewhere = ce["outside"] / "elsewhere.py"
    elsewhere.write_text("x = 1\n")
    r = remember(ce, "Outside", str(elsewhere))
    assert r.returncode == 2 and "outside the repository" in r.stderr, r.stderr
    r = remember(ce, "No repo", "elsewhere.py", cwd=ce["outside"])
    assert r.returncode == 2 and "not in a git repository" in r.stderr, r.stderr
    assert hash_tree(ce["vault"]) == before


def test_about_dry_run_shows_the_files_property_and_writes_nothing(ce):
    before = hash_tree(ce["vault"])
    r = remember(ce, "Dry about", "acme/parser.py:9-10", extra=["--dry-run"])
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert f'files: ["acme/parser.py#L9-L10 fp={fp_of(SRC, 9, 10)}"]' in res["text"]
    assert res["about"][0]["lines"] == [9, 10]
    text = run(ce, "remember", "--type", "pitfall", "--title", "Dry about", "--summary", "s: what to keep here.",
               "--no-project", "--about", "acme/parser.py:9-10", "--dry-run")
    assert "about: acme/parser.py#L9-L10 fp=" in text.stdout and "files: [" in text.stdout
    assert hash_tree(ce["vault"]) == before


def test_merge_with_about_adds_to_the_notes_files(ce):
    path = json.loads(remember(ce, "Merged into", "acme/parser.py:9-10").stdout)["path"]
    r = run(ce, "remember", "--type", "pitfall", "--title", "More on it", "--summary", "The helper too.",
            "--merge", path, "--about", "acme/parser.py:14-15", "--about", "acme/parser.py:9-10")
    assert r.returncode == 0, r.stderr
    files = props_of(ce["vault"] / path)["files"]
    assert [f.split(" fp=")[0] for f in files] == ["acme/parser.py#L14-L15", "acme/parser.py#L9-L10"]


# ---------------------------------------------------------------- validate

def test_validate_records_the_changed_fingerprint_and_changes_nothing_else(ce):
    today = dt.date.today().isoformat()
    stale = "0123456789abcdef"
    note = ce["vault"] / "Pitfalls" / "Hand written.md"
    note.parent.mkdir()
    kept = f"acme/old.py fp={fp_of((ce['repo'] / 'acme' / 'old.py').read_text())}"
    raw = (f"---\r\ntype: pitfall\r\nlast_validated: {today}\r\nfiles:\r\n  - acme/parser.py#L9-L10 fp={stale}  # the check\r\n"
           f"  - '{kept}'\r\n  - acme/parser.py\r\nstatus: open\r\n---\r\nBody `acme/parser.py:14-15`.\r\n")
    note.write_bytes(raw.encode())
    assert run(ce, "sync").returncode == 0
    assert json.loads(run(ce, "explain", "Hand written", "--json").stdout)["anchors"][0]["state"] == "changed"
    dry = run(ce, "validate", "Hand written", "--dry-run")
    assert dry.returncode == 0 and "fingerprint would be recorded again" in dry.stdout, dry.stdout
    assert note.read_bytes() == raw.encode()
    r = run(ce, "validate", "Hand written", "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)[0]
    assert [(a["cite"], a["state"], a["recorded"]) for a in res["code"]["anchors"]] == [
        ("acme/parser.py:9-10", "changed", True), ("acme/old.py", "current", False)]
    assert note.read_bytes() == raw.replace(stale, fp_of(SRC, 9, 10)).encode()  # one token, nothing else
    got = json.loads(run(ce, "explain", "Hand written", "--json").stdout)
    assert {a["cite"]: a["state"] for a in got["anchors"]}["acme/parser.py:9-10"] == "current"


def test_validate_keeps_the_fingerprint_of_moved_lines_and_of_code_that_is_gone(ce):
    path = json.loads(remember(ce, "Moves and goes", "acme/parser.py:9-10", "acme/old.py").stdout)["path"]
    before = (ce["vault"] / path).read_text()
    (ce["repo"] / "acme" / "parser.py").write_text("# header\n" + SRC, encoding="utf-8")
    git(ce["repo"], "rm", "-q", "acme/old.py")
    r = run(ce, "validate", path, "--json")
    assert r.returncode == 0, r.stderr
    states = {a["cite"]: (a["state"], a["recorded"]) for a in json.loads(r.stdout)[0]["code"]["anchors"]}
    assert states == {"acme/parser.py:9-10": ("moved", False), "acme/old.py": ("missing", False)}
    assert props_of(ce["vault"] / path)["files"] == props_of_text(before)["files"]
    text = run(ce, "validate", path)
    assert "moved, followed" in text.stdout and "fix the citation" in text.stdout


def props_of_text(text: str) -> dict:
    return yaml.safe_load(text.split("---")[1])


def test_validate_outside_a_repository_leaves_the_fingerprints(ce):
    path = json.loads(remember(ce, "Far away", "acme/parser.py:9-10").stdout)["path"]
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    before = props_of(ce["vault"] / path)["files"]
    r = run(ce, "validate", path, cwd=ce["outside"])
    assert r.returncode == 0 and "not in a git repository" in r.stdout, r.stdout
    assert props_of(ce["vault"] / path)["files"] == before


def test_validate_takes_the_code_as_it_is_now_for_citations_in_the_text(ce):
    note = ce["vault"] / "Learnings" / "In the text.md"
    note.parent.mkdir()
    note.write_text("---\ntype: learning\n---\nThe check is `acme/parser.py:9-10`.\n", encoding="utf-8")
    assert run(ce, "sync").returncode == 0
    assert json.loads(run(ce, "explain", "In the text", "--json").stdout)["code_state"] == "current"  # baseline
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    assert json.loads(run(ce, "explain", "In the text", "--json").stdout)["code_state"] == "changed"
    assert run(ce, "validate", "In the text").returncode == 0
    assert json.loads(run(ce, "explain", "In the text", "--json").stdout)["code_state"] == "current"


# ---------------------------------------------------------------- explain and backlinks

def test_explain_lists_the_anchors_with_their_state(ce):
    path = json.loads(remember(ce, "States", "acme/parser.py:9-10", "acme/parser.py:14-15", "acme/old.py").stdout)["path"]
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    edit_src(ce, "def helper_function(x):", "# moved down\n\ndef helper_function(x):")
    git(ce["repo"], "rm", "-q", "acme/old.py")
    got = json.loads(run(ce, "explain", path, "--json").stdout)
    assert {a["cite"]: a["state"] for a in got["anchors"]} == {
        "acme/parser.py:9-10": "changed", "acme/parser.py:14-15": "moved", "acme/old.py": "missing"}
    assert next(a for a in got["anchors"] if a["state"] == "moved")["where"] == "acme/parser.py:16"
    assert got["code_state"] == "changed"
    text = run(ce, "explain", path).stdout
    assert "the code it cites changed since it was written" in text and "acme/parser.py:9-10  changed" in text
    outside = json.loads(run(ce, "explain", path, "--json", cwd=ce["outside"]).stdout)
    assert {a["state"] for a in outside["anchors"]} == {"unknown"} and len(outside["anchors"]) == 3


def test_explain_of_an_unchanged_note_says_nothing_changed(ce):
    path = json.loads(remember(ce, "Steady", "acme/parser.py:9-10").stdout)["path"]
    text = run(ce, "explain", path).stdout
    assert "acme/parser.py:9-10  current" in text and "changed since" not in text


def test_backlinks_and_explain_of_a_repository_file_list_the_notes_citing_it(ce):
    lines = json.loads(remember(ce, "Cites lines", "acme/parser.py:9-10").stdout)["path"]
    whole = json.loads(remember(ce, "Cites the file", "acme/parser.py").stdout)["path"]
    json.loads(remember(ce, "Cites another", "acme/old.py").stdout)
    r = run(ce, "backlinks", "acme/parser.py", "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["file"] == "acme/parser.py"
    assert [(n["path"], n["cites"], n["state"]) for n in got["backlinks"]] == [
        (lines, "lines", "current"), (whole, "file", "current")]
    assert run(ce, "backlinks", "parser.py", cwd=ce["repo"] / "acme").stdout.startswith("2 notes cite acme/parser.py")
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    text = run(ce, "explain", "acme/parser.py").stdout
    assert "notes citing it (2)" in text
    assert [l for l in text.splitlines() if "Cites lines" in l and "changed since it was written" in l]
    assert json.loads(run(ce, "explain", "acme/parser.py", "--json").stdout)["notes"][0]["state"] == "changed"


def test_a_name_that_is_neither_a_note_nor_a_file_is_still_an_error(ce):
    r = run(ce, "explain", "acme/nothing.py")
    assert r.returncode == 2 and "no note called" in r.stderr


# ---------------------------------------------------------------- reorganize and query

def test_reorganize_proposes_revalidating_notes_whose_code_changed_or_vanished(ce):
    changed = json.loads(remember(ce, "Will change", "acme/parser.py:9-10").stdout)["path"]
    gone = json.loads(remember(ce, "Will vanish", "acme/old.py").stdout)["path"]
    json.loads(remember(ce, "Stays", "acme/parser.py:14-15").stdout)
    props = json.loads(run(ce, "reorganize", "--json").stdout)["proposals"]
    assert not [p for p in props if p["kind"] == "code-changed"]
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    git(ce["repo"], "rm", "-q", "acme/old.py")
    props = [p for p in json.loads(run(ce, "reorganize", "--json").stdout)["proposals"] if p["kind"] == "code-changed"]
    assert [p["notes"] for p in props] == [[changed], [gone]]
    assert props[0]["title"] == f"{changed} cites acme/parser.py:9-10, which changed since the note was written"
    assert f"memory-plugin validate '{changed}'" in props[0]["suggestion"]
    assert "no longer in the repository" in props[1]["title"]
    assert "Notes whose code changed or vanished" in run(ce, "reorganize").stdout
    assert not [p for p in json.loads(run(ce, "reorganize", "--json", cwd=ce["outside"]).stdout)["proposals"]
                if p["kind"] == "code-changed"]
    assert run(ce, "validate", changed).returncode == 0
    props = [p for p in json.loads(run(ce, "reorganize", "--json").stdout)["proposals"] if p["kind"] == "code-changed"]
    assert [p["notes"] for p in props] == [[gone]]


def test_query_says_changed_since_for_a_note_whose_code_changed(ce):
    path = json.loads(remember(ce, "Part limit raises ValueError", "acme/parser.py:9-10").stdout)["path"]
    other = json.loads(remember(ce, "Part helper doubles", "acme/parser.py:14-15").stdout)["path"]
    q = json.loads(run(ce, "query", "part limit", "--json").stdout)
    assert path in [it["path"] for it in q["items"]] and not [it for it in q["items"] if "changed_since" in it]
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    q = json.loads(run(ce, "query", "part limit", "--json").stdout)
    items = {it["path"]: it for it in q["items"]}
    assert items[path]["changed_since"] == ["acme/parser.py:9-10"]
    assert other not in items or "changed_since" not in items[other]
    text = run(ce, "query", "part limit").stdout
    line = next(l for l in text.splitlines() if path in l)
    assert "changed since it was written" in line
    click_path = run(ce, "query", "part limit", "--budget=1500").stdout  # the click command, not the lean one
    assert next(l for l in click_path.splitlines() if path in l) == line
    outside = json.loads(run(ce, "query", "part limit", "--json", cwd=ce["outside"]).stdout)
    assert not [it for it in outside["items"] if "changed_since" in it]


def test_a_whole_file_fingerprint_flags_any_change_of_the_file():
    row = {"kind": "file", "file": "a.py", "line1": None, "line2": None, "fp": fp_of(SRC)}
    assert code.state_of(row, "a.py", SRC, None)[0] == "current"
    assert code.state_of(row, "a.py", SRC.replace("x * 2", "x * 3"), None)[0] == "changed"


def test_explain_keeps_the_notes_changed_state_for_the_brief(ce):
    """A note citing two places of one file, one of them changed: after explain (which judges each
    place on its own too), the state the brief reads is still the note's, changed."""
    path = json.loads(remember(ce, "Two places", "acme/parser.py:9-10", "acme/parser.py:14-15").stdout)["path"]
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    got = json.loads(run(ce, "explain", path, "--json").stdout)
    assert [a["state"] for a in got["anchors"]] == ["changed", "current"]
    assert code.last_states(str(ce["cache"]), str(ce["repo"])) == {path: "changed"}


def test_query_judges_again_a_note_whose_cited_file_was_modified_since(ce):
    """A note citing code in its text: its state is kept from its last judgment only while the cited
    file is older than that judgment."""
    note = ce["vault"] / "Learnings" / "Limit check in the text.md"
    note.parent.mkdir()
    note.write_text("---\ntype: learning\n---\nThe part limit check is `acme/parser.py:9-10`.\n", encoding="utf-8")
    assert run(ce, "sync").returncode == 0
    q = json.loads(run(ce, "query", "part limit check", "--json").stdout)
    assert q["items"][0]["path"] == "Learnings/Limit check in the text.md" and "changed_since" not in q["items"][0]
    edit_src(ce, 'raise ValueError("Part exceeded maximum size")', "return data[: self.limit]")
    for _ in range(2):  # judged on the modified file, then kept from that judgment
        q = json.loads(run(ce, "query", "part limit check", "--json").stdout)
        assert q["items"][0]["changed_since"] == ["acme/parser.py:9-10"], q


def test_validate_of_a_private_note_shows_and_rerecords_none_of_its_code(ce):
    note = ce["vault"] / "Private" / "Mine.md"
    note.parent.mkdir()
    raw = "---\nprivate: true\nfiles: [\"acme/parser.py#L9-L10 fp=0123456789abcdef\"]\n---\nsecret\n"
    note.write_text(raw, encoding="utf-8")
    assert run(ce, "sync").returncode == 0
    r = run(ce, "validate", "Private/Mine.md", "--json")
    assert r.returncode == 0, r.stderr
    assert "acme/parser.py" not in r.stdout and "0123456789abcdef" in note.read_text()
