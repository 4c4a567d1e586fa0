"""memory-plugin in the real Claude Code client, both install routes, offline.

The client talks to a fake Messages API on 127.0.0.1 that logs what the model received and answers
with scripted Write tool calls, so the hooks run exactly as they do for a user.
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from claude_cli import ensure_claude, install_plugin, run_claude_init_only, run_claude_p, validate_plugin  # noqa: E402
from fake_api import FakeAnthropicAPI, text, tool_use  # noqa: E402

from conftest import ROOT, run_cli  # noqa: E402

pytestmark = pytest.mark.e2e
CONVENTION_SUMMARY = "Every log line carries an ISO-8601 UTC timestamp"


class ProbingAPI(FakeAnthropicAPI):
    """Runs `probe` each time the model is asked for its next turn (hooks of the last turn are done)."""

    def __init__(self, *a, probe=None, **kw):
        super().__init__(*a, **kw)
        self.probe, self.probes = probe, []

    def _next_turn(self):
        if self.probe:
            self.probes.append(self.probe())
        return super()._next_turn()


@pytest.fixture(scope="module")
def claude():
    return ensure_claude()


def _indexed(cache: Path, rel: str) -> bool:
    try:
        conn = sqlite3.connect(cache / "index.sqlite")
        try:
            return conn.execute("SELECT 1 FROM notes WHERE path=?", (rel,)).fetchone() is not None
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False


def _session(claude, home, vault, cache, workdir, env):
    note = vault / "Learnings" / "E2E learning about retries.md"
    outside = workdir / "scratch.md"
    rel = "Learnings/E2E learning about retries.md"
    script = [
        tool_use("Write", {"file_path": str(note), "content": "---\ntype: learning\nsummary: Retries need jitter.\n"
                                                              "---\nSee [[Retry with exponential backoff]].\n"}),
        tool_use("Write", {"file_path": str(outside), "content": "# scratch outside the vault\n"}),
        text("Done."),
    ]
    snapshot_before = sqlite3.connect(cache / "index.sqlite").execute("SELECT count(*) FROM notes").fetchone()[0]
    with ProbingAPI(script, probe=lambda: _indexed(cache, rel)) as api:
        r = run_claude_p("please record what we learned about retries", home=home, base_url=api.base_url,
                         cwd=workdir, env=env, binary=claude, timeout=180, extra_args=["--add-dir", str(vault)],
                         debug_file=workdir.parent / "claude-debug.log")
        assert r.returncode == 0, r.stdout + r.stderr
        assert api.script_remaining == 0
        first = api.main_requests[0]["raw"]
        assert "SessionStart hook additional context" in first and "memory-plugin-reference" in first
        assert CONVENTION_SUMMARY in first
        # After the Write of the vault note (probe at turn 2), the note was already in the index.
        assert api.probes[:1] == [False] and api.probes[1] is True, (api.probes, sorted(os.listdir(cache)), (cache / "hooks.log").read_text() if (cache / "hooks.log").exists() else "", r.stdout)
    assert note.exists() and outside.exists()
    journal = vault / "journal" / time.strftime("%Y-%m-%d.md")
    jrel = f"journal/{journal.name}"
    deadline = time.time() + 15  # SessionEnd indexes the journal note in a detached worker
    while time.time() < deadline and not _indexed(cache, jrel):
        time.sleep(0.2)
    conn = sqlite3.connect(cache / "index.sqlite")
    paths = {p for (p,) in conn.execute("SELECT path FROM notes")}
    assert rel in paths and jrel in paths and not any("scratch" in p for p in paths)
    assert len(paths) == snapshot_before + 2  # the new note and today's journal
    deadline = time.time() + 10
    while time.time() < deadline and not (journal.exists() and "E2E learning" in journal.read_text()):
        time.sleep(0.2)
    entry = journal.read_text().strip().splitlines()[-1]
    assert "[[Learnings/E2E learning about retries]]" in entry and "scratch" not in entry
    assert "please record what we learned about retries" in entry
    assert not (cache / "hooks.log").exists() or "ERROR" not in (cache / "hooks.log").read_text()


def _vault_and_workdir(tmp_path):
    import shutil

    vault = tmp_path / "vault"
    shutil.copytree(ROOT / "fixtures" / "vault", vault)
    work = tmp_path / "atlas"
    work.mkdir()
    return vault, work


def test_settings_route(claude, isolated_home, cache_dir, tmp_path):
    vault, work = _vault_and_workdir(tmp_path)
    r = run_cli("install", "--vault", str(vault))
    assert r.returncode == 0, r.stderr
    assert run_cli("rebuild").returncode == 0
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(cache_dir)}
    _session(claude, isolated_home, vault, cache_dir, work, env)
    r = run_claude_init_only(home=isolated_home, cwd=work, env=env, binary=claude,
                             debug_file=tmp_path / "debug.log")
    assert r.returncode == 0, r.stdout + r.stderr
    debug = (tmp_path / "debug.log").read_text(errors="replace")
    assert "memory-plugin" in debug
    assert not (cache_dir / "hooks.log").exists() or "ERROR" not in (cache_dir / "hooks.log").read_text()


def test_plugin_route(claude, isolated_home, cache_dir, tmp_path):
    vault, work = _vault_and_workdir(tmp_path)
    assert validate_plugin(ROOT, home=isolated_home, binary=claude).returncode == 0
    install_plugin(ROOT, "memory-plugin", home=isolated_home, binary=claude)
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert any(k.startswith("memory-plugin@") for k in settings.get("enabledPlugins", {}))
    # The plugin's hooks find the installed command on PATH; the vault comes from the environment.
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(cache_dir), "MEMORY_PLUGIN_VAULT": str(vault),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    assert run_cli("rebuild", env={"MEMORY_PLUGIN_VAULT": str(vault)}).returncode == 0
    _session(claude, isolated_home, vault, cache_dir, work, env)
    r = run_claude_init_only(home=isolated_home, cwd=work, env=env, binary=claude)
    assert r.returncode == 0, r.stdout + r.stderr


def test_validate_strict_passes(claude, isolated_home):
    r = validate_plugin(ROOT, home=isolated_home, binary=claude)
    assert r.returncode == 0, r.stdout + r.stderr
