"""A fake Anthropic Messages API for end-to-end tests of the real Claude Code CLI.

Stdlib only. Binds 127.0.0.1 on an ephemeral port. Use it as a context manager::

    script = [tool_use("Write", {"file_path": p, "content": "hi\\n"}), text("done")]
    with FakeAnthropicAPI(script, log_path=tmp_path / "requests.jsonl") as api:
        run_claude_p(..., base_url=api.base_url)
    assert api.saw("MARKER-12345")

Every request (any method, any path) is recorded in ``api.requests`` and, if
``log_path`` is given, appended to that file as one JSON line.

``POST /v1/messages`` is answered from the script when the request is a
*main-loop* request (it carries a non-empty ``tools`` list and is not a
``max_tokens: 1`` quota probe); every other messages request (title / summary
generation, quota probe, ...) is a *side* request and gets a short canned text
without consuming the script. When the script is exhausted, main-loop requests
get ``default_text`` with ``stop_reason: end_turn``.

Streaming (``"stream": true``) is answered as server-sent events
(message_start, content_block_start/delta/stop, message_delta, message_stop);
otherwise as a plain JSON message.
"""

from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterable

__all__ = ["FakeAnthropicAPI", "text", "tool_use", "classify_messages_request"]

DEFAULT_MODEL = "claude-sonnet-4-5"


# --------------------------------------------------------------------------- script turns


def text(s: str) -> dict:
    """A scripted assistant turn that answers with plain text and ends the turn."""
    return {"type": "text", "text": s}


def tool_use(name_or_calls: str | Iterable[tuple[str, dict]], input: dict | None = None) -> dict:
    """A scripted assistant turn with one or more ``tool_use`` blocks.

    ``tool_use("Write", {"file_path": ..., "content": ...})`` or
    ``tool_use([("Write", {...}), ("Edit", {...})])``.
    """
    if isinstance(name_or_calls, str):
        calls = [(name_or_calls, input or {})]
    else:
        calls = list(name_or_calls)
    return {"type": "tool_use", "calls": [{"name": n, "input": i} for n, i in calls]}


def _normalise_turn(turn: Any) -> dict:
    if isinstance(turn, str):
        return text(turn)
    if isinstance(turn, dict) and turn.get("type") in ("text", "tool_use"):
        if turn["type"] == "tool_use" and "calls" not in turn:
            # accept a raw {"type": "tool_use", "name": ..., "input": ...}
            return tool_use(turn["name"], turn.get("input", {}))
        return turn
    raise ValueError(f"bad script turn: {turn!r}")


# --------------------------------------------------------------------------- classification


def classify_messages_request(body: Any) -> str:
    """Return ``"main"`` for an agent-loop request, else ``"side"``.

    Observed with Claude Code 2.1.332: the agent loop always sends the tool
    definitions (``tools`` non-empty; 12 under ``-p``, 13 interactive). Side requests
    send ``tools: []`` or none: the interactive session-title request
    (``source=generate_session_title`` in ``--debug-file``; ``tools: []``, one user
    message wrapped in ``<session>``, ``output_config.format`` = JSON schema
    ``{"title": string}``) and, defensively, any ``max_tokens: 1`` quota probe.
    """
    if not isinstance(body, dict):
        return "side"
    if body.get("max_tokens") == 1:
        return "side"
    if body.get("tools"):
        return "main"
    return "side"


def _sample_for_schema(schema: dict, s: str) -> Any:
    """A minimal value that satisfies a (simple) JSON schema."""
    t = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if t == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        keys = schema.get("required") or list(props)
        return {k: _sample_for_schema(props.get(k) or {}, s) for k in keys}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return 0
    if t == "boolean":
        return False
    if t == "null":
        return None
    return s


# --------------------------------------------------------------------------- server


class FakeAnthropicAPI:
    def __init__(
        self,
        script: Iterable[Any] = (),
        *,
        log_path: str | Path | None = None,
        default_text: str = "OK.",
        side_text: str = "Fake title",
        model: str = DEFAULT_MODEL,
    ) -> None:
        self.script = [_normalise_turn(t) for t in script]
        self.log_path = Path(log_path) if log_path else None
        self.default_text = default_text
        self.side_text = side_text
        self.model = model
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._script_pos = 0
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> "FakeAnthropicAPI":
        api = self

        class Handler(_Handler):
            fake = api

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-anthropic-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "FakeAnthropicAPI":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- queries -----------------------------------------------------------------------

    @property
    def message_requests(self) -> list[dict]:
        """Recorded ``POST /v1/messages`` requests (entries of ``self.requests``)."""
        return [r for r in self.requests if r["method"] == "POST" and r["path"].split("?")[0] == "/v1/messages"]

    @property
    def main_requests(self) -> list[dict]:
        return [r for r in self.message_requests if r.get("kind") == "main"]

    @property
    def bodies(self) -> list[Any]:
        """JSON bodies of every ``POST /v1/messages`` request."""
        return [r["body"] for r in self.message_requests]

    @property
    def script_remaining(self) -> int:
        return len(self.script) - self._script_pos

    def saw(self, needle: str, *, main_only: bool = False) -> bool:
        """True if ``needle`` occurs in any recorded messages request body (as JSON text, unescaped)."""
        reqs = self.main_requests if main_only else self.message_requests
        return any(needle in r["raw"] for r in reqs)

    @property
    def tool_results(self) -> list[dict]:
        """``tool_result`` blocks the CLI sent back (from the last message of each main-loop request)."""
        out = []
        for r in self.main_requests:
            msgs = r["body"].get("messages") or []
            content = msgs[-1].get("content") if msgs else None
            if isinstance(content, list):
                out += [c for c in content if isinstance(c, dict) and c.get("type") == "tool_result"]
        return out

    def find(self, needle: str, *, width: int = 200) -> list[str]:
        """Excerpts (``width`` chars either side) around each occurrence of ``needle``, for debugging."""
        out = []
        for r in self.message_requests:
            raw = r["raw"]
            start = 0
            while (i := raw.find(needle, start)) >= 0:
                out.append(raw[max(0, i - width): i + len(needle) + width])
                start = i + 1
        return out

    # -- internals ---------------------------------------------------------------------

    def _record(self, entry: dict) -> None:
        with self._lock:
            entry["seq"] = len(self.requests)
            self.requests.append(entry)
            if self.log_path is not None:
                self.log_path.parent.mkdir(parents=True, exist_ok=True)
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps({k: v for k, v in entry.items() if k != "raw"}) + "\n")

    def _next_turn(self) -> dict:
        with self._lock:
            if self._script_pos < len(self.script):
                turn = self.script[self._script_pos]
                self._script_pos += 1
                return turn
        return text(self.default_text)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_fake{next(self._ids):06d}"

    def side_answer(self, body: dict) -> dict:
        """Canned answer to a side request; honours ``output_config.format`` JSON schemas
        (the session-title request asks for ``{"title": ...}``)."""
        fmt = (body.get("output_config") or {}).get("format") or {}
        if fmt.get("type") == "json_schema" and isinstance(fmt.get("schema"), dict):
            return text(json.dumps(_sample_for_schema(fmt["schema"], self.side_text)))
        return text(self.side_text)

    def build_message(self, body: dict, kind: str) -> dict:
        turn = self._next_turn() if kind == "main" else self.side_answer(body)
        content: list[dict] = []
        if turn["type"] == "text":
            content.append({"type": "text", "text": turn["text"]})
            stop_reason = "end_turn"
        else:
            for call in turn["calls"]:
                content.append({"type": "tool_use", "id": self.new_id("toolu"), "name": call["name"], "input": call["input"]})
            stop_reason = "tool_use"
        return {
            "id": self.new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model") or self.model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }


class _Handler(BaseHTTPRequestHandler):
    fake: FakeAnthropicAPI  # set on the subclass
    protocol_version = "HTTP/1.1"
    server_version = "FakeAnthropicAPI/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    # -- helpers -------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            return self.rfile.read(n)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                line = self.rfile.readline().strip()
                size = int(line.split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return b""

    def _record(self, raw: bytes, kind: str | None = None) -> Any:
        text_ = raw.decode("utf-8", "replace")
        try:
            body = json.loads(text_) if text_ else None
        except ValueError:
            body = text_
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items() if k.lower() not in ("x-api-key", "authorization")},
            "body": body,
            "raw": text_,
        }
        if kind is None and self.command == "POST" and self.path.split("?")[0] == "/v1/messages":
            kind = classify_messages_request(body)
        entry["kind"] = kind
        self.fake._record(entry)
        return body

    def _send_json(self, obj: Any, status: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", self.fake.new_id("req"))
        self.end_headers()
        self.wfile.write(data)

    # -- verbs ---------------------------------------------------------------------------

    def do_HEAD(self) -> None:
        self._record(b"")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._record(b"")
        path = self.path.split("?")[0]
        if path.startswith("/v1/models"):
            models = [
                {"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
                for m in (self.fake.model, "claude-opus-4-1", "claude-haiku-4-5")
            ]
            if path.rstrip("/") != "/v1/models":
                mid = path.rsplit("/", 1)[-1]
                self._send_json({"type": "model", "id": mid, "display_name": mid, "created_at": "2025-01-01T00:00:00Z"})
                return
            self._send_json({"data": models, "has_more": False, "first_id": models[0]["id"], "last_id": models[-1]["id"]})
            return
        self._send_json({})

    def do_DELETE(self) -> None:
        self._record(self._read_body())
        self._send_json({})

    def do_PUT(self) -> None:
        self._record(self._read_body())
        self._send_json({})

    def do_PATCH(self) -> None:
        self._record(self._read_body())
        self._send_json({})

    def do_POST(self) -> None:
        raw = self._read_body()
        path = self.path.split("?")[0]
        if path == "/v1/messages/count_tokens":
            body = self._record(raw, kind="count_tokens")
            self._send_json({"input_tokens": max(1, len(raw) // 4)})
            return
        if path == "/v1/messages":
            body = self._record(raw)
            if not isinstance(body, dict):
                self._send_json({"type": "error", "error": {"type": "invalid_request_error", "message": "bad json"}}, 400)
                return
            kind = classify_messages_request(body)
            msg = self.fake.build_message(body, kind)
            if body.get("stream"):
                self._send_sse(msg)
            else:
                self._send_json(msg)
            return
        self._record(raw)
        self._send_json({})

    def _send_sse(self, msg: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", self.fake.new_id("req"))
        self.end_headers()
        self.close_connection = True

        def event(name: str, data: dict) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

        start = dict(msg, content=[], stop_reason=None, stop_sequence=None)
        start["usage"] = dict(msg["usage"], output_tokens=1)
        event("message_start", {"type": "message_start", "message": start})
        for i, block in enumerate(msg["content"]):
            if block["type"] == "text":
                event("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
                event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}})
            else:
                event("content_block_start", {
                    "type": "content_block_start", "index": i,
                    "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                })
                event("content_block_delta", {
                    "type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                })
            event("content_block_stop", {"type": "content_block_stop", "index": i})
        event("message_delta", {
            "type": "message_delta",
            "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": msg["usage"]["output_tokens"]},
        })
        event("message_stop", {"type": "message_stop"})
        self.wfile.flush()
