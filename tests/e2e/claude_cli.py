"""Locate/install the pinned Claude Code CLI and run it offline against a fake Messages API.

The CLI is installed from npm into a cache dir (default ``<repo>/.cache/claude-code``,
override with ``MEMORY_PLUGIN_CLAUDE_PREFIX``); an existing ``claude`` on the env var
``MEMORY_PLUGIN_CLAUDE_BIN`` is used as-is. Every run gets an isolated ``HOME`` and
an environment with telemetry, auto-updates and non-essential traffic switched off,
so the only network traffic is to ``ANTHROPIC_BASE_URL`` (the fake API).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

__all__ = [
    "CLAUDE_CODE_VERSION",
    "default_prefix",
    "claude_bin",
    "ensure_claude",
    "claude_env",
    "run_claude",
    "run_claude_p",
    "run_claude_init_only",
    "write_settings",
    "validate_plugin",
    "install_plugin",
]

CLAUDE_CODE_VERSION = "2.1.332"
PACKAGE = "@anthropic-ai/claude-code"
REPO_ROOT = Path(__file__).resolve().parents[2]

# Env vars that keep the CLI quiet and offline (checked against 2.1.332: with these set,
# a `claude -p` run makes no request other than POST /v1/messages to ANTHROPIC_BASE_URL).
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # umbrella: no telemetry/bootstrap/MCP registry/HEAD /api/hello
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "DISABLE_COST_WARNINGS": "1",
    "DISABLE_INSTALLATION_CHECKS": "1",
    "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
}

UNUSED_BASE_URL = "http://127.0.0.1:9"

# Variables from the calling environment that must not leak into the child
# (a real key, a real endpoint, or the session of a Claude Code we run inside).
_DROP_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "CLAUDECODE", "OTEL_", "AWS_", "GOOGLE_", "VERTEX_")


def default_prefix() -> Path:
    env = os.environ.get("MEMORY_PLUGIN_CLAUDE_PREFIX")
    return Path(env) if env else REPO_ROOT / ".cache" / "claude-code"


def claude_bin(prefix: str | Path | None = None) -> Path:
    """Where ``claude`` lives (or would live) under ``prefix``."""
    return Path(prefix or default_prefix()) / "node_modules" / ".bin" / "claude"


def _installed_version(prefix: Path) -> str | None:
    pkg = prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "package.json"
    try:
        return json.loads(pkg.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def ensure_claude(prefix: str | Path | None = None, *, version: str = CLAUDE_CODE_VERSION, timeout: float = 600) -> Path:
    """Return the path of the pinned ``claude`` binary, installing it with npm if missing.

    ``MEMORY_PLUGIN_CLAUDE_BIN`` (an existing executable) short-circuits everything.
    Raises ``RuntimeError`` if npm is missing or the install fails.
    """
    override = os.environ.get("MEMORY_PLUGIN_CLAUDE_BIN")
    if override:
        return Path(override)
    prefix = Path(prefix or default_prefix())
    binary = claude_bin(prefix)
    if binary.exists() and _installed_version(prefix) == version:
        return binary
    npm = shutil.which("npm")
    if not npm:
        raise RuntimeError("npm not found: cannot install the Claude Code CLI")
    prefix.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", f"{PACKAGE}@{version}"],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0 or not binary.exists():
        raise RuntimeError(f"npm install {PACKAGE}@{version} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return binary


def claude_env(
    home: str | Path,
    base_url: str | None = None,
    *,
    extra: Mapping[str, str] | None = None,
    api_key: str = "dummy",
) -> dict[str, str]:
    """A clean environment for the CLI: isolated HOME, fake endpoint, quiet switches."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROP_PREFIXES) and not k.startswith("XDG_")}
    env["HOME"] = str(home)
    env.update(QUIET_ENV)
    # Always point the CLI at loopback. With a key but no ANTHROPIC_BASE_URL, 2.1.332 spends
    # ~18 s at exit on something bound for the real API host (even `--init-only`,
    # `plugin install`); with any base URL set it exits in ~0.3 s. Port 9 (discard) just refuses.
    env["ANTHROPIC_BASE_URL"] = base_url or UNUSED_BASE_URL
    env["ANTHROPIC_API_KEY"] = api_key
    if extra:
        env.update(extra)
    return env


def write_settings(home: str | Path, settings: Mapping[str, Any]) -> Path:
    """Write ``$HOME/.claude/settings.json``."""
    path = Path(home) / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2))
    return path


def run_claude(
    args: Sequence[str],
    *,
    home: str | Path,
    cwd: str | Path | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    binary: str | Path | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess:
    """Run ``claude *args`` with the isolated environment; returns the CompletedProcess (text mode)."""
    binary = binary or ensure_claude()
    return subprocess.run(
        [str(binary), *args],
        cwd=str(cwd or home),
        env=claude_env(home, base_url, extra=env),
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_claude_p(
    prompt: str,
    *,
    home: str | Path,
    base_url: str,
    cwd: str | Path | None = None,
    extra_args: Iterable[str] = (),
    permission_mode: str = "acceptEdits",
    debug_file: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    binary: str | Path | None = None,
) -> subprocess.CompletedProcess:
    """``claude -p PROMPT --permission-mode acceptEdits`` against the fake API at ``base_url``."""
    args = ["-p", prompt, "--permission-mode", permission_mode]
    if debug_file:
        args += ["--debug-file", str(debug_file)]
    args += list(extra_args)
    return run_claude(args, home=home, cwd=cwd, base_url=base_url, env=env, timeout=timeout, binary=binary)


def run_claude_init_only(
    *,
    home: str | Path,
    cwd: str | Path | None = None,
    extra_args: Iterable[str] = (),
    debug_file: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    binary: str | Path | None = None,
) -> subprocess.CompletedProcess:
    """``claude --init-only``: runs SessionStart(startup) + SessionEnd hooks and exits; no API call."""
    args = ["--init-only"]
    if debug_file:
        args += ["--debug-file", str(debug_file)]
    args += list(extra_args)
    return run_claude(args, home=home, cwd=cwd, env=env, timeout=timeout, binary=binary)


def validate_plugin(plugin_dir: str | Path, *, home: str | Path, strict: bool = True, timeout: float = 60,
                    binary: str | Path | None = None) -> subprocess.CompletedProcess:
    """``claude plugin validate [--strict] DIR`` (exit 1 on failure).

    ``--strict`` turns warnings into errors: plugin.json needs ``author`` and a
    marketplace.json needs a top-level ``description``. The "plugin directory"
    checks it also prints (README.md, LICENSE, icon) do not affect the exit code
    unless ``--profile directory`` is given.
    """
    args = ["plugin", "validate"] + (["--strict"] if strict else []) + [str(plugin_dir)]
    return run_claude(args, home=home, timeout=timeout, binary=binary)


def install_plugin(plugin_dir: str | Path, plugin: str, *, home: str | Path, marketplace: str | None = None,
                   timeout: float = 60, binary: str | Path | None = None) -> subprocess.CompletedProcess:
    """Install a plugin from a local directory marketplace into ``home`` (user scope), offline.

    Without ``marketplace``: ``claude plugin install PLUGIN --marketplace DIR`` (adds the
    marketplace and installs in one go). With ``marketplace`` (the ``name`` in
    marketplace.json): ``claude plugin marketplace add DIR`` then
    ``claude plugin install PLUGIN@MARKETPLACE``. Either way ``~/.claude/settings.json``
    gets ``extraKnownMarketplaces`` + ``enabledPlugins`` merged in, so write your own
    settings *before* installing (or merge). Raises ``RuntimeError`` on failure.
    """
    if marketplace is None:
        steps = [["plugin", "install", plugin, "--marketplace", str(plugin_dir)]]
    else:
        steps = [["plugin", "marketplace", "add", str(plugin_dir)], ["plugin", "install", f"{plugin}@{marketplace}"]]
    proc = None
    for args in steps:
        proc = run_claude(args, home=home, timeout=timeout, binary=binary)
        if proc.returncode != 0:
            raise RuntimeError(f"claude {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc
