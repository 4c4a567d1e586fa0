"""install's permission rule for the skills' commands, its build of the index for the first
session, and doctor right after install."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli
from memory_plugin.claude import install as I

OTHER = {"model": "opus", "permissions": {"allow": ["Bash(ls:*)"], "deny": []}, "env": {"FOO": "bar"}}


@pytest.fixture
def settings(isolated_home):
    p = isolated_home / ".claude" / "settings.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(OTHER, indent=4))
    return p


def allow(p) -> list:
    return json.loads(p.read_text()).get("permissions", {}).get("allow", [])


def test_install_allows_the_skills_commands_and_uninstall_takes_it_back(settings, vault):
    r = run_cli("install", "--vault", str(vault))
    assert r.returncode == 0, r.stderr
    assert allow(settings) == ["Bash(ls:*)", "Bash(memory-plugin:*)"]
    assert run_cli("install", "--vault", str(vault)).returncode == 0
    assert allow(settings) == ["Bash(ls:*)", "Bash(memory-plugin:*)"]  # once
    assert run_cli("uninstall").returncode == 0
    assert json.loads(settings.read_text()) == OTHER


def test_uninstall_removes_the_permission_keys_install_created(isolated_home, vault):
    p = isolated_home / ".claude" / "settings.json"
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps({"model": "opus"}))
    run_cli("install", "--vault", str(vault))
    assert allow(p) == ["Bash(memory-plugin:*)"]
    run_cli("uninstall")
    assert json.loads(p.read_text()) == {"model": "opus"}


def test_a_rule_the_user_had_stays_after_uninstall(settings, vault):
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(memory-plugin:*)"]}}))
    run_cli("install", "--vault", str(vault))
    run_cli("uninstall")
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(memory-plugin:*)"]}}


def test_dry_run_shows_the_permission(settings):
    r = run_cli("install", "--dry-run")
    # the file's 4-space indent is kept
    assert r.returncode == 0 and '+            "Bash(memory-plugin:*)"' in r.stdout and "--no-permissions" in r.stdout
    assert json.loads(settings.read_text()) == OTHER


def test_no_permissions_skips_it_and_doctor_says_so(settings, vault):
    r = run_cli("install", "--vault", str(vault), "--no-permissions")
    assert r.returncode == 0, r.stderr
    assert allow(settings) == ["Bash(ls:*)"]
    d = run_cli("doctor")
    assert "skills ask before each memory-plugin command" in d.stdout, d.stdout
    run_cli("install", "--vault", str(vault))  # changed their mind
    assert "Bash(memory-plugin:*)" in allow(settings)
    run_cli("install", "--vault", str(vault), "--no-permissions")  # and back
    assert allow(settings) == ["Bash(ls:*)"]


def test_doctor_says_when_skills_cannot_run(settings, vault):
    run_cli("install", "--vault", str(vault))
    data = json.loads(settings.read_text())
    data["permissions"]["allow"].remove("Bash(memory-plugin:*)")
    settings.write_text(json.dumps(data))
    d = run_cli("doctor")
    assert d.returncode == 1 and "BAD skills cannot run their commands without approval" in d.stdout
    data["permissions"]["deny"] = ["Bash(memory-plugin:*)"]
    data["permissions"]["allow"].append("Bash(memory-plugin:*)")
    settings.write_text(json.dumps(data))
    d = run_cli("doctor")
    assert d.returncode == 1 and "a deny or ask rule" in d.stdout


@pytest.mark.parametrize("rules,can", [(["Bash(memory-plugin:*)"], True), (["Bash(memory-plugin *)"], True),
                                       (["Bash"], True), (["Bash(ls:*)"], None), ([], None)])
def test_skills_can_run_reads_allow_rules(rules, can):
    assert I.skills_can_run({"permissions": {"allow": rules}}) is can


def test_permissions_only_for_the_plugin_route(settings, vault, isolated_home):
    r = run_cli("install", "--permissions-only", "--vault", str(vault))
    assert r.returncode == 0, r.stderr
    data = json.loads(settings.read_text())
    assert "hooks" not in data and allow(settings) == ["Bash(ls:*)", "Bash(memory-plugin:*)"]
    assert not (isolated_home / ".claude" / "skills" / "memory-query").exists()
    run_cli("uninstall")
    assert json.loads(settings.read_text()) == OTHER


def test_doctor_passes_right_after_install(settings, vault, cache_dir):
    r = run_cli("install", "--vault", str(vault))
    assert r.returncode == 0, r.stderr
    assert "index built (" in r.stdout and (cache_dir / "index.sqlite").exists() and (cache_dir / "brief.json").exists()
    d = run_cli("doctor")
    assert d.returncode == 0, d.stdout
    assert "skills can run their commands" in d.stdout


def test_install_detaches_the_build_of_a_large_vault(settings, vault, cache_dir, monkeypatch, tmp_path):
    from memory_plugin.core.config import load_config

    monkeypatch.setattr(I, "INSTALL_INLINE_MAX_NOTES", 5)
    cfg = load_config(vault=vault)
    msg = I.build(cfg)
    assert "being built in the background" in msg and "notes)" in msg
    import time

    end = time.time() + 60
    while time.time() < end and not (cache_dir / "rebuild.stamp").exists():
        time.sleep(0.1)
    assert (cache_dir / "index.sqlite").exists()
