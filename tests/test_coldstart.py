"""The first SessionStart of a vault that has no index: built inline when small, else a brief read
directly from the vault's convention and hub notes while a detached rebuild runs."""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

DEVVAULT = ROOT / "fixtures" / "devvault"
DENDRON = ROOT.parent / "shared" / "eval" / "dendron" / "vault"


def brief_of(env, cwd) -> str:
    r = run_cli("hook", "session-start", input=json.dumps({"cwd": str(cwd), "source": "startup"}), env=env,
                timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


def wait_for(pred, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def dev(tmp_path):
    vault = tmp_path / "devvault"
    shutil.copytree(DEVVAULT, vault)
    return vault


def test_first_session_builds_inline_and_briefs_the_project(dev, tmp_path, cache_dir):
    work = tmp_path / "src" / "lighthouse-dashboard"
    work.mkdir(parents=True)
    assert not cache_dir.exists() or not any(cache_dir.iterdir())
    text = brief_of({"MEMORY_PLUGIN_VAULT": str(dev)}, work)
    assert "## Project Lighthouse (the current project: `lighthouse-dashboard`" in text
    assert "Time zones in chart axes [open pitfall]" in text
    assert "Commit messages (conventions/commit-messages.md)" in text
    assert "## Hub notes" in text and "Home (index.md)" in text
    assert "still being built" not in text
    assert wait_for(lambda: (cache_dir / "graph.json").exists() and (cache_dir / "GRAPH_REPORT.md").exists())


def test_large_vault_gets_a_bounded_brief_and_a_background_build(dev, tmp_path, cache_dir):
    cfgf = tmp_path / "c.yaml"
    cfgf.write_text("cold_start_max_notes: 10\n")  # the devvault's 42 notes count as a large vault here
    env = {"MEMORY_PLUGIN_VAULT": str(dev), "MEMORY_PLUGIN_CONFIG": str(cfgf)}
    text = brief_of(env, tmp_path)
    assert "still being built in the background" in text
    assert "Code review (conventions/code-review.md)" in text  # conventions, read from the files
    assert "Tollgate (projects/tollgate.md)" in text and "Home (index.md)" in text  # hubs
    assert "Dana" not in text  # never a private note
    assert len(text) <= 6000
    assert wait_for(lambda: (cache_dir / "brief.json").exists() and (cache_dir / "rebuild.stamp").exists())
    text = brief_of(env, tmp_path / "x" / "tollgate-api")
    assert "still being built" not in text and "## Conventions" in text


def test_a_build_under_way_gets_the_bounded_brief(dev, tmp_path, cache_dir):
    from filelock import FileLock

    cache_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(cache_dir / "index.lock"))
    lock.acquire()
    try:
        text = brief_of({"MEMORY_PLUGIN_VAULT": str(dev)}, tmp_path)
    finally:
        lock.release()
    assert "still being built" in text and "Commit messages" in text


@pytest.mark.skipif(not DENDRON.is_dir(), reason="../shared/eval/dendron is not here")
def test_first_session_on_the_dendron_vault_briefs_its_hubs(tmp_path, cache_dir):
    text = brief_of({"MEMORY_PLUGIN_VAULT": str(DENDRON)}, tmp_path)
    hubs = next(s for s in text.split("\n## ") if s.startswith("Hub notes"))
    assert len([l for l in hubs.splitlines() if l.startswith("- ")]) >= 5
    assert "still being built" not in text and "(1012 notes)" in text.replace(",", "")
