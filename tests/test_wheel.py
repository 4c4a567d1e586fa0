"""The built wheel, installed in a fresh venv outside the checkout, has everything its commands use:
install (skills, the permission rule), rebuild, query, view, eval (the default questions and their
vault), doctor, the hooks, and the plugin folder for the plugin route."""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

DEVVAULT = ROOT / "fixtures" / "devvault"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """`pip wheel --no-deps` of the checkout (build requirements from the registry, cached in .cache/pip)."""
    out = tmp_path_factory.mktemp("wheel")
    env = {**os.environ, "PIP_CACHE_DIR": str(ROOT / ".cache" / "pip"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                       capture_output=True, text=True, env=env, timeout=600, cwd=str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    (whl,) = out.glob("memory_plugin-*.whl")
    return whl


def _fresh_venv(wheel: Path, base: Path) -> tuple[Path, Path]:
    """A new venv under `base` with only the wheel installed (no dependencies) -> (venv, its site-packages)."""
    v = base / "venv"
    clean = {k: x for k, x in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(v)], check=True, timeout=120, env=clean)
    py = v / "bin" / "python"
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
                       capture_output=True, text=True, timeout=300,
                       env={**clean, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    fresh_site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                     capture_output=True, text=True, check=True, env=clean).stdout.strip())
    return v, fresh_site


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv with only the wheel installed. Its dependencies come from this venv's
    site-packages through a .pth path line (a path line does not run that folder's .pth files,
    so the checkout's editable install stays invisible)."""
    v, fresh_site = _fresh_venv(wheel, tmp_path_factory.mktemp("fresh"))
    assert (fresh_site / "memory_plugin" / "_data" / "skills").is_dir()
    (fresh_site / "_dev_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return v


def test_wheel_ships_plugin_files_skills_and_eval_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for rel in (".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks/hooks.json", "hooks/run",
                "skills/memory-query/SKILL.md", "skills/memory-write/SKILL.md", "skills/memory-reorganize/SKILL.md",
                "fixtures/eval/questions.yaml", "config.yaml"):
        assert f"memory_plugin/_data/{rel}" in names, rel
    assert any(n.startswith("memory_plugin/_data/fixtures/vault/") and n.endswith(".md") for n in names)
    assert "memory_plugin/outputs/view_template.html" in names
    assert "memory_plugin/claude/capture_weights.json" in names  # the prompt hook reads it at import
    assert "memory_plugin/memory/gitleaks_rules.toml" in names


def test_commands_run_from_the_installed_wheel(venv, tmp_path):
    home = tmp_path / "home"
    work = tmp_path / "work" / "tollgate-api"
    work.mkdir(parents=True)
    vault = tmp_path / "devvault"
    shutil.copytree(DEVVAULT, vault)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_PLUGIN_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin:/bin")
    exe = venv / "bin" / "memory-plugin"

    def run(*args, input=None, ok=True):
        r = subprocess.run([str(exe), *args], cwd=str(work), env=env, input=input, capture_output=True, text=True,
                           timeout=300)
        if ok:
            assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r

    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import memory_plugin; print(memory_plugin.__file__)"],
                           env=env, cwd=str(work), capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(venv)) and not where.startswith(str(ROOT))
    r = run("install", "--vault", str(vault))
    assert "skill installed" in r.stdout and "index built" in r.stdout
    assert (home / ".claude" / "skills" / "memory-query" / "SKILL.md").exists()
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert "Bash(memory-plugin:*)" in settings["permissions"]["allow"]
    assert all(h["command"] == str(exe) for g in settings["hooks"]["SessionStart"] for h in g["hooks"])
    brief = json.loads(run("hook", "session-start", input=json.dumps({"cwd": str(work)})).stdout)
    assert "## Project Tollgate" in brief["hookSpecificOutput"]["additionalContext"]
    run("doctor")  # right after install: passes
    assert "rebuilt" in run("rebuild").stdout
    assert "pitfalls/webhook-retry-storm.md" in run("query", "webhook retries").stdout
    out = tmp_path / "graph.html"
    run("view", "--out", str(out))
    assert out.exists() and out.stat().st_size > 1000
    ev = json.loads(run("eval", "--json").stdout)  # the default questions over the shipped fixture vault
    assert ev["summary"]["overall"]["n"] > 10
    plugin = Path(run("plugin-dir").stdout.strip())
    assert (plugin / ".claude-plugin" / "plugin.json").exists() and os.access(plugin / "hooks" / "run", os.X_OK)
    assert run("doctor").returncode == 0


# What `pip install memory-plugin` gives: the core dependencies and nothing else (no numpy, no
# tokenizers, no model package). Taken from this venv's site-packages by name, so no download.
CORE = ("click", "frontmatter", "networkx", "yaml", "_yaml", "filelock")
CORE_DIST = ("click-", "python_frontmatter-", "networkx-", "pyyaml-", "filelock-")


@pytest.fixture(scope="module")
def plain_venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the wheel and only its declared core dependencies on its path."""
    base = tmp_path_factory.mktemp("plain")
    v, fresh_site = _fresh_venv(wheel, base)
    core = base / "core"
    core.mkdir()
    for sp in map(Path, site.getsitepackages()):
        for p in sp.iterdir():
            if p.name.split(".")[0] in CORE or p.name.startswith(CORE_DIST):
                (core / p.name).symlink_to(p)
    (fresh_site / "_core_dependencies.pth").write_text(f"{core}\n")
    return v


def test_a_plain_install_without_the_semantic_extra_answers_lexically(plain_venv, tmp_path):
    """The semantic layer is optional: with only the core dependencies every command works, the
    question is answered lexically, and status / doctor / model status say which mode is on and how
    to get the other."""
    home = tmp_path / "home"
    vault = tmp_path / "devvault"
    shutil.copytree(DEVVAULT, vault)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_PLUGIN_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               PATH=f"{plain_venv / 'bin'}{os.pathsep}/usr/bin:/bin", MEMORY_PLUGIN_VAULT=str(vault))
    py = plain_venv / "bin" / "python"
    missing = subprocess.run([str(py), "-c", "import numpy"], env=env, capture_output=True, text=True)
    assert missing.returncode != 0 and "No module named 'numpy'" in missing.stderr
    exe = plain_venv / "bin" / "memory-plugin"

    def run(*args, input=None):
        r = subprocess.run([str(exe), *args], env=env, input=input, capture_output=True, text=True, timeout=300,
                           cwd=str(tmp_path))
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r

    assert "rebuilt" in run("rebuild").stdout
    assert "pitfalls/webhook-retry-storm.md" in run("query", "webhook retries").stdout
    assert "semantic extra is not installed" in run("status").stdout
    assert "memory-plugin[semantic]" in run("model", "status").stdout
    ev = json.loads(run("eval", "--json").stdout)
    assert ev["summary"]["overall"]["n"] > 10
    brief = json.loads(run("hook", "session-start", input=json.dumps({"cwd": str(tmp_path)})).stdout)
    assert "additionalContext" in brief["hookSpecificOutput"]
    prompt = run("hook", "user-prompt-submit", input=json.dumps({"prompt": "remember that we deploy on Fridays",
                                                                 "session_id": "p", "cwd": str(tmp_path)}))
    assert prompt.stdout == "" or "hookSpecificOutput" in json.loads(prompt.stdout)
