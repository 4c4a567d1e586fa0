"""Installer, uninstaller, doctor and the shipped plugin artefacts."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

OTHER = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "env": {"FOO": "bar"},
    "hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi", "timeout": 3}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "statusLine": {"type": "command", "command": "~/bin/status"},
}


@pytest.fixture
def settings(isolated_home):
    p = isolated_home / ".claude" / "settings.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(OTHER, indent=4))
    return p


def ours(data):
    return [(ev, h) for ev, groups in data.get("hooks", {}).items() for g in groups for h in g["hooks"]
            if h.get("args", [""])[0] == "hook"]


def test_install_registers_three_hooks_and_keeps_everything_else(settings, vault):
    r = run_cli("install", "--vault", str(vault))
    assert r.returncode == 0, r.stderr
    data = json.loads(settings.read_text())
    for key in ("model", "env", "statusLine"):
        assert data[key] == OTHER[key]
    assert data["permissions"] == {"allow": ["Bash(ls:*)", "Bash(memory-plugin:*)"], "deny": []}
    assert data["hooks"]["Stop"] == OTHER["hooks"]["Stop"]
    assert data["hooks"]["PostToolUse"][0] == OTHER["hooks"]["PostToolUse"][0]
    found = {ev: h for ev, h in ours(data)}
    assert set(found) == {"SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"}
    for ev, h in found.items():
        assert os.path.isabs(h["command"]) and os.access(h["command"], os.X_OK)
    matchers = {ev: g.get("matcher") for ev, groups in data["hooks"].items() for g in groups
                if any(h.get("args", [""])[0] == "hook" for h in g["hooks"])}
    assert matchers["PostToolUse"] == "Read|Write|Edit|MultiEdit|NotebookEdit"
    backup = settings.with_name("settings.json.memory-plugin.bak")
    assert json.loads(backup.read_text()) == OTHER
    for skill in ("memory-query", "memory-write", "memory-reorganize"):
        assert (Path(os.environ["HOME"]) / ".claude" / "skills" / skill / "SKILL.md").exists()
    from memory_plugin.core.config import load_config
    assert load_config().vault == vault


def test_install_is_idempotent(settings, vault):
    run_cli("install", "--vault", str(vault))
    first = settings.read_bytes()
    r = run_cli("install", "--vault", str(vault))
    assert r.returncode == 0 and "nothing changed" in r.stdout
    assert settings.read_bytes() == first


def test_uninstall_removes_exactly_what_install_added(settings, vault):
    run_cli("install", "--vault", str(vault))
    r = run_cli("uninstall")
    assert r.returncode == 0, r.stderr
    assert json.loads(settings.read_text()) == OTHER
    assert not (Path(os.environ["HOME"]) / ".claude" / "skills" / "memory-query").exists()
    from memory_plugin.core.config import user_config_path
    assert not user_config_path().exists()


def test_install_creates_missing_settings(isolated_home, vault):
    p = isolated_home / ".claude" / "settings.json"
    r = run_cli("install")
    assert r.returncode == 0, r.stderr
    assert len(ours(json.loads(p.read_text()))) == 4  # SessionStart, UserPromptSubmit, PostToolUse, SessionEnd


def test_dry_run_prints_diff_and_changes_nothing(settings):
    before = settings.read_bytes()
    r = run_cli("install", "--dry-run")
    assert r.returncode == 0 and "+++" in r.stdout and '"session-start"' in r.stdout
    assert settings.read_bytes() == before


def test_invalid_settings_refused_untouched(settings):
    settings.write_text('{"model": "opus",, }')
    before = settings.read_bytes()
    r = run_cli("install")
    assert r.returncode == 2 and "not valid JSON (line 1)" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert settings.read_bytes() == before
    assert not settings.with_name("settings.json.memory-plugin.bak").exists()


def test_keeps_file_mode(settings):
    settings.chmod(0o600)
    run_cli("install")
    assert (settings.stat().st_mode & 0o777) == 0o600


def test_doctor_ok_after_install_and_rebuild(settings, vault):
    run_cli("install", "--vault", str(vault))
    run_cli("rebuild")
    r = run_cli("doctor")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SessionEnd hook took" in r.stdout


def test_doctor_explains_problems(isolated_home, tmp_path):
    r = run_cli("--vault", str(tmp_path / "missing"), "doctor")
    assert r.returncode == 1
    assert "not registered" in r.stdout and "fix:" in r.stdout


# ---------------------------------------------------------------- plugin artefacts

def test_plugin_manifests_say_what_the_code_does():
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert plugin["name"] == "memory-plugin" and plugin["version"] and plugin["description"]
    assert market["plugins"][0]["name"] == "memory-plugin" and market["plugins"][0]["source"] == "./"
    assert os.access(ROOT / "hooks" / "run", os.X_OK)


def test_hooks_json_is_the_table_of_hook_events():
    """hooks/hooks.json is hooks.HOOKS as the plugin route runs it: the same events, matchers,
    verbs and timeouts as install writes, and each verb dispatched by run_hook."""
    from memory_plugin.claude import hooks as H
    from memory_plugin.claude.install import plugin_hooks

    shipped = json.loads((ROOT / "hooks" / "hooks.json").read_text())["hooks"]
    assert shipped == plugin_hooks(), "hooks/hooks.json differs from hooks.HOOKS: " + json.dumps(plugin_hooks())
    assert list(H.HANDLERS) == [h.verb for h in H.HOOKS] and all(callable(h.handler) for h in H.HOOKS)


def test_install_writes_one_entry_per_hook_event():
    from memory_plugin.claude import hooks as H
    from memory_plugin.claude.install import with_ours

    out = with_ours({}, "/bin/memory-plugin")["hooks"]
    assert list(out) == [h.event for h in H.HOOKS]
    for h in H.HOOKS:
        [group] = out[h.event]
        assert group.get("matcher") == h.matcher
        assert group["hooks"] == [{"type": "command", "command": "/bin/memory-plugin", "args": ["hook", h.verb],
                                   "timeout": h.timeout}]


def test_plugin_hook_without_installed_command_says_how_to_install(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_PLUGIN_ROOT": str(tmp_path)}
    r = subprocess.run([str(ROOT / "hooks" / "run"), "session-start"], input="{}", capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0
    text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "pip install" in text
    r = subprocess.run([str(ROOT / "hooks" / "run"), "post-tool-use"], input="{}", capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0 and r.stdout == ""


def test_uninstall_keeps_keys_that_existed_before_even_empty(settings, vault):
    original = {**OTHER, "hooks": {**OTHER["hooks"], "SessionEnd": [], "Notification": []}}
    settings.write_text(json.dumps(original, indent=4))
    assert run_cli("install", "--vault", str(vault)).returncode == 0
    assert json.loads(settings.read_text())["hooks"]["Notification"] == []
    assert run_cli("uninstall").returncode == 0
    assert json.loads(settings.read_text()) == original


def test_uninstall_removes_the_settings_file_install_created(isolated_home):
    p = isolated_home / ".claude" / "settings.json"
    assert run_cli("install").returncode == 0 and p.exists()
    r = run_cli("uninstall")
    assert r.returncode == 0, r.stderr
    assert not p.exists() and not p.with_name("settings.json.memory-plugin.bak").exists()
    # once something else was added to it, it stays, without our hooks
    assert run_cli("install").returncode == 0
    p.write_text(json.dumps({**json.loads(p.read_text()), "model": "opus"}))
    assert run_cli("uninstall").returncode == 0
    assert json.loads(p.read_text()) == {"model": "opus"}


def test_doctor_timing_run_keeps_unresolved_errors(settings, vault_env, cache_dir):
    run_cli("install")
    run_cli("hook", "session-end", input="not json", env=vault_env)
    for _ in range(2):
        r = run_cli("doctor", env=vault_env)
        assert r.returncode == 1 and "unresolved session-end hook error" in r.stdout, r.stdout
    assert "not JSON" in json.loads((cache_dir / "errors.json").read_text())["session-end"]["message"]


def test_doctor_checks_that_the_plugin_hooks_find_the_command(isolated_home, vault_env, tmp_path):
    p = isolated_home / ".claude" / "settings.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps({"enabledPlugins": {"memory-plugin@memory-plugin": True},
                             "permissions": {"allow": ["Bash(memory-plugin:*)"]}}))  # install --permissions-only
    exe = Path(sys.executable).parent / "memory-plugin"
    bare = {**vault_env, "PATH": "/usr/bin:/bin"}
    r = run_cli("doctor", env=bare)
    assert r.returncode == 1, r.stdout
    assert "finds no `memory-plugin` executable" in r.stdout and "MEMORY_PLUGIN_BIN" in r.stdout
    r = run_cli("doctor", env={**bare, "MEMORY_PLUGIN_BIN": str(exe)})
    assert r.returncode == 0 and f"which runs {exe}" in r.stdout, r.stdout
    # a plugin installed from a checkout: hooks/run finds the checkout's .venv
    checkout = tmp_path / "checkout"
    (checkout / ".venv" / "bin").mkdir(parents=True)
    (checkout / ".venv" / "bin" / "memory-plugin").symlink_to(exe)
    (isolated_home / ".claude" / "plugins").mkdir(parents=True)
    (isolated_home / ".claude" / "plugins" / "known_marketplaces.json").write_text(json.dumps(
        {"memory-plugin": {"source": {"source": "directory", "path": str(checkout)}, "installLocation": str(checkout)}}))
    r = run_cli("doctor", env=bare)
    assert r.returncode == 0 and str(checkout / ".venv") in r.stdout, r.stdout


def test_plugin_hook_disabled_prints_nothing(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_PLUGIN_ROOT": str(tmp_path),
           "MEMORY_PLUGIN_DISABLE": "1"}
    for event in ("session-start", "user-prompt-submit", "post-tool-use", "session-end"):
        r = subprocess.run([str(ROOT / "hooks" / "run"), event], input="{}" * 100_000, capture_output=True,
                           text=True, env=env)
        assert r.returncode == 0 and r.stdout == "" and r.stderr == "", event
