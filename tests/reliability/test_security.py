"""Nothing outside the vault or the cache dir is read into the graph or written; private notes and
their secrets never leave the index."""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from conftest import hash_tree, run_cli
from rel_helpers import count, has_command, run_bytes, snap

CANARY = "CANARY-OUTSIDE-5521"
SECRET = "sk-live-PRIVATEzzzz0123456789abcdef"
PRIVATE_TITLE = "Nightingale acquisition plan"
PRIVATE_TAG = "xylosecret"
PRIVATE_DANGLING = "Quokka merger term sheet"


def _tree_listing(root: Path, skip: set[Path]) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        dirnames[:] = [n for n in dirnames if d / n not in skip]
        for n in filenames:
            p = d / n
            try:
                st = p.lstat()
                out[str(p)] = (st.st_size, st.st_mtime_ns)
            except FileNotFoundError:
                pass
    return out


@pytest.fixture
def world(tmp_path, vault, cache_dir):
    """The vault, an `outside` folder with a canary note, links to it from inside the vault."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Secret plans.md").write_text(f"# Outside\n{CANARY} [[Home]] #outsidetag\n")
    (outside / "sub").mkdir()
    (outside / "sub" / "Deep.md").write_text(f"{CANARY} deep\n")
    (vault / "Linked out.md").symlink_to(outside / "Secret plans.md")
    (vault / "Linked folder").symlink_to(outside / "sub", target_is_directory=True)
    (vault / "Inbox" / "Points out.md").write_text("[[../outside/Secret plans]] [x](../../outside/Secret%20plans.md)\n"
                                                     "![[/etc/passwd]] [[Linked out]]\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return vault, outside, env


def _cache_text(cache_dir: Path) -> str:
    parts = []
    for p in cache_dir.rglob("*"):
        if p.is_file() and not p.name.endswith((".lock",)):
            parts.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_nothing_outside_the_vault_is_read_into_the_graph(world, cache_dir):
    vault, outside, env = world
    s = json.dumps(snap(cache_dir))
    assert CANARY not in s and "outsidetag" not in s
    assert CANARY not in _cache_text(cache_dir)
    count("operations")
    count("leaks", int(CANARY in s))


def test_post_tool_use_paths_that_escape_are_ignored(world, cache_dir, tmp_path):
    vault, outside, env = world
    (tmp_path / "elsewhere.md").write_text(f"{CANARY} elsewhere\n")
    before_outside = hash_tree(outside)
    before_snap = snap(cache_dir)
    skip = {vault, cache_dir}
    before_tree = _tree_listing(tmp_path, skip)
    paths = [str(vault / ".." / "outside" / "Secret plans.md"), str(vault / "Inbox" / ".." / ".." / "elsewhere.md"),
             str(vault / "Linked out.md"), str(vault / "Linked folder" / "Deep.md"), str(outside / "Secret plans.md"),
             str(tmp_path / "elsewhere.md"), "/etc/hostname.md", "../outside/Secret plans.md",
             "../../elsewhere.md", str(vault) + "/../../" + tmp_path.name + "/elsewhere.md", "/proc/self/environ.md",
             str(vault / "Linked folder" / ".." / "Home.md")]
    for i, fp in enumerate(paths):
        for sid in (f"esc{i}", "../../../../" + str(tmp_path / f"evil{i}")):
            r = run_bytes("hook", "post-tool-use", data=json.dumps(
                {"session_id": sid, "tool_name": "Write", "tool_input": {"file_path": fp}}).encode(), env=env)
            assert r.returncode == 0 and r.stdout == ""
            count("bad_inputs")
    r = run_bytes("hook", "session-end", data=json.dumps({"session_id": "../../../../" + str(tmp_path / "evil0"),
                                                           "cwd": "/"}).encode(), env=env)
    assert r.returncode == 0
    after_snap = snap(cache_dir)
    assert CANARY not in json.dumps(after_snap)
    assert hash_tree(outside) == before_outside
    after_tree = _tree_listing(tmp_path, skip)
    written = sorted(set(after_tree) - set(before_tree))
    count("leaks", len(written) + int(CANARY in json.dumps(after_snap)))
    assert not written, f"files written outside the vault and cache: {written}"
    # the journal line for the last session lists no outside path
    day = vault / "journal" / time.strftime("%Y-%m-%d.md")
    assert "outside" not in day.read_text() and "elsewhere" not in day.read_text()


def test_journal_folder_that_escapes_the_vault_is_refused(vault, cache_dir, tmp_path):
    cfgf = tmp_path / "c.yaml"
    cfgf.write_text("journal_folder: ../escaped-journal\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CONFIG": str(cfgf)}
    r = run_bytes("hook", "session-end", data=b'{"session_id": "jf", "cwd": "/"}', env=env)
    assert r.returncode == 0
    count("bad_inputs")
    escaped = tmp_path / "escaped-journal"
    count("leaks", int(escaped.exists()))
    assert not escaped.exists(), f"SessionEnd wrote {list(escaped.iterdir())} outside the vault"


@pytest.mark.parametrize("title", ["../../escape", "/tmp/abs-escape", "..\\..\\win", "~/home-escape",
                                   "sub/dir/name", ".hidden", "..", "tab\tname", "con", "a" * 300, "C:\\x",
                                   "%2e%2e%2fenc", "ok title ..", "[[link]] title", "line\nbreak"])
def test_remember_titles_cannot_escape(title, vault, cache_dir, tmp_path):
    if not has_command("remember"):
        pytest.skip("`memory-plugin remember` does not exist yet (issue 4)")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    skip = {vault, cache_dir}
    before = _tree_listing(tmp_path.parent, skip)
    r = run_bytes("remember", "--type", "learning", "--title", title, "--summary", "escape attempt",
                  "--project", "../../../etc", "--force", env=env)
    count("bad_inputs")
    assert "Traceback" not in r.stderr
    assert r.returncode == 0 or (r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1), r.stderr
    written = sorted(set(_tree_listing(tmp_path.parent, skip)) - set(before))
    count("leaks", len(written))
    assert not written, f"remember wrote outside the vault: {written}"


def _private_vault(vault: Path) -> None:
    (vault / "Projects" / "atlas" / f"{PRIVATE_TITLE}.md").write_text(
        f"---\nprivate: true\ntype: convention\nproject: atlas\nsummary: Buy the rival for {SECRET}\n"
        f"tags: [{PRIVATE_TAG}, convention/secret]\naliases: [Codename Nightjar]\nrelated: \"[[{PRIVATE_DANGLING}]]\"\n---\n"
        f"# {PRIVATE_TITLE}\nThe token is {SECRET}. See [[Home]] and [[{PRIVATE_DANGLING}]]. #{PRIVATE_TAG}\n")
    (vault / "Personal" / "Private hub.md").write_text(
        f"---\nprivate: yes\ntype: hub\n---\n# Private hub\n[[{PRIVATE_TITLE}]] {SECRET}\n")


LEAK_MARKERS = (SECRET, PRIVATE_TITLE, PRIVATE_TAG, PRIVATE_DANGLING, "Nightjar", "Private hub", "sk-test-FAKE",
                "Salary negotiation")


def test_private_notes_never_leave_the_index(vault, cache_dir, tmp_path):
    _private_vault(vault)
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    proj = tmp_path / "atlas"
    (proj / ".git").mkdir(parents=True)
    outputs: dict[str, str] = {}
    r = run_bytes("hook", "session-start", data=json.dumps({"cwd": str(proj), "source": "startup"}).encode(), env=env)
    outputs["SessionStart brief"] = r.stdout
    for f in ("brief.json", "brief-start.jsonl", "brief.md", "GRAPH_REPORT.md", "graph.html"):
        if (cache_dir / f).exists():
            outputs[f] = (cache_dir / f).read_text(encoding="utf-8", errors="replace")
    outputs["graph.json (secret only)"] = (cache_dir / "graph.json").read_text(encoding="utf-8")
    # touched in a session, then the session ends: the journal must not name it
    for p in (vault / "Projects" / "atlas" / f"{PRIVATE_TITLE}.md", vault / "Personal" / "Salary negotiation.md",
              vault / "Personal" / "Private hub.md"):
        run_bytes("hook", "post-tool-use", data=json.dumps({"session_id": "priv", "tool_input": {"file_path": str(p)}}).encode(), env=env)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": f"use {SECRET} now"}}) + "\n")
    run_bytes("hook", "session-end", data=json.dumps({"session_id": "priv", "cwd": str(proj),
                                                      "transcript_path": str(transcript)}).encode(), env=env)
    outputs["journal"] = (vault / "journal" / time.strftime("%Y-%m-%d.md")).read_text()
    commands = [["hubs", "--json"], ["conventions", "--json"], ["orphans", "--json"], ["dangling", "--json"],
                ["backlinks", "Home", "--json"], ["explain", "Home", "--json"], ["status", "--json"]]
    for q in ("Nightingale", "acquisition", "rival", "Quokka", "xylosecret", "Nightjar", "sk-live", "token",
              "salary", "Private hub"):
        commands += [["query", q, "--json"], ["search", q, "--json"], ["query", q]]
    if has_command("reorganize"):
        commands.append(["reorganize", "--json"])
    if has_command("view"):
        commands.append(["view"])
    for args in commands:
        if not has_command(args[0]):
            continue
        r = run_cli(*args, env=env)
        assert "Traceback" not in r.stderr
        text = r.stdout + r.stderr
        if args[0] in ("query", "search"):  # the answer echoes the question: that is not a leak
            text = re.sub(re.escape(args[1]), "<q>", text, flags=re.I)
        outputs[" ".join(args)] = text
        count("operations")
    if (cache_dir / "graph.html").exists():
        outputs["graph.html (after view)"] = (cache_dir / "graph.html").read_text(encoding="utf-8", errors="replace")
    leaks = []
    for where, text in outputs.items():
        markers = (SECRET, "sk-test-FAKE") if where.startswith("graph.json") else LEAK_MARKERS
        for m in markers:
            if m.lower() in text.lower():
                leaks.append(f"{m!r} in {where}")
        count("detail:private_outputs_checked")
    count("leaks", len(leaks))
    assert not leaks, "private note content leaked:\n" + "\n".join(leaks)
