"""The package is laid out as its pipeline: each subpackage imports only itself and those below it,
and no module imports itself back through others (function-local imports included)."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "memory_plugin"
# From the bottom up: a subpackage may import those before it, never one after it.
LAYERS = ["core", "vault", "index", "semantic", "outputs", "memory", "search", "claude", "cli"]


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every memory_plugin module `path` imports, at any depth of the code."""
    me = _module(path)
    pkg = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("memory_plugin"):
                continue
            for a in node.names:  # `from .x import y`: y may be a module
                out.add(f"{mod}.{a.name}" if _exists(f"{mod}.{a.name}") else mod)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("memory_plugin"))
    return {m for m in out if _exists(m) and m != me}


def _exists(mod: str) -> bool:
    p = PKG.parent.joinpath(*mod.split("."))
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def _graph() -> dict[str, set[str]]:
    return {_module(p): _imports(p) for p in PKG.rglob("*.py")}


def _layer(mod: str) -> int | None:
    parts = mod.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 2 and parts[1] in LAYERS else None


def test_every_module_lives_in_a_stage():
    loose = sorted(p.name for p in PKG.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == [], loose


def test_each_subpackage_imports_only_those_below_it():
    bad = []
    for mod, deps in _graph().items():
        me = _layer(mod)
        if me is None:
            continue
        bad += [f"{mod} -> {d}" for d in sorted(deps) if (_layer(d) or 0) > me]
    assert bad == [], "\n".join(bad)


def test_no_import_circles():
    g = _graph()
    seen: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(m: str) -> None:
        seen[m] = 1
        stack.append(m)
        for d in sorted(g.get(m, ())):
            if seen.get(d) == 1:
                circles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in seen:
                visit(d)
        stack.pop()
        seen[m] = 2

    for m in sorted(g):
        if m not in seen:
            visit(m)
    assert circles == [], "\n".join(circles)


def test_subpackage_init_files_are_empty():
    assert [p for p in PKG.rglob("__init__.py") if p.parent != PKG and p.read_text().strip()] == []


HEAVY = {"yaml", "networkx", "click", "numpy", "tokenizers"}


def _imported(args: list[str], payload: dict, env: dict) -> set[str]:
    import json
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "memory_plugin", *args], input=json.dumps(payload),
                       capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}


def test_the_hooks_import_nothing_heavy(vault_env, vault, tmp_path):
    """The subpackages' __init__ files are empty and the stages import lazily, so a hook with nothing
    to do heavy loads neither PyYAML, networkx, click nor the semantic extra."""
    payload = {"session_id": "s", "prompt": "how do we deploy?", "cwd": str(tmp_path), "source": "startup",
               "tool_name": "Read", "tool_input": {"file_path": str(vault / "Home.md")}}
    for event in ("session-start", "user-prompt-submit", "post-tool-use", "session-end"):
        got = _imported(["hook", event], payload, vault_env)
        assert "memory_plugin.claude.hooks" in got  # the check sees the hook's own imports
        assert not HEAVY & got, (event, HEAVY & got)
    assert "click" in _imported(["status"], {}, vault_env)  # and would see a heavy one


def test_the_lexical_prompt_hook_does_without_pathlib(vault_env, vault, tmp_path):
    """A prompt that runs the whole retrieval (lexical) imports no pathlib (~5 ms with urllib and
    ipaddress): the hooks use the config's folders as strings."""
    env = {**vault_env, "MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}
    payload = {"session_id": "p", "cwd": str(tmp_path),
               "prompt": "tests fail at random under pytest-xdist because they share a fixed /tmp path; how do we avoid that?"}
    got = _imported(["hook", "user-prompt-submit"], payload, env)
    assert "memory_plugin.index.lifecycle" in got  # the retrieval ran (it ranks by confidence)
    assert "pathlib" not in got
