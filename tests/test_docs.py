"""README.md and docs/ say what the project has: a README a user reads (short, two Quick start
commands that exist), links that lead somewhere, and the counts and names the code defines."""
from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, run_cli

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_MAX_BYTES = 8192
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, title: str) -> str:
    """The body of the `## title` section, up to the next heading of level 1 or 2."""
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^#{{1,2}} |\Z)", text, re.S | re.M)
    assert m, f"no `## {title}` section"
    return m.group(1)


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)


def _commands(block: str) -> list[str]:
    """The commands of a shell block: its lines without comments, blank lines left out."""
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]


def _prose(text: str) -> str:
    """The text with fenced blocks and inline code taken out: what a renderer turns into links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    h = re.sub(r"`", "", heading.strip().lower())
    h = "".join(ch for ch in h if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return h.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", _text(path), flags=re.S | re.M)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def _make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w.-]*):(?!=)", _text(ROOT / "Makefile"), re.M))


def _hook_events() -> list[str]:
    return list(json.loads(_text(ROOT / "hooks" / "hooks.json"))["hooks"])


def test_readme_is_at_most_8_kb():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes: move reference text into docs/"


def test_quick_start_is_exactly_two_make_targets_that_exist():
    # the shell block; the brief `make demo` prints is a text block (tests/test_first_minutes.py)
    blocks = re.findall(r"^```sh\n(.*?)^```", _section(_text(README), "Quick start"), re.S | re.M)
    commands = [c for block in blocks for c in _commands(block)]
    assert len(commands) == 2, commands
    targets = _make_targets()
    for command in commands:
        words = command.split()
        assert len(words) == 2 and words[0] == "make", f"`{command}` is not `make TARGET`"
        assert words[1] in targets, f"`{command}`: the Makefile has no target {words[1]}"


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(doc):
    links = re.findall(r"!?\[[^\]\n]*\]\(([^)\s]+)\)", _prose(_text(doc)))
    for link in links:
        if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        path = (doc.parent / target).resolve() if target else doc
        assert path.exists(), f"{doc.name}: link ({link}) leads to nothing"
        assert ROOT in path.parents or path == ROOT, f"{doc.name}: link ({link}) leaves the repository"
        if anchor and path.suffix == ".md":
            assert anchor in _anchors(path), f"{doc.name}: link ({link}) names no heading of {path.name}"


def test_every_doc_is_linked_from_the_readme():
    linked = set(re.findall(r"\]\(docs/([^)#]+)", _text(README)))
    assert {d.name for d in DOCS} <= linked, {d.name for d in DOCS} - linked


def test_readme_states_as_many_hooks_as_hooks_json_registers():
    events = _hook_events()
    readme = _text(README)
    stated = [NUMBERS[w.lower()] for w in re.findall(r"\b(" + "|".join(NUMBERS) + r") hooks\b", readme, re.I)]
    assert stated, "README.md does not say how many hooks there are"
    assert set(stated) == {len(events)}, f"README.md says {stated} hooks; hooks.json has {events}"
    for event in events:
        assert f"**{event}**" in readme, f"README.md does not name the {event} hook"
    hooks_doc = _text(ROOT / "docs" / "hooks.md")
    for event in events:
        assert f"## {event}" in hooks_doc, f"docs/hooks.md has no section on {event}"


def _cli_commands() -> set[str]:
    out = run_cli("--help").stdout
    block = out.split("Commands:", 1)[1]
    return set(re.findall(r"^  ([a-z][a-z-]*)\s", block, re.M))


def test_commands_in_readme_exist_and_docs_list_every_command():
    commands = _cli_commands()
    assert {"query", "remember", "install", "doctor"} <= commands
    readme = _text(README)
    typed = re.findall(r"^memory-plugin ([a-z][a-z-]*)", "\n".join(_code_blocks(readme)), re.M)
    assert typed
    for cmd in typed:
        assert cmd in commands, f"README.md shows `memory-plugin {cmd}`, which is no command"
    reference = _text(ROOT / "docs" / "commands.md")
    for cmd in commands:
        assert re.search(rf"\| `{cmd}\b", reference), f"docs/commands.md does not list `{cmd}`"


def test_config_keys_in_readme_exist_and_the_reference_lists_every_key():
    keys = set(yaml.safe_load(_text(ROOT / "config.yaml")))
    from memory_plugin.core.config import SCHEMA

    assert keys == set(SCHEMA)
    table = _section(_text(README), "What you configure")
    shown = re.findall(r"^\| `([a-z_]+)` \|", table, re.M)
    assert shown
    assert set(shown) <= keys, set(shown) - keys
    reference = _text(ROOT / "docs" / "configuration.md")
    for key in keys:
        assert f"| `{key}` |" in reference, f"docs/configuration.md does not describe `{key}`"


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_docs_name_no_team_machine_path_or_work_session(doc):
    text = _text(doc)
    assert not re.search(r"(?<![\w.])/(work|root)/", text), f"{doc.name} names a path of a team machine"
    assert not re.search(r"\bsession \d+\b|\bs\d+-[a-z]", text, re.I), f"{doc.name} speaks of a work session"


def test_module_paths_named_in_docs_exist():
    for doc in [README, *DOCS]:
        for path in re.findall(r"`(memory_plugin/[\w/]+\.(?:py|html))`", _text(doc)):
            assert (ROOT / path).exists(), f"{doc.name} names {path}, which does not exist"
