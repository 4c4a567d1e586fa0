"""The cited list (index/code.py): what a file event reads before any SQLite, to tell that no note cites
a file. It must never miss a note the index would find: checked against citing() itself, through
rebuild, sync, reindex, a write killed between its COMMIT and the list's rewrite, and a new generation."""
import json
import os
import sqlite3

import pytest

from codesample import SRC, lay_repo, write_note as _note
from conftest import run_cli
from memory_plugin.core.config import load_config
from memory_plugin.index import code
from memory_plugin.index import store

# files whose symbols notes cite or not: a plain word (`send`), a qualified method, an identifier-like name
OTHER = "def zero_value():\n    return 0\n"
SENDER = "def send(x):\n    return x\n\n\nclass Parser:\n    def __init__(self):\n        pass\n"
HELPER_ELSEWHERE = "def helper_function(x):\n    return x\n"
MENTION_ONLY = "# helper_function is defined in acme/parser.py\nvalue = 1\n"


@pytest.fixture
def cited_env(tmp_path, cache_dir):
    repo = lay_repo(tmp_path / "acme", {"acme/parser.py": SRC, "acme/other.py": OTHER, "acme/sender.py": SENDER,
                                        "lib/helpers.py": HELPER_ELSEWHERE, "lib/mention.py": MENTION_ONLY})
    vault = tmp_path / "vault"
    _note(vault, "Pitfalls/Part limit.md", "type: pitfall\ncreated: 2025-01-10",
          "The limit check is `acme/parser.py#L9-L10`: a part over the limit raises.")
    _note(vault, "Learnings/Helper doubles.md", "type: learning\ncreated: 2025-02-01",
          "`helper_function()` doubles its input.")
    _note(vault, "Decisions/Parser owns limits.md", "type: decision\ncreated: 2024-03-01",
          "Limits live on the parser: `Parser.__init__` takes them.")
    _note(vault, "Learnings/Send.md", "type: learning\ncreated: 2025-02-01",
          "`send()` in `acme/parser.py` flushes first.")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return {"env": env, "repo": repo, "vault": vault, "cache": str(cache_dir)}


def _files(repo):
    return sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.py"))


def _agree(ce) -> dict:
    """{file: could_cite} after checking, for every file of the repository, that the list says a note
    may cite it whenever citing() finds one (before privacy and project, which only remove notes)."""
    conn = sqlite3.connect(os.path.join(ce["cache"], "index.sqlite"))
    got = {}
    try:
        for rel in _files(ce["repo"]):
            text = (ce["repo"] / rel).read_text(encoding="utf-8")
            found = bool(code.citing(conn, str(ce["repo"]), rel, text))
            got[rel] = code.could_cite(ce["cache"], rel, text)
            assert got[rel] is not None, "no cited list beside the index"
            assert got[rel] or not found, f"the cited list hides a note citing {rel}"
    finally:
        conn.close()
    return got


def _event(ce, rel, session="s1"):
    payload = {"session_id": session, "cwd": str(ce["repo"]), "hook_event_name": "PostToolUse",
               "tool_name": "Read", "tool_input": {"file_path": str(ce["repo"] / rel)}, "tool_response": {}}
    r = run_cli("hook", "post-tool-use", input=json.dumps(payload), env=ce["env"], timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"] if r.stdout.strip() else ""


def test_the_list_says_which_files_no_note_can_cite(cited_env):
    got = _agree(cited_env)
    assert got["acme/parser.py"] and got["lib/helpers.py"] and got["acme/sender.py"]  # a path, symbols
    # nothing cites it; a plain `send()` counts only beside the file its note cites (acme/parser.py);
    # a name in a comment is not a definition
    assert got["acme/other.py"] is False and got["lib/mention.py"] is False
    data = json.loads(open(code.cited_path(cited_env["cache"]), encoding="utf-8").read())
    assert "send" not in data["symbols"] and {"helper_function", "__init__"} <= set(data["symbols"])
    assert _event(cited_env, "acme/other.py") == "" and "Helper doubles" in _event(cited_env, "lib/helpers.py")


def test_sync_and_a_note_edit_keep_the_list_true(cited_env):
    ce = cited_env
    assert _agree(ce)["acme/other.py"] is False
    _note(ce["vault"], "Pitfalls/Other returns zero.md", "type: pitfall\ncreated: 2025-03-01",
          "`acme/other.py` returns zero on purpose.")
    assert run_cli("sync", env=ce["env"]).returncode == 0
    assert _agree(ce)["acme/other.py"] is True
    assert "Other returns zero" in _event(ce, "acme/other.py")
    # the hook path that reindexes one edited note
    note = ce["vault"] / "Pitfalls" / "Other returns zero.md"
    note.write_text("---\ntype: pitfall\n---\nNothing cited any more.\n", encoding="utf-8")
    payload = {"session_id": "s2", "cwd": str(ce["repo"]), "hook_event_name": "PostToolUse", "tool_name": "Write",
               "tool_input": {"file_path": str(note)}, "tool_response": {}}
    assert run_cli("hook", "post-tool-use", input=json.dumps(payload), env=ce["env"], timeout=60).returncode == 0
    assert _agree(ce)["acme/other.py"] is False  # written exactly after the COMMIT: no longer cited
    _note(ce["vault"], "Learnings/Zero value.md", "type: learning\ncreated: 2025-03-01", "`zero_value()` is a stub.")
    payload["tool_input"]["file_path"] = str(ce["vault"] / "Learnings" / "Zero value.md")
    assert run_cli("hook", "post-tool-use", input=json.dumps(payload), env=ce["env"], timeout=60).returncode == 0
    assert _agree(ce)["acme/other.py"] is True and "Zero value" in _event(ce, "acme/other.py", "s3")


def test_a_write_stopped_after_its_commit_leaves_no_list_that_hides_a_note(cited_env):
    """What a writer killed between COMMIT and the list's rewrite leaves: the list was removed before
    the COMMIT, so file events ask SQLite, and find the new note."""
    ce = cited_env
    cfg = load_config()
    conn = store.open_index(cfg)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO anchors(path, kind, file) VALUES ('Pitfalls/Part limit.md', 'file', 'acme/other.py')")
        code.keep_cited(conn, ce["cache"], before_commit=True)
        conn.execute("COMMIT")  # ... and the process ends here
    finally:
        conn.close()
    assert code.could_cite(ce["cache"], "acme/other.py", OTHER) is None
    assert "Part limit" in _event(ce, "acme/other.py")
    # a transaction that adds nothing new keeps the list (no SQLite for uncited files meanwhile)
    assert run_cli("sync", env=ce["env"]).returncode == 0
    before = open(code.cited_path(ce["cache"]), encoding="utf-8").read()
    conn = store.open_index(cfg)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM anchors WHERE file = 'acme/other.py'")
        code.keep_cited(conn, ce["cache"], before_commit=True)
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    assert open(code.cited_path(ce["cache"]), encoding="utf-8").read() == before
    assert code.could_cite(ce["cache"], "acme/other.py", OTHER) is True


def test_each_generation_has_its_own_list_and_a_damaged_one_is_not_trusted(cited_env):
    ce = cited_env
    first = code.cited_path(ce["cache"])
    assert os.path.exists(first)
    assert run_cli("rebuild", env=ce["env"]).returncode == 0
    second = code.cited_path(ce["cache"])
    assert second != first and os.path.exists(second) and not os.path.exists(first)  # removed with its index
    with open(second, "w", encoding="utf-8") as f:
        f.write('{"files": ["acme/parser.py"]')
    assert code.could_cite(ce["cache"], "acme/other.py", OTHER) is None
    os.unlink(second)
    assert code.could_cite(ce["cache"], "acme/other.py", OTHER) is None
    assert "Helper doubles" in _event(ce, "lib/helpers.py")  # SQLite decides
    assert run_cli("sync", env=ce["env"]).returncode == 0  # the next writer puts it back
    assert _agree(ce)["acme/other.py"] is False


def test_config_paths_are_the_paths_pathlib_made(tmp_path, monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MEMORY_PLUGIN_CACHE_DIR", raising=False)
    cfg = load_config(vault="notes/./v/")
    assert cfg.vault == Path("notes/./v/").expanduser().absolute() and isinstance(cfg.vault, Path)
    assert os.path.realpath(cfg.vault_str) == os.path.realpath(cfg.vault)
    assert cfg.cache_dir == Path(cfg.cache_str) and cfg.path("x") == cfg.cache_dir / "x"
