"""memory-plugin in the real Claude Code client, both install routes, offline, each starting from a
vault that was never built (no `rebuild` by hand).

The client talks to a fake Messages API on 127.0.0.1 that logs what the model received and answers
with scripted tool calls (Write, and Bash running the skills' commands), so the hooks and the
permission rules work exactly as they do for a user.
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
    from memory_plugin.vault.scan import walk_vault

    snapshot_before = len(walk_vault(vault, [".trash", "Templates"])[0])  # what the index will hold
    with ProbingAPI(script, probe=lambda: _indexed(cache, rel)) as api:
        r = run_claude_p("please record what we learned about retries", home=home, base_url=api.base_url,
                         cwd=workdir, env=env, binary=claude, timeout=180, extra_args=["--add-dir", str(vault)],
                         debug_file=workdir.parent / "claude-debug.log")
        assert r.returncode == 0, r.stdout + r.stderr
        assert api.script_remaining == 0
        first = api.main_requests[0]["raw"]
        assert "SessionStart hook additional context" in first and "memory-plugin-reference" in first
        assert CONVENTION_SUMMARY in first  # the very first session's brief: conventions,
        assert "## Hub notes" in first and "## Project Atlas (the current project" in first  # hubs, project
        assert "still being built" not in first
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


SKILL_CALLS = [  # (the command a skill tells Claude to run, what its output must show)
    ('memory-plugin query "webhook retries"', "pitfalls/webhook-retry-storm.md"),
    ('memory-plugin search "CROSSSLOT"', "pitfalls/redis-cluster-multikey-lua.md"),
    ("memory-plugin explain tollgate-api", "type: hub · project: tollgate (project Tollgate, the current project)"),
    ('memory-plugin remember --type decision --title "Services check partner tokens themselves" --summary "Each '
     'service verifies the signature of every partner token; the gateway only forwards them." --project tollgate-api',
     "decisions/services-check-partner-tokens-themselves.md"),  # the vault names its files as slugs
    ('memory-plugin supersede "jwt-validation-at-edge" "Services check partner tokens themselves"',
     "changed decisions/jwt-validation-at-edge.md"),
    # the decision just superseded is still linked from notes that treat it as current
    ("memory-plugin reorganize", "decisions/jwt-validation-at-edge.md is superseded but linked"),
]


def _skills_session(claude, home, devvault, cache, workdir, env):
    """The fake model runs each skill's commands through the Bash tool; the tool results it gets back
    are the commands' real output (not "This command requires approval")."""
    script = [tool_use("Bash", {"command": cmd, "description": "memory-plugin skill command"})
              for cmd, _ in SKILL_CALLS] + [text("Done.")]
    with FakeAnthropicAPI(script) as api:
        r = run_claude_p("what do we know about webhook retries? then record the JWT decision", home=home,
                         base_url=api.base_url, cwd=workdir, env=env, binary=claude, timeout=240,
                         debug_file=workdir.parent / "claude-skills-debug.log")
        assert r.returncode == 0, r.stdout + r.stderr
        assert api.script_remaining == 0
        first = api.main_requests[0]["raw"]
        assert "## Project Tollgate (the current project: `tollgate-api`" in first  # repo-named folder
        # every tool result the model was sent, in order (the last request holds the whole conversation)
        msgs = api.main_requests[-1]["body"].get("messages") or []
        results = [json.dumps(b.get("content"), ensure_ascii=False) for m in msgs
                   if isinstance(m.get("content"), list) for b in m["content"]
                   if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert len(results) == len(SKILL_CALLS), [x[:150] for x in results]
    for (cmd, expect), got in zip(SKILL_CALLS, results):
        assert "requires approval" not in got, (cmd, got)
        assert expect in got, (cmd, got)
    note = devvault / "decisions" / "services-check-partner-tokens-themselves.md"
    assert "project:" in note.read_text() and "tollgate" in note.read_text()
    assert "superseded" in (devvault / "decisions" / "jwt-validation-at-edge.md").read_text()


def _devvault(tmp_path):
    import shutil

    dev = tmp_path / "devvault"
    shutil.copytree(ROOT / "fixtures" / "devvault", dev)
    work = tmp_path / "src" / "tollgate-api"
    work.mkdir(parents=True)
    return dev, work


def _path_env() -> str:
    return f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"


def test_settings_route(claude, isolated_home, cache_dir, tmp_path):
    vault, work = _vault_and_workdir(tmp_path)
    r = run_cli("install", "--vault", str(vault))  # builds the index: no `rebuild` by hand
    assert r.returncode == 0, r.stderr
    assert "index built" in r.stdout
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(cache_dir), "PATH": _path_env()}
    _session(claude, isolated_home, vault, cache_dir, work, env)
    r = run_claude_init_only(home=isolated_home, cwd=work, env=env, binary=claude,
                             debug_file=tmp_path / "debug.log")
    assert r.returncode == 0, r.stdout + r.stderr
    debug = (tmp_path / "debug.log").read_text(errors="replace")
    assert "memory-plugin" in debug
    assert not (cache_dir / "hooks.log").exists() or "ERROR" not in (cache_dir / "hooks.log").read_text()


def test_settings_route_skills_run_their_commands(claude, isolated_home, tmp_path):
    dev, work = _devvault(tmp_path)
    cache = tmp_path / "dev-cache"
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(cache), "PATH": _path_env()}
    r = run_cli("install", "--vault", str(dev), env=env)
    assert r.returncode == 0, r.stderr
    assert run_cli("doctor", env=env).returncode == 0
    _skills_session(claude, isolated_home, dev, cache, work, env)


def test_plugin_route(claude, isolated_home, cache_dir, tmp_path):
    vault, work = _vault_and_workdir(tmp_path)
    assert validate_plugin(ROOT, home=isolated_home, binary=claude).returncode == 0
    install_plugin(ROOT, "memory-plugin", home=isolated_home, binary=claude)
    settings = json.loads((isolated_home / ".claude" / "settings.json").read_text())
    assert any(k.startswith("memory-plugin@") for k in settings.get("enabledPlugins", {}))
    # The plugin's hooks find the installed command on PATH; the vault comes from the environment,
    # and it was never built: the first SessionStart builds it inline.
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(cache_dir), "MEMORY_PLUGIN_VAULT": str(vault), "PATH": _path_env()}
    assert not (cache_dir / "index.sqlite").exists()
    _session(claude, isolated_home, vault, cache_dir, work, env)
    r = run_claude_init_only(home=isolated_home, cwd=work, env=env, binary=claude)
    assert r.returncode == 0, r.stdout + r.stderr


def test_plugin_route_skills_run_their_commands(claude, isolated_home, tmp_path):
    dev, work = _devvault(tmp_path)
    cache = tmp_path / "dev-cache"
    install_plugin(ROOT, "memory-plugin", home=isolated_home, binary=claude)
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(cache), "MEMORY_PLUGIN_VAULT": str(dev), "PATH": _path_env()}
    r = run_cli("install", "--permissions-only", env=env)  # the plugin route's one documented command
    assert r.returncode == 0, r.stderr
    assert not (isolated_home / ".claude" / "skills" / "memory-query").exists()  # the plugin brings the skills
    _skills_session(claude, isolated_home, dev, cache, work, env)


def test_validate_strict_passes(claude, isolated_home):
    r = validate_plugin(ROOT, home=isolated_home, binary=claude)
    assert r.returncode == 0, r.stdout + r.stderr


def test_without_the_rule_the_skills_commands_need_approval(claude, isolated_home, tmp_path):
    """What the permission rule is for: installed with --no-permissions, the same Bash call is refused."""
    dev, work = _devvault(tmp_path)
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(tmp_path / "dev-cache"), "PATH": _path_env()}
    assert run_cli("install", "--vault", str(dev), "--no-permissions", env=env).returncode == 0
    with FakeAnthropicAPI([tool_use("Bash", {"command": SKILL_CALLS[0][0]}), text("Done.")]) as api:
        r = run_claude_p("what do we know about webhook retries?", home=isolated_home, base_url=api.base_url,
                         cwd=work, env=env, binary=claude, timeout=240)
        assert r.returncode == 0, r.stdout + r.stderr
        got = json.dumps([t.get("content") for t in api.tool_results])
    assert "requires approval" in got and SKILL_CALLS[0][1] not in got, got
