"""The journal never loses an entry and is always valid UTF-8 (issue 26): a lone surrogate in the
first request, the session id or the reason, and a working folder whose name is not UTF-8 (from
the process's own cwd or $CLAUDE_PROJECT_DIR, with no `cwd` on stdin) are replaced, never refused,
and the day's note is still indexed afterwards."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import run_cli
from rel_helpers import case, cli_cmd, count, wait_idle


@pytest.fixture
def env(vault, cache_dir) -> dict:
    e = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=e).returncode == 0
    return e


def _day(vault: Path) -> Path:
    return vault / "journal" / time.strftime("%Y-%m-%d.md")


def _transcript(tmp_path: Path, sid: str, request: str) -> Path:
    t = tmp_path / f"{sid}.jsonl"
    # json.dumps escapes a lone surrogate as \udXXX (the file itself is ASCII), as a UTF-16 source cut
    # mid-pair would write it
    t.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": request}}) + "\n")
    return t


def _session_end(payload: dict, env: dict, cwd: bytes | str | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    full.update(env)
    r = subprocess.run(cli_cmd("hook", "session-end"), input=json.dumps(payload).encode(), capture_output=True,
                       env=full, cwd=cwd, timeout=60)
    assert r.returncode == 0 and r.stdout == b"", r.stderr
    return r


def _strict_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8")  # raises on any byte that is not UTF-8


def _indexed(cache_dir: Path, rel: str, env: dict) -> tuple[int, str]:
    """(skipped, indexed body) of the journal note after the detached reindex and a sync."""
    wait_idle(cache_dir)
    assert run_cli("sync", env=env).returncode == 0
    conn = sqlite3.connect(cache_dir / "index.sqlite")
    try:
        row = conn.execute("SELECT n.skipped, f.body FROM notes n JOIN fts f ON f.rowid=n.id WHERE n.path=?",
                           (rel,)).fetchone()
    finally:
        conn.close()
    assert row is not None, f"{rel} is not in the index"
    return row


def test_a_lone_surrogate_in_the_first_request_still_writes_the_entry(env, vault, tmp_path):
    with case():
        t = _transcript(tmp_path, "surr0001", "fix the parser \ud83d then the emoji test \udc00 too")
        _session_end({"session_id": "surr0001", "cwd": str(tmp_path), "reason": "other",
                      "transcript_path": str(t)}, env)
        text = _strict_text(_day(vault))
        line = [ln for ln in text.splitlines() if "session surr0001" in ln]
        assert len(line) == 1, text[-1000:]
        assert "fix the parser \ufffd then the emoji test \ufffd too" in line[0]
        count("operations")
        count("lost", int(not line))


def test_lone_surrogates_in_the_session_id_and_reason_are_replaced(env, vault, tmp_path):
    with case():
        t = _transcript(tmp_path, "surr0002", "hello")
        _session_end({"session_id": "s\udc80rr0002", "cwd": str(tmp_path), "reason": "clear\ud800",
                      "transcript_path": str(t)}, env)
        text = _strict_text(_day(vault))
        assert "session s\ufffdrr0002 · clear\ufffd" in text, text[-600:]
        count("operations")


def test_a_working_folder_that_is_not_utf8_keeps_the_day_valid_and_indexed(env, vault, cache_dir, tmp_path):
    """No `cwd` on stdin: the project name comes from the process's working folder, whose name holds
    byte 0xE9 (Latin-1 'é'). Before, that byte went into the journal and the whole day's note was
    skipped as "not UTF-8" by the index and the brief."""
    with case():
        folder = os.fsencode(tmp_path) + b"/caf\xe9-proj"
        os.mkdir(folder)
        t = _transcript(tmp_path, "latin001", "index this day")
        _session_end({"session_id": "latin001", "reason": "other", "transcript_path": str(t)}, env, cwd=folder)
        rel = f"journal/{_day(vault).name}"
        text = _strict_text(_day(vault))
        assert "project caf\ufffd-proj · session latin001" in text, text[-600:]
        skipped, body = _indexed(cache_dir, rel, env)
        assert skipped == 0 and "latin001" in body
        count("operations")


def test_a_claude_project_dir_that_is_not_utf8_keeps_the_day_valid(env, vault, cache_dir, tmp_path):
    with case():
        folder = os.fsencode(tmp_path) + b"/d\xe9p\xf4t"
        os.mkdir(folder)
        t = _transcript(tmp_path, "latin002", "and this one")
        _session_end({"session_id": "latin002", "reason": "other", "transcript_path": str(t)},
                     {**env, "CLAUDE_PROJECT_DIR": folder}, cwd=str(tmp_path))
        text = _strict_text(_day(vault))
        assert "project d\ufffdp\ufffdt · session latin002" in text, text[-600:]
        skipped, body = _indexed(cache_dir, f"journal/{_day(vault).name}", env)
        assert skipped == 0 and "latin002" in body
        count("operations")


def test_every_field_of_an_entry_encodes_as_utf8():
    from memory_plugin.memory.journal import entry_line

    with case():
        line = entry_line(when=0.0, project="caf\udce9", session_id="\ud800abc", reason="x\udfff",
                          touched=["Notes/\udce9t\u00e9.md"], request="a \ud83d b")
        line.encode("utf-8")
        assert line.count("\ufffd") == 5, line
        count("operations")
