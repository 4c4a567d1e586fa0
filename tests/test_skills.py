"""The three SKILL.md files: frontmatter Claude Code accepts, and commands the CLI really has."""
import json
import re

import pytest
import yaml

from conftest import ROOT, run_cli

SKILLS = ["memory-query", "memory-write", "memory-reorganize"]


def frontmatter(name):
    text = (ROOT / "skills" / name / "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    fm, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(fm), body


@pytest.mark.parametrize("name", SKILLS)
def test_frontmatter(name):
    fm, body = frontmatter(name)
    assert fm["name"] == name
    assert isinstance(fm["description"], str) and 40 <= len(fm["description"]) <= 1024
    assert isinstance(fm["when_to_use"], str) and fm["when_to_use"].strip()
    assert "allowed-tools" not in fm and "allowed_tools" not in fm  # would block the skill under -p
    assert "${CLAUDE_PLUGIN_ROOT}" not in body  # must also work installed under ~/.claude/skills/
    assert "memory-plugin " in body


@pytest.mark.parametrize("name", SKILLS)
def test_every_command_in_a_skill_exists_with_its_options(name):
    _, body = frontmatter(name)
    cmds = re.findall(r"memory-plugin ([a-z]+)((?: [^\n`|]*)?)", body)
    assert cmds
    for cmd, rest in cmds:
        help_text = run_cli(cmd, "--help")
        assert help_text.returncode == 0, f"{name}: `memory-plugin {cmd}` is not a command"
        for opt in re.findall(r"(--[a-z][a-z-]+)", rest):
            assert opt in help_text.stdout, f"{name}: `memory-plugin {cmd}` has no {opt}"


def test_rules_are_stated():
    _, q = frontmatter("memory-query")
    assert "cite" in q.lower() and "never invent" in q.lower()
    _, w = frontmatter("memory-write")
    assert "supersede" in w and "never invent" in w.lower()
    _, r = frontmatter("memory-reorganize")
    assert "ask" in r.lower() and "--apply" in r and "--dry-run" in r


def test_query_skill_documents_what_query_prints(vault_env):
    """The JSON keys the skill names are exactly the keys printed, and the budget floor is stated."""
    from memory_plugin.query import MIN_BUDGET

    _, body = frontmatter("memory-query")
    line = next(x for x in body.splitlines() if "`--json` gives" in x)
    out = json.loads(run_cli("query", "job queue", "--json", env=vault_env).stdout)
    assert set(out) | set(out["items"][0]) == set(re.findall(r'"(\w+)"', line))
    assert f"at least {MIN_BUDGET}" in body
