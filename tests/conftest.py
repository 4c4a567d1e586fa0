"""Shared fixtures. Tests never touch the real home: HOME, XDG_* and the cache point at tmp."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_VAULT = ROOT / "fixtures" / "vault"
GEN_VAULT = ROOT.parent / "shared" / "bench" / "gen_vault.py"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """The reliability table (bench/reliability_summary.py) counts every test of tests/reliability as
    a case, tried and (when it passes) held, unless the test counted its own cases (rel_helpers.case)."""
    outcome = yield
    rep = outcome.get_result()
    counts = os.environ.get("MEMORY_PLUGIN_RELIABILITY_COUNTS")
    if rep.when != "call" or not counts or "reliability" not in item.path.parts:
        return
    if os.environ.pop("MP_RELIABILITY_CASES_COUNTED", None) or rep.skipped:
        return
    import json

    with open(counts, "a", encoding="utf-8") as f:
        for key in ("cases", "held") if rep.passed else ("cases",):
            f.write(json.dumps({"test": item.nodeid, "key": key, "n": 1}) + "\n")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("MEMORY_PLUGIN_CACHE_DIR", str(home / "mp-cache"))
    for var in ("MEMORY_PLUGIN_VAULT", "MEMORY_PLUGIN_CONFIG", "MEMORY_PLUGIN_DISABLE"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def cache_dir(isolated_home) -> Path:
    return Path(os.environ["MEMORY_PLUGIN_CACHE_DIR"])


@pytest.fixture
def vault(tmp_path) -> Path:
    """A copy of the fixture vault (never modified in place)."""
    dst = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, dst, symlinks=True)
    return dst


@pytest.fixture
def vault_env(vault, cache_dir) -> dict:
    """The environment for a copy of the fixture vault whose index is built."""
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return env


def hash_tree(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file() and not p.is_symlink():
            h.update(p.read_bytes())
    return h.hexdigest()


def gen_vault(out: Path, notes: int, seed: int = 1, *extra: str) -> Path:
    subprocess.run([sys.executable, str(GEN_VAULT), "--notes", str(notes), "--seed", str(seed),
                    "--out", str(out), "--force", *extra], check=True, capture_output=True)
    return out


def run_cli(*args: str, input: str | None = None, env: dict | None = None, timeout: float = 300):
    """The installed console script as a whole process."""
    exe = Path(sys.executable).parent / "memory-plugin"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memory_plugin"]
    return subprocess.run(cmd + list(args), input=input, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)
