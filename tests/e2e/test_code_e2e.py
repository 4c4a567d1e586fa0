"""The PostToolUse hook on a repository file in the real Claude Code client, both install routes,
offline: when the model reads a file a vault note cites, the next request carries that note; a file
no note cites carries nothing."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from claude_cli import ensure_claude, install_plugin, run_claude_p, validate_plugin  # noqa: E402
from fake_api import FakeAnthropicAPI, text, tool_use  # noqa: E402

from conftest import ROOT, run_cli  # noqa: E402

pytestmark = pytest.mark.e2e
FENCE = "<memory-plugin-code>"
NOTE_TITLE = "Pool size is per worker"
SRC = "import os\n\n\ndef pool_size():\n    return int(os.environ.get('POOL', '20'))\n"


@pytest.fixture(scope="module")
def claude():
    return ensure_claude()


def _setup(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(ROOT / "fixtures" / "vault", vault)
    (vault / "Pitfalls" / f"{NOTE_TITLE}.md").write_text(
        "---\ntype: pitfall\ncreated: 2026-01-05\n---\n"
        "`pool_size()` in `svc/pool.py#L4-L5` is read by every worker: 8 workers hold 160 connections.\n",
        encoding="utf-8")
    work = tmp_path / "svc-repo"
    (work / "svc").mkdir(parents=True)
    (work / "svc" / "pool.py").write_text(SRC, encoding="utf-8")
    (work / "svc" / "other.py").write_text("X = 1\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return vault, work


def _read(claude, home, work, env, rel) -> list[dict]:
    with FakeAnthropicAPI([tool_use("Read", {"file_path": str(work / rel)}), text("Read it.")]) as api:
        # the prompt names no file: prompt recall (on by default) would give the note before the Read
        r = run_claude_p("look at the module", home=home, base_url=api.base_url, cwd=work, env=env, binary=claude,
                         timeout=180)
        assert r.returncode == 0, r.stdout + r.stderr
        return [q["raw"] for q in api.main_requests]


def _check(claude, home, work, env, cache):
    reqs = _read(claude, home, work, env, "svc/pool.py")
    assert len(reqs) >= 2
    after = reqs[-1]  # the request that follows the Read's result
    assert FENCE in after and NOTE_TITLE in after
    reqs = _read(claude, home, work, env, "svc/other.py")
    assert FENCE not in reqs[-1]
    log = cache / "hooks.log"
    assert not log.exists() or "ERROR" not in log.read_text()


def test_settings_route_code_hook(claude, isolated_home, cache_dir, tmp_path):
    vault, work = _setup(tmp_path)
    assert run_cli("install", "--vault", str(vault)).returncode == 0
    _check(claude, isolated_home, work, {"MEMORY_PLUGIN_CACHE_DIR": str(cache_dir)}, cache_dir)


def test_plugin_route_code_hook(claude, isolated_home, cache_dir, tmp_path):
    vault, work = _setup(tmp_path)
    assert validate_plugin(ROOT, home=isolated_home, binary=claude).returncode == 0
    install_plugin(ROOT, "memory-plugin", home=isolated_home, binary=claude)
    env = {"MEMORY_PLUGIN_CACHE_DIR": str(cache_dir), "MEMORY_PLUGIN_VAULT": str(vault),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    assert run_cli("rebuild", env={"MEMORY_PLUGIN_VAULT": str(vault)}).returncode == 0
    _check(claude, isolated_home, work, env, cache_dir)
