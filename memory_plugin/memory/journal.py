"""SessionEnd journal entries: the first request of the session (redacted) and the notes it touched.

Every entry is valid UTF-8 whatever its sources: a lone surrogate (JSON's `\\ud800`, a UTF-16 text
cut mid-pair) and an undecodable byte of a folder name (which Python carries as a surrogate,
`\\udce9`) become U+FFFD. One such byte in the file would make the whole day's note unreadable
as UTF-8, so it would never be indexed or briefed again.
"""
from __future__ import annotations

import json
import os
import re
import stat
import time

from ..core import textutil
from ..core.fsutil import atomic_write

REQUEST_CHARS = 200
# The request is cut before it is redacted (redaction is linear, but there is no need to read 8 MB):
# what is redacted is the first REQUEST_CHARS + MARGIN characters, so a secret that starts before the
# cut is seen whole when it is shorter than MARGIN; of that, only what precedes GUARD characters from
# the end is kept, so a longer secret cut by the window is never half-kept either.
MARGIN = 1000
GUARD = 500
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every surrogate replaced by U+FFFD: it always encodes as UTF-8."""
    return _SURROGATE.sub("\ufffd", text)


def redact(text: str, emails: bool = False) -> str:
    """`text` with secrets replaced (redact.py: gitleaks' rules and ours)."""
    from . import redact as R

    return R.redact(text, emails=emails)


def request_line(text: str, emails: bool = False) -> str:
    """The first request as the journal keeps it: cut, redacted, on one line, at most REQUEST_CHARS."""
    from . import redact as R

    window = valid_text(text[: REQUEST_CHARS + MARGIN])
    keep = len(window) - GUARD if len(text) > len(window) else None
    return one_line(R.redact(window, emails=emails, keep_until=keep))


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
    text = valid_text(textutil.one_line(text)).replace('"', "'")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def entry_line(*, when: float, project: str, session_id: str, reason: str, touched: list[str],
               request: str | None) -> str:
    """One journal line whatever the input: every field has its control characters and line breaks
    removed (a newline in a reason, a folder name or a file name cannot forge another entry)."""
    sid = valid_text(textutil.one_line(session_id or "")).replace('"', "'")[:8]
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


def journal_rel(journal_folder: str, when: float, vault: str | None = None, dialect: str = "plain",
                user_set: bool = True) -> str:
    """The day's journal note: in the folder the user configured (`journal_folder` set in the plugin's
    config always wins), else in the vault's daily-notes folder under the app's file-name format
    (vault/appsettings.py: Obsidian's daily-notes or Periodic Notes settings, Logseq's journals, Foam's
    daily note), else `journal/YYYY-MM-DD.md`."""
    if not user_set and vault is not None:
        daily = _daily(vault, dialect)
        rel = daily.rel(_day(when)) if daily is not None else None
        if rel:
            return rel
    return f"{journal_folder.strip('/')}/{time.strftime('%Y-%m-%d', time.localtime(when))}.md"


def _daily(vault: str, dialect: str):
    from ..vault import appsettings

    return appsettings.daily_notes(vault, dialect)


def _day(when: float):
    import datetime as dt

    return dt.date.fromtimestamp(when)


# A template's placeholders this module can fill for a day's note; any other leaves its line out.
_TEMPLATER = re.compile(r"<%[-_*]?\s*(.*?)\s*[-_]?%>", re.S)
_FORMAT_CALL = re.compile(r"""^(?:tp\.date\.(now|yesterday|tomorrow)|tp\.file\.(?:creation_date|last_modified_date)"""
                          r"""|moment\(.*?\)\.format)\(\s*(?:(["'])(.*?)\2)?\s*\)$""")
_CORE = re.compile(r"\{\{\s*(date|title)(?::([^}]*))?\s*\}\}")
_FOAM = re.compile(r"\$\{?([A-Z_]+)\}?")


def fill_template(line: str, day, title: str) -> str | None:
    """`line` of a daily-note template with the day's placeholders filled (Templater's `tp.date.now`,
    `tp.date.yesterday/tomorrow`, `tp.file.title`, `tp.file.creation_date`, `moment(..).format`;
    the core Templates plugin's `{{date}}`, `{{date:FORMAT}}`, `{{title}}`; Foam's `${CURRENT_YEAR}`,
    `${FOAM_DATE_*}`, `${FOAM_TITLE}`), or None when a placeholder is left that cannot be filled."""
    import datetime as dt

    from ..vault import appsettings as A

    def templater(m):
        code = m.group(1).strip()
        if code == "tp.file.title":
            return title
        f = _FORMAT_CALL.match(code)
        if f is None:
            raise ValueError(code)
        shift = {"yesterday": -1, "tomorrow": 1}.get(f.group(1) or "", 0)
        return A.format_date(day + dt.timedelta(days=shift), f.group(3) or "YYYY-MM-DD", A.MOMENT)

    def core(m):
        return title if m.group(1) == "title" else A.format_date(day, m.group(2) or "YYYY-MM-DD", A.MOMENT)

    def foam(m):
        if m.group(1) in ("FOAM_TITLE", "FOAM_DATE_TITLE"):
            return title
        fmt = A._FOAM_VARS.get(m.group(1))
        if fmt is None:
            raise ValueError(m.group(1))
        return A.format_date(day, fmt, A.DATEFORMAT, ("'", "'"))

    try:
        line = _TEMPLATER.sub(templater, line)
        line = _CORE.sub(core, line)
        line = _FOAM.sub(foam, line)
    except ValueError:
        return None
    return None if ("<%" in line or "{{" in line or "${" in line) else line


def new_day_text(vault: str, rel: str, when: float, dialect: str = "plain") -> str:
    """How a day's journal note starts when the journal line creates it. In the plugin's own journal
    folder: journal properties and the date as H1. In the vault's daily-notes folder: as the owner's
    app would start it: nothing in Logseq (the note is its bullets); in Obsidian and Foam the daily
    template's properties (a line whose placeholder cannot be filled is left out) and its body with
    the day filled in, or only its H1 when a line of the body cannot be filled, and `type: journal`
    so that the index reads it as a journal."""
    day = _day(when)
    daily = _daily(vault, dialect)
    if daily is None or daily.rel(day) != rel or (daily.template is None and not daily.app_set):
        # the plugin's own start; also where only the notes showed the folder and no template says more
        name = os.path.basename(rel)[:-3]
        return f"---\ntype: journal\ndate: {name}\ntags: [journal]\n---\n# {name}\n\n"
    if daily.app == "logseq":
        return ""
    from ..vault import appsettings

    title = os.path.basename(rel)[:-3]
    tpl = appsettings.template_text(vault, daily.template) or ""
    fm, h1 = [], None
    m = re.match(r"---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", tpl, re.S)
    if m:
        for line in m.group(1).splitlines():
            filled = fill_template(line, day, title)
            if filled is not None and not filled.lstrip().startswith("foam_template"):
                fm.append(filled)
        fm = _drop_orphans(fm)
    body = tpl[m.end():] if m else tpl
    filled = [fill_template(ln, day, title) for ln in body.strip().splitlines()]
    if not any(re.match(r"type\s*:", ln, re.I) for ln in fm):
        fm.insert(0, "type: journal")
    head = "---\n" + "\n".join(fm) + "\n---\n"
    if filled and None not in filled:  # the template's whole body, as the app would start the note
        return head + "\n".join(filled) + "\n\n"
    h = re.search(r"(?m)^#[ \t]+.*$", body)
    if h:
        h1 = fill_template(h.group(0), day, title)
    return head + (f"{h1}\n" if h1 else "") + "\n"


def _drop_orphans(lines: list[str]) -> list[str]:
    """Indented lines left without their key (the key's line was dropped) are dropped too."""
    out: list[str] = []
    for ln in lines:
        if ln[:1] in (" ", "\t", "-") and not out:
            continue
        out.append(ln)
    return out


class JournalRefused(Exception):
    """The journal folder or file is a symlink or leaves the vault: nothing is written."""


LOCK_WAIT = 1.0  # all SessionEnd hooks share 1.5 s: wait this long for the vault lock, then queue


def checked_path(vault: str, rel: str) -> str:
    """The journal file's path, by the rule notes follow: its real location must be inside the vault.
    A journal file that is a symlink (to anywhere) is refused too: reading it would copy whatever it
    points at into the vault, and replacing it would silently turn the link into a file."""
    root = os.path.realpath(vault)
    path = os.path.join(root, rel)
    folder = os.path.realpath(os.path.dirname(path))
    if folder != root and not folder.startswith(root + os.sep):  # the root itself: a flat vault's daily note
        raise JournalRefused(f"the journal folder {os.path.dirname(rel)}/ resolves to {folder}, outside the "
                             f"vault {root}: nothing written; make it a real folder inside the vault")
    if os.path.islink(path) or (os.path.exists(path) and not os.path.realpath(path).startswith(root + os.sep)):
        raise JournalRefused(f"the journal file {rel} is a symlink: nothing written; replace it with a "
                             "real file")
    return path


def _queue_dir(cache_dir: str) -> str:
    return os.path.join(cache_dir, "journal-queue")


def append(vault: str, cache_dir: str, rel: str, line: str, when: float, header: str | None = None) -> str:
    """Append one line to the day's journal note, creating it with journal properties, under the vault
    lock (fsutil.vault_lock, which note writes take too) and atomically: the note is either as before
    or has the whole new line. When the lock cannot be had within LOCK_WAIT, the line is queued in the
    cache dir and appended by the next writer (drain). -> "appended" or "queued"."""
    from ..core.fsutil import lock_timeouts, vault_lock

    checked_path(vault, rel)
    try:
        with vault_lock(cache_dir, timeout=LOCK_WAIT):
            drain(vault, cache_dir, locked=True)
            _append_locked(vault, rel, line, header)
        status = "appended"
    except lock_timeouts():
        q = _queue_dir(cache_dir)
        os.makedirs(q, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}.json"
        atomic_write(os.path.join(q, name), json.dumps({"rel": rel, "line": line, "header": header}))
        status = "queued"
    hand_over(vault, cache_dir)
    return status


def hand_over(vault: str, cache_dir: str) -> None:
    """No queued line is left behind when its writer exits. The holder drained before it appended,
    but a line may be queued after that drain and before the lock is released; so every writer, after
    releasing the lock (or after queueing), takes it again without waiting while lines are queued, and
    drains them. When that try fails, whoever holds the lock now will run this same check after its
    own release, which comes after our queueing: the last writer out always finds the queue's lines.
    Every holder of the vault lock runs it after releasing (memory.vault_lock for the commands)."""
    from ..core.fsutil import lock_timeouts, vault_lock

    q = _queue_dir(cache_dir)
    while True:
        try:
            if not any(n.endswith(".json") for n in os.listdir(q)):
                return
        except FileNotFoundError:
            return
        try:
            with vault_lock(cache_dir, timeout=0):
                if not drain(vault, cache_dir, locked=True):
                    return
        except lock_timeouts():
            return


def drain(vault: str, cache_dir: str, locked: bool = False) -> int:
    """Append the queued lines (oldest first); under the vault lock unless the caller holds it."""
    q = _queue_dir(cache_dir)
    try:
        names = sorted(n for n in os.listdir(q) if n.endswith(".json"))
    except FileNotFoundError:
        return 0
    if not names:
        return 0
    if not locked:
        from ..core.fsutil import vault_lock

        with vault_lock(cache_dir, timeout=30):
            return drain(vault, cache_dir, locked=True)
    done = 0
    for n in names:
        p = os.path.join(q, n)
        try:
            with open(p, encoding="utf-8") as f:
                item = json.load(f)
            checked_path(vault, item["rel"])
            _append_locked(vault, item["rel"], item["line"], item.get("header"))
        except FileNotFoundError:
            continue
        except (ValueError, KeyError, TypeError, JournalRefused):
            pass  # a broken or refused item is dropped, not retried forever
        os.unlink(p)
        done += 1
    return done


def _append_locked(vault: str, rel: str, line: str, header: str | None = None) -> None:
    path = checked_path(vault, rel)
    day = os.path.basename(rel)[:-3]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    checked_path(vault, rel)  # the folder just made (or found) is still inside the vault
    try:  # non-blocking: a FIFO in the journal's place would otherwise hang the hook on open
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise JournalRefused(f"the journal file {rel} is not a regular file: nothing written")
            old = f.read().decode("utf-8", errors="surrogateescape")
    except FileNotFoundError:
        old = header if isinstance(header, str) else f"---\ntype: journal\ndate: {day}\ntags: [journal]\n---\n# {day}\n\n"
    if old and not old.endswith("\n"):
        old += "\n"
    # the old text's bytes are kept as they are; the new line is valid UTF-8 (a queued line too)
    atomic_write(path, (old + valid_text(line) + "\n").encode("utf-8", errors="surrogateescape"))
