"""SessionEnd journal entries: the first request of the session (redacted) and the notes it touched."""
from __future__ import annotations

import json
import os
import re
import time

from . import textutil
from .fsutil import atomic_write, file_lock

REQUEST_CHARS = 200
# `password=x`, `OPENAI_API_KEY: x`, `"pw": "x"`, `--db-password x`: the key is a whole word (optionally
# with a prefix such as OPENAI_ or db-), so prose like "reset the password flow" stays as it is.
_SECRET_KEY = (r"(?:[a-z0-9]+[_-])*(?:password|passwd|passphrase|pwd|pw|secret|token|api[_-]?key|"
               r"access[_-]?key|private[_-]?key|client[_-]?secret|auth)\b")
_SECRET_VALUE = r"(?!\[REDACTED)(?:\"[^\"]*\"|'[^']*'|\S+)"
_SECRET_PATTERNS = [
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.S),
     "[REDACTED PRIVATE KEY]"),
    (re.compile(rf"(?i)\b({_SECRET_KEY}[\"']?\s*[:=]\s*){_SECRET_VALUE}"), r"\1[REDACTED]"),
    (re.compile(rf"(?i)(?<![\w-])(--{_SECRET_KEY}\s+)(?!-){_SECRET_VALUE}"), r"\1[REDACTED]"),
    (re.compile(r"\b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}"), "[REDACTED KEY]"),
    (re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"), "[REDACTED TOKEN]"),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), "[REDACTED TOKEN]"),
    (re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), "[REDACTED KEY]"),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"), "[REDACTED KEY]"),
    (re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), "[REDACTED TOKEN]"),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), "[REDACTED TOKEN]"),
    (re.compile(r"(?i)\b(bearer|token)\s+[A-Za-z0-9._~+/=\-]{16,}"), r"\1 [REDACTED]"),
    (re.compile(r"(?i)(://[^/\s:@]+:)[^@\s/]+@"), r"\1[REDACTED]@"),
]
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b")


def redact(text: str, emails: bool = False) -> str:
    for rx, repl in _SECRET_PATTERNS:
        text = rx.sub(repl, text)
    if emails:
        text = _EMAIL.sub("[REDACTED EMAIL]", text)
    return text


def _text_of(content) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "tool_result":
                    return None
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
        return "\n".join(parts) if parts else None
    return None


def first_request(transcript_path, max_lines: int = 5000, max_bytes: int = 8_000_000) -> str | None:
    """The first thing the user asked in the session, from Claude Code's JSONL transcript."""
    if not isinstance(transcript_path, str) or not transcript_path:
        return None
    if not os.path.isfile(transcript_path):  # a FIFO or device would block or never end
        return None
    try:
        f = open(transcript_path, encoding="utf-8", errors="replace")
    except OSError:
        return None
    read = 0
    with f:
        for i in range(max_lines):
            line = f.readline(max_bytes - read + 1)  # bounded: one huge line cannot eat memory
            if not line:
                break
            read += len(line)
            if read > max_bytes:
                break
            if '"user"' not in line:
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict) or entry.get("type") != "user" or entry.get("isMeta"):
                continue
            msg = entry.get("message")
            if not isinstance(msg, dict) or msg.get("role") != "user":
                continue
            text = _text_of(msg.get("content"))
            if not text:
                continue
            text = text.strip()
            if not text or text.startswith(("<command-", "<local-command", "Caveat:", "<system-reminder>")):
                continue
            return text
    return None


def one_line(text: str, limit: int = REQUEST_CHARS) -> str:
    text = textutil.one_line(text).replace('"', "'")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def entry_line(*, when: float, project: str, session_id: str, reason: str, touched: list[str],
               request: str | None) -> str:
    """One journal line whatever the input: every field has its control characters and line breaks
    removed (a newline in a reason, a folder name or a file name cannot forge another entry)."""
    sid = textutil.one_line(session_id or "").replace('"', "'")[:8]
    parts = [time.strftime("%H:%M", time.localtime(when)), f"project {one_line(project or '', 80) or 'unknown'}",
             f"session {sid or 'unknown'}", one_line(reason or "", 40) or "other"]
    names = [one_line(p[:-3] if p.endswith(".md") else p, 200).replace("]]", "] ]") for p in touched]
    if names:
        parts.append("touched " + ", ".join(f"[[{n}]]" for n in names if n))
    request = one_line(request) if request else None
    if request:
        parts.append(f'"{request}"')
    if not names and not request:
        parts.append("no notes touched")
    return "- " + " · ".join(parts)


def journal_rel(journal_folder: str, when: float) -> str:
    return f"{journal_folder.strip('/')}/{time.strftime('%Y-%m-%d', time.localtime(when))}.md"


def append(vault: str, cache_dir: str, rel: str, line: str, when: float) -> None:
    """Append one line to the day's journal note, creating it with journal properties. Under a lock,
    atomically: the note is either as before or has the whole new line."""
    path = os.path.join(vault, rel)
    day = os.path.basename(rel)[:-3]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with file_lock(os.path.join(cache_dir, "journal.lock"), timeout=5):
        try:
            with open(path, "rb") as f:
                old = f.read().decode("utf-8", errors="surrogateescape")
        except FileNotFoundError:
            old = f"---\ntype: journal\ndate: {day}\ntags: [journal]\n---\n# {day}\n\n"
        if old and not old.endswith("\n"):
            old += "\n"
        atomic_write(path, (old + line + "\n").encode("utf-8", errors="surrogateescape"))
