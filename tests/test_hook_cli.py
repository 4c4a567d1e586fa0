"""`memory-plugin hook` as a normal CLI command: help, usage errors (exit 2, nothing recorded),
global options honoured, and a recorded error that clears when the same hook next succeeds."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli


def errors(cache_dir: Path) -> dict:
    p = cache_dir / "errors.json"
    return json.loads(p.read_text()) if p.exists() else {}


def test_hook_help_prints_help(cache_dir):
    r = run_cli("hook", "--help")
    assert r.returncode == 0 and r.stdout.startswith("Usage: memory-plugin hook") and "stdin" in r.stdout
    assert errors(cache_dir) == {} and not (cache_dir / "hooks.log").exists()


@pytest.mark.parametrize("args", [["hook"], ["hook", "bogus"], ["hook", "session-start", "extra"], ["hook", ""]])
def test_hook_usage_errors_exit_2_and_record_nothing(env_vault, cache_dir, args):
    r = run_cli(*args, input="{}", env=env_vault)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == "" and r.stderr.startswith("Error: ") and len(r.stderr.strip().splitlines()) == 1
    assert errors(cache_dir) == {} and not (cache_dir / "hooks.log").exists()
    text = _brief(env_vault)
    assert "hook error" not in text


def test_hook_typed_at_a_terminal_is_a_usage_error(env_vault, cache_dir):
    import pty

    master, slave = pty.openpty()
    exe = Path(sys.executable).parent / "memory-plugin"
    try:
        r = subprocess.run([str(exe), "hook", "session-start"], stdin=slave, capture_output=True, text=True,
                           env={**os.environ, **env_vault}, timeout=60)
    finally:
        os.close(slave)
        os.close(master)
    assert r.returncode == 2 and "reads the hook's JSON input on stdin" in r.stderr
    assert r.stdout == "" and errors(cache_dir) == {}


def test_global_options_before_hook_are_honoured(vault, tmp_path):
    cache = tmp_path / "elsewhere"
    r = run_cli("--vault", str(vault), "--cache-dir", str(cache), "hook", "session-start",
                input=json.dumps({"cwd": str(tmp_path)}))
    assert r.returncode == 0, r.stderr
    text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"Vault: {vault} (" in text and "## Conventions" in text
    assert (cache / "index.sqlite").exists()


def test_a_recorded_error_clears_when_the_same_hook_succeeds(env_vault, cache_dir):
    r = run_cli("hook", "session-start", input="{not json", env=env_vault)
    assert r.returncode == 0
    assert "session-start" in errors(cache_dir)
    d = run_cli("doctor", env=env_vault)
    line = next(l for l in d.stdout.splitlines() if "unresolved session-start hook error" in l)
    assert re.search(r"at \d{4}-\d{2}-\d{2} \d{2}:\d{2}: ", line) and "not JSON" in line
    assert "Last memory-plugin hook error: session-start hook at" in _brief(env_vault)  # this run succeeds
    assert "session-start" not in errors(cache_dir)
    assert "hook error" not in _brief(env_vault)


def test_errors_an_older_version_left_for_unknown_events_go_away(env_vault, cache_dir):
    cache_dir.mkdir(parents=True, exist_ok=True)
    (cache_dir / "errors.json").write_text(json.dumps({"--help": {"time": 1, "message": "unknown hook event"}}))
    _brief(env_vault)
    assert errors(cache_dir) == {}


def _brief(env) -> str:
    r = run_cli("hook", "session-start", input=json.dumps({"cwd": "/"}), env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.fixture
def env_vault(vault_env):
    return vault_env
