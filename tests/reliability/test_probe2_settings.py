"""The user's settings file and config file (issue 26, points 7 and 8): a symlinked settings.json
is edited through the link, the backup keeps the text from before the first install for good, the
file's own indentation, key order and number spellings survive, a key written twice is refused
like invalid JSON, and a YAML alias bomb in the config file is an error, not a hang."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from rel_helpers import case

ORIGINAL = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "env": {"FOO": "bar"},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 3}]}]},
}


def _settings(home: Path) -> Path:
    p = home / ".claude" / "settings.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def _ok(*args: str) -> subprocess.CompletedProcess:
    r = run_cli(*args, timeout=120)
    assert r.returncode == 0, r.stderr
    return r


def _ours(text: str) -> int:
    data = json.loads(text)
    return sum(1 for groups in data.get("hooks", {}).values() for g in groups for h in g["hooks"]
               if h.get("args", [""])[0] == "hook")


def _dotfiles_target(home: Path, text: str) -> Path:
    target = home / "dotfiles" / "claude" / "settings.json"
    target.parent.mkdir(parents=True)
    target.write_text(text)
    target.chmod(0o600)  # a settings file often holds API keys in `env`
    return target


def _check_through_link(link: Path, target: Path, original: str) -> None:
    """install edits the file the link leads to and keeps the link; uninstall gives the text back."""
    pointed = os.readlink(link)
    _ok("install")
    assert link.is_symlink() and os.readlink(link) == pointed, "the link was replaced"
    assert _ours(target.read_text()) == 4
    assert (target.stat().st_mode & 0o777) == 0o600
    _ok("uninstall")
    assert link.is_symlink() and os.readlink(link) == pointed
    assert target.read_text() == original


def test_symlinked_settings_are_edited_through_the_link(isolated_home):
    original = json.dumps(ORIGINAL, indent=2) + "\n"
    link = _settings(isolated_home)
    with case(3):
        target = _dotfiles_target(isolated_home, original)
        link.symlink_to(target)  # absolute, into a dotfiles dir
        _check_through_link(link, target, original)
        link.unlink()
        link.symlink_to(os.path.relpath(target, link.parent))  # relative
        _check_through_link(link, target, original)
        link.unlink()
        hop = isolated_home / "dotfiles" / "current"  # a chain: link -> link -> file
        hop.symlink_to("claude/settings.json")
        link.symlink_to(hop)
        _check_through_link(link, target, original)
        assert hop.is_symlink() and os.readlink(hop) == "claude/settings.json"


def test_dangling_settings_link_creates_its_file_or_is_refused(isolated_home):
    link = _settings(isolated_home)
    with case(2):
        # the link's folder exists: the file is created there, as an editor writing through it would
        target = isolated_home / "dotfiles" / "settings.json"
        target.parent.mkdir()
        link.symlink_to(target)
        _ok("install")
        assert link.is_symlink() and _ours(target.read_text()) == 4
        _ok("uninstall")  # install created it: it goes, and the link is as it was
        assert link.is_symlink() and not target.exists()
        # its folder does not exist (an unmounted or not-yet-cloned dotfiles dir): refused, nothing made
        link.unlink()
        gone = isolated_home / "elsewhere" / "settings.json"
        link.symlink_to(gone)
        r = run_cli("install", timeout=120)
        assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stderr.startswith("Error: ") and str(link) in r.stderr and str(gone.parent) in r.stderr
        assert link.is_symlink() and os.readlink(link) == str(gone) and not gone.parent.exists()


def test_backup_keeps_the_text_from_before_the_first_install(isolated_home):
    p = _settings(isolated_home)
    first = json.dumps(ORIGINAL, indent=2) + "\n"
    p.write_text(first)
    bak = p.with_name("settings.json.memory-plugin.bak")
    with case():
        _ok("install")
        assert bak.read_text() == first
        _ok("uninstall")
        assert bak.read_text() == first, "uninstall overwrote the backup"
        p.write_text(p.read_text().replace('"opus"', '"sonnet"'))  # the user edits it later
        _ok("install")
        assert bak.read_text() == first, "a second install overwrote the backup"
        _ok("install")
        _ok("uninstall")
        assert bak.read_text() == first
        assert json.loads(p.read_text())["model"] == "sonnet"


NUMBERS = '"n": {"e": 1e2, "E": 1E+2, "frac": 1.50, "neg": -0, "small": 2.5e-07, "big": 12345678901234567890}'


@pytest.mark.parametrize("unit, nl", [("  ", "\n"), ("    ", "\n"), ("\t", "\n"), ("  ", "\r\n")],
                         ids=["2-spaces", "4-spaces", "tab", "crlf"])
def test_indentation_key_order_and_numbers_are_kept(isolated_home, unit, nl):
    p = _settings(isolated_home)
    data = {"zeta": 1, "permissions": {"allow": ["Bash(ls:*)"]}, "alpha": "\u00e9", "hooks": {"Stop": []},
            "mid": [1, 2]}
    original = json.dumps(data, indent=unit).replace('"zeta": 1', '"zeta": 1,\n' + unit + NUMBERS)
    original = original.replace(r'"\u00e9"', r'"\u00e9 \/"').replace("\n", nl)  # escapes as the user wrote them
    p.write_bytes(original.encode())
    with case():
        _ok("install")
        text = p.read_bytes().decode()
        assert text.count("\n") == text.count(nl)
        assert NUMBERS in text and r'"\u00e9 \/"' in text
        assert list(json.loads(text)) == ["zeta", "n", "permissions", "alpha", "hooks", "mid"]
        assert list(json.loads(text)["hooks"]) == ["Stop", "SessionStart", "UserPromptSubmit", "PostToolUse",
                                                   "SessionEnd"]
        for line in text.splitlines():
            lead = re.match(r"[ \t]*", line).group()
            assert lead == unit * (len(lead) // len(unit)), f"indent {lead!r} is not whole {unit!r}s"
        assert text.count(nl + unit * 7 + '"hook",') == 4  # our entries nested at the file's own unit
        _ok("uninstall")
        assert p.read_bytes() == original.encode()


@pytest.mark.parametrize("doc, key", [
    ('{\n  "model": "opus",\n  "model": "sonnet"\n}\n', "model"),
    ('{"permissions": {"allow": ["Bash(ls:*)"], "allow": ["Bash(rm:*)"]}}', "permissions.allow"),
    ('{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "type": "x"}]}]\n  }\n}\n', "hooks.Stop[0].hooks[0].type"),
], ids=["top", "nested", "in-a-list"])
def test_duplicate_keys_are_refused_and_the_file_untouched(isolated_home, doc, key):
    p = _settings(isolated_home)
    p.write_text(doc)
    with case():
        for args in (("install",), ("install", "--dry-run"), ("uninstall",)):
            r = run_cli(*args, timeout=120)
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and str(p) in lines[0] and f"`{key}`" in lines[0], lines
            assert p.read_text() == doc
            assert not p.with_name("settings.json.memory-plugin.bak").exists()


BOMB = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
BOMB = 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]\n' + BOMB  # 9^9 values once expanded


DEEP = "hub_folders: " + "[" * 3000 + "]" * 3000 + "\n"  # deeper than the YAML reader's recursion


@pytest.mark.parametrize("doc, says", [(BOMB, "aliases"), (DEEP, "nest")], ids=["alias-bomb", "deep"])
def test_config_beyond_the_yaml_limits_is_an_error_not_a_hang(isolated_home, vault, tmp_path, doc, says):
    cfg = isolated_home / ".config" / "memory-plugin" / "config.yaml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(doc)
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    log = Path(os.environ["MEMORY_PLUGIN_CACHE_DIR"]) / "hooks.log"
    with case():
        # a hang fails at the timeout (each takes well under a second once refused)
        for args in (("status",), ("query", "anything"), ("rebuild",), ("doctor",), ("search", "x")):
            r = run_cli(*args, env=env, timeout=30)
            assert r.returncode != 0, args
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("Error: ") and str(cfg) in lines[0] \
                and says in lines[0], (args, r.stderr)
        stdin = json.dumps({"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "x", "reason": "other",
                            "source": "startup", "prompt": "hi", "tool_name": "Write",
                            "tool_input": {"file_path": str(vault / "a.md")}})
        for hook in ("session-start", "user-prompt-submit", "post-tool-use", "session-end"):
            r = run_cli("hook", hook, input=stdin, env=env, timeout=30)
            assert r.returncode == 0, (hook, r.stderr)
        logged = log.read_text()
        assert logged.count(says) >= 4 and str(cfg) in logged
