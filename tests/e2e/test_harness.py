"""Prove the e2e harness against the real Claude Code CLI with throwaway hooks.

These tests install ``@anthropic-ai/claude-code`` (pinned) from npm on first use and
talk to it only through a fake Messages API on 127.0.0.1.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

try:  # tests/ may or may not become a package
    from .claude_cli import ensure_claude, install_plugin, run_claude_init_only, run_claude_p, validate_plugin, write_settings
    from .fake_api import FakeAnthropicAPI, text, tool_use
except ImportError:  # pragma: no cover - rootdir/prepend import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from claude_cli import ensure_claude, install_plugin, run_claude_init_only, run_claude_p, validate_plugin, write_settings
    from fake_api import FakeAnthropicAPI, text, tool_use

pytestmark = pytest.mark.e2e

MARKER = "MARKER-12345"
PLUGIN_MARKER = "PLUGIN-MARKER-67890"

# One throwaway hook script for every event:
#   hook.py LOG [MARKER]  -> appends {"stdin": <hook input>, "env": {...}} to LOG;
#                            with MARKER, prints the SessionStart additionalContext JSON.
HOOK_SCRIPT = textwrap.dedent(
    """\
    import json, os, sys
    raw = sys.stdin.read()
    try:
        data = json.loads(raw)
    except ValueError:
        data = raw
    env = {k: v for k, v in os.environ.items() if k.startswith("CLAUDE_")}
    tp = data.get("transcript_path") if isinstance(data, dict) else None
    transcript_exists = bool(tp) and os.path.exists(tp)
    with open(sys.argv[1], "a", encoding="utf-8") as f:
        f.write(json.dumps({"stdin": data, "env": env, "transcript_exists": transcript_exists}) + "\\n")
    if len(sys.argv) > 2:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": sys.argv[2]}}))
    """
)


def _hook(script: Path, log: Path, *extra: str, timeout: int = 10) -> dict:
    return {"type": "command", "command": sys.executable, "args": [str(script), str(log), *extra], "timeout": timeout}


def _read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _explain(proc, api: FakeAnthropicAPI | None = None) -> str:
    s = f"rc={proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    if api is not None:
        s += "\nrequests: " + ", ".join(f"{r['method']} {r['path']} ({r['kind']})" for r in api.requests)
    return s


@pytest.fixture(scope="session")
def claude() -> Path:
    if shutil.which("npm") is None:
        pytest.skip("npm not available to install the Claude Code CLI")
    return ensure_claude()


@pytest.fixture
def env_dirs(tmp_path: Path) -> dict[str, Path]:
    d = {name: tmp_path / name for name in ("home", "work", "logs")}
    for p in d.values():
        p.mkdir()
    script = tmp_path / "hook.py"
    script.write_text(HOOK_SCRIPT)
    d["script"] = script
    return d


def _settings_hooks(d: dict[str, Path]) -> dict:
    logs, script = d["logs"], d["script"]
    return {
        "hooks": {
            "SessionStart": [{"matcher": "startup|resume|clear|compact",
                              "hooks": [_hook(script, logs / "session_start.jsonl", MARKER)]}],
            "PostToolUse": [{"matcher": "Read|Write|Edit|MultiEdit|NotebookEdit",
                             "hooks": [_hook(script, logs / "post_tool_use.jsonl")]}],
            "SessionEnd": [{"hooks": [_hook(script, logs / "session_end.jsonl")]}],
        }
    }


def test_settings_hooks_with_fake_api(claude: Path, env_dirs: dict[str, Path]) -> None:
    home, work, logs = env_dirs["home"], env_dirs["work"], env_dirs["logs"]
    write_settings(home, _settings_hooks(env_dirs))
    target = work / "notes" / "hello.md"
    script = [
        tool_use("Write", {"file_path": str(target), "content": "hello world\n"}),
        tool_use("Edit", {"file_path": str(target), "old_string": "world", "new_string": "there"}),
        text("All done."),
    ]
    with FakeAnthropicAPI(script, log_path=logs / "requests.jsonl") as api:
        proc = run_claude_p("Write the note.", home=home, cwd=work, base_url=api.base_url,
                            debug_file=logs / "debug.log", binary=claude)
    assert proc.returncode == 0, _explain(proc, api)
    assert "All done." in proc.stdout

    # the SessionStart additionalContext reached the model (first main-loop request)
    assert api.main_requests, _explain(proc, api)
    assert MARKER in api.main_requests[0]["raw"], _explain(proc, api)
    assert api.saw(f"SessionStart hook additional context: {MARKER}")
    assert api.script_remaining == 0
    # the request log file holds the bodies too
    assert any(MARKER in json.dumps(e["body"]) for e in _read_log(logs / "requests.jsonl"))

    # the scripted Write and Edit really happened
    assert target.read_text() == "hello there\n"

    # PostToolUse fired for both, with the absolute path
    post = _read_log(logs / "post_tool_use.jsonl")
    assert [e["stdin"]["tool_name"] for e in post] == ["Write", "Edit"], post
    for e in post:
        assert e["stdin"]["hook_event_name"] == "PostToolUse"
        assert e["stdin"]["tool_input"]["file_path"] == str(target)
        assert e["stdin"]["session_id"]

    # SessionStart got source=startup; SessionEnd got session_id + transcript_path
    start = _read_log(logs / "session_start.jsonl")
    assert len(start) == 1 and start[0]["stdin"]["source"] == "startup"
    assert start[0]["env"].get("CLAUDE_PROJECT_DIR") == str(work)
    end = _read_log(logs / "session_end.jsonl")
    assert len(end) == 1, end
    assert end[0]["stdin"]["hook_event_name"] == "SessionEnd"
    assert end[0]["stdin"]["session_id"] == start[0]["stdin"]["session_id"]
    assert end[0]["stdin"]["transcript_path"].endswith(".jsonl")
    assert end[0]["stdin"]["reason"] == "other"
    assert end[0]["transcript_exists"]  # under -p the transcript is on disk by SessionEnd
    assert Path(end[0]["stdin"]["transcript_path"]).exists()

    # the CLI reported both tool calls as successful
    results = api.tool_results
    assert len(results) == 2 and not any(r.get("is_error") for r in results), results


def test_init_only_runs_hooks(claude: Path, env_dirs: dict[str, Path]) -> None:
    home, work, logs = env_dirs["home"], env_dirs["work"], env_dirs["logs"]
    write_settings(home, _settings_hooks(env_dirs))
    proc = run_claude_init_only(home=home, cwd=work, binary=claude)
    assert proc.returncode == 0, _explain(proc)
    start = _read_log(logs / "session_start.jsonl")
    assert len(start) == 1 and start[0]["stdin"]["source"] == "startup"
    end = _read_log(logs / "session_end.jsonl")
    assert len(end) == 1 and end[0]["stdin"]["session_id"] == start[0]["stdin"]["session_id"]
    assert not (logs / "post_tool_use.jsonl").exists()


def _make_plugin(root: Path, script: Path, log: Path) -> Path:
    plugin = root / "throwaway"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    shutil.copy(script, plugin / "hooks" / "hook.py")
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({
        "name": "throwaway-plugin", "version": "0.0.1", "description": "e2e throwaway plugin",
        "author": {"name": "memory-plugin tests"},  # --strict: missing author is a warning -> error
    }))
    (plugin / ".claude-plugin" / "marketplace.json").write_text(json.dumps({
        "name": "throwaway-market", "description": "e2e throwaway marketplace",  # --strict needs description
        "owner": {"name": "memory-plugin tests"},
        "plugins": [{"name": "throwaway-plugin", "source": "./", "description": "e2e throwaway plugin"}],
    }))
    (plugin / "hooks" / "hooks.json").write_text(json.dumps({
        "description": "throwaway e2e hooks",
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": sys.executable,
                                         "args": ["${CLAUDE_PLUGIN_ROOT}/hooks/hook.py", str(log), PLUGIN_MARKER],
                                         "timeout": 10}]}],
        },
    }))
    return plugin


@pytest.mark.parametrize("two_step", [False, True], ids=["install--marketplace", "marketplace-add+install"])
def test_plugin_hooks_with_fake_api(claude: Path, env_dirs: dict[str, Path], tmp_path: Path, two_step: bool) -> None:
    home, work, logs = env_dirs["home"], env_dirs["work"], env_dirs["logs"]
    plugin = _make_plugin(tmp_path, env_dirs["script"], logs / "plugin_session_start.jsonl")

    v = validate_plugin(plugin, home=home, strict=True, binary=claude)
    assert v.returncode == 0, _explain(v)

    install_plugin(plugin, "throwaway-plugin", home=home, binary=claude,
                   marketplace="throwaway-market" if two_step else None)
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"throwaway-plugin@throwaway-market": True}

    with FakeAnthropicAPI([text("Hi.")], log_path=logs / "requests.jsonl") as api:
        proc = run_claude_p("Say hi.", home=home, cwd=work, base_url=api.base_url, binary=claude)
    assert proc.returncode == 0, _explain(proc, api)
    assert api.saw(f"SessionStart hook additional context: {PLUGIN_MARKER}"), _explain(proc, api)

    start = _read_log(logs / "plugin_session_start.jsonl")
    assert len(start) == 1
    # a directory-source marketplace runs the plugin from the source dir, not the cache copy
    assert start[0]["env"]["CLAUDE_PLUGIN_ROOT"] == str(plugin)
    assert start[0]["env"]["CLAUDE_PLUGIN_DATA"].endswith("throwaway-plugin-throwaway-market")


def test_fake_api_side_requests_do_not_consume_script() -> None:
    """Unit check of the fake server itself (no CLI): side requests, SSE, JSON, other endpoints."""
    import urllib.request

    def post(url: str, body: dict) -> tuple[str, bytes]:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.headers.get("content-type"), r.read()

    with FakeAnthropicAPI([tool_use("Write", {"file_path": "/x", "content": "y"})], default_text="END") as api:
        base = api.base_url
        tools = [{"name": "Write", "input_schema": {"type": "object"}}]
        # quota probe and title generation: no tools / max_tokens 1 -> side, script untouched
        _, b = post(base + "/v1/messages", {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "quota"}]})
        assert json.loads(b)["content"][0]["type"] == "text"
        # session-title request as sent interactively: tools: [], JSON-schema output format
        title_fmt = {"type": "json_schema", "schema": {"type": "object", "properties": {"title": {"type": "string"}},
                                                       "required": ["title"], "additionalProperties": False}}
        _, b = post(base + "/v1/messages?beta=true", {"model": "m", "max_tokens": 512, "tools": [], "messages": [],
                                                      "output_config": {"effort": "medium", "format": title_fmt}})
        msg = json.loads(b)
        assert msg["stop_reason"] == "end_turn" and json.loads(msg["content"][0]["text"]) == {"title": "Fake title"}
        assert api.script_remaining == 1
        # main-loop, streaming: SSE with the tool_use
        ctype, b = post(base + "/v1/messages?beta=true", {"model": "m", "max_tokens": 100, "tools": tools, "messages": [], "stream": True})
        assert ctype == "text/event-stream"
        events = [line[7:] for line in b.decode().splitlines() if line.startswith("event: ")]
        assert events == ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                          "message_delta", "message_stop"]
        assert '"stop_reason": "tool_use"' in b.decode() and '\\"file_path\\": \\"/x\\"' in b.decode()
        # exhausted -> default text, end_turn
        _, b = post(base + "/v1/messages", {"model": "m", "max_tokens": 100, "tools": tools, "messages": []})
        msg = json.loads(b)
        assert msg["content"] == [{"type": "text", "text": "END"}] and msg["stop_reason"] == "end_turn"
        # other endpoints
        _, b = post(base + "/v1/messages/count_tokens", {"messages": []})
        assert "input_tokens" in json.loads(b)
        with urllib.request.urlopen(base + "/v1/models", timeout=10) as r:
            assert json.loads(r.read())["data"]
        with urllib.request.urlopen(urllib.request.Request(base + "/api/hello", method="HEAD"), timeout=10) as r:
            assert r.status == 200
    kinds = [r["kind"] for r in api.requests]
    assert kinds == ["side", "side", "main", "main", "count_tokens", None, None]
