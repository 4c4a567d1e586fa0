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
    from memory_plugin.search.query import MIN_BUDGET

    _, body = frontmatter("memory-query")
    line = next(x for x in body.splitlines() if "`--json` gives" in x)
    out = json.loads(run_cli("query", "job queue", "--json", env=vault_env).stdout)
    assert set(out) | set(out["items"][0]) == set(re.findall(r'"(\w+)"', line))
    assert f"at least {MIN_BUDGET}" in body


WHY_FORMS = {  # the phrase the skill documents -> the shape of the why it stands for
    "matched `": r"matched `[^`]+`( \(for \w+\))?(, `[^`]+`( \(for \w+\))?)*( in the property [^(]+ \(.+\)| in .+)?",
    "named in the question": r"(title|alias) `.+` named in the question",
    "tagged #t": r"tagged #\S+",
    "project P": r"project .+",
    "close in meaning": r"close in meaning(: §.+)?",
    "linked from [[Hub]]": r"linked from \[\[.+\]\]",
    "links to [[X]]": r"links to \[\[.+\]\]",
    "[[X]] depends on it": r"\[\[.+\]\] [a-z ]+ it",
    "supersedes [[X]]": r"[a-z ]+ \[\[.+\]\]",
    "shares #t with [[X]]": r"shares #\S+ with \[\[.+\]\]",
    "two links away (related)": r"two links away \(.+\)",
    "is a pitfall": r"is a \w+",
    "superseded by [[X]]": r"(superseded|retracted|stale|deprecated|obsolete|archived)( by \[\[.+\]\])?( \(history\))?",
}


def test_query_skill_explains_every_why_query_gives(vault_env):
    """Each `why` query prints on the fixture vault has a form the skill explains."""
    _, body = frontmatter("memory-query")
    for phrase in WHY_FORMS:
        assert phrase in body, phrase
    seen = set()
    for text in ("any pitfalls for testing?", "which concept does the SKIP LOCKED queue decision depend on?",
                 "WAL", "what did we decide before SKIP LOCKED for the atlas job queue?", "atlas testing",
                 "coffee rule", "how should I write timestamps in log lines?"):
        out = json.loads(run_cli("query", text, "--json", "--budget", "100000", env=vault_env).stdout)
        for it in out["items"]:
            for why in it["why"]:
                forms = [p for p, rx in WHY_FORMS.items() if re.fullmatch(rx, why)]
                assert forms, (text, it["path"], why)
                seen.update(forms)
    assert {"matched `", "named in the question", "linked from [[Hub]]", "is a pitfall"} <= seen
