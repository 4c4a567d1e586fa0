"""PostToolUse on a repository file: the notes that cite it reach Claude when it reads or edits it.

When Claude reads, edits or writes a file of a git repository (not a vault note), the notes citing
that file, a line of it or a symbol it defines (index/code.py) are added as context: at most
MAX_ITEMS, most specific first (these lines > this symbol > this file), each once per session
(notes the brief or an earlier hook already gave are left out), one short line each (type, title,
age, one line of summary), fenced as reference data like the brief. A note whose cited code changed
since it was written says so on its line, and comes back once with that flag even if the session
already has it. A file no note cites adds nothing. A Read records the baselines of anchors not yet
seen (the code as Claude read it); an Edit or Write never does (the code is already Claude's).
"""
from __future__ import annotations

import os

MAX_ITEMS = 3           # notes one file event may add
FENCE_OPEN = "<memory-plugin-code>"
FENCE_CLOSE = "</memory-plugin-code>"
TOOLS = {"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"}


def emit(text: str) -> None:
    import json
    import sys

    out = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}
    sys.stdout.write(json.dumps(out, ensure_ascii=False))
    sys.stdout.flush()


def _touched(tool: str, ti: dict, text: str) -> tuple[int, int] | None:
    """The lines a Read (offset/limit) or an Edit (where new_string now stands) touched, or None (all)."""
    if tool == "Read":
        off, lim = ti.get("offset"), ti.get("limit")
        if isinstance(off, int) or isinstance(lim, int):
            lo = max(int(off or 1), 1)
            return lo, lo + int(lim or 2000) - 1
        return None
    new = ti.get("new_string")
    if isinstance(new, str) and new.strip():
        i = text.find(new)
        if i >= 0:
            lo = text.count("\n", 0, i) + 1
            return lo, lo + new.count("\n")
    return None


def _cited(db: str, rel: str, text: str | None) -> bool:
    """Could any note cite this file? A read-only look at the anchors table, when there is no cited
    list (index/code.py): a path of it, or a symbol name that is a word of its text (a superset of
    what it defines)."""
    import sqlite3

    from ..index.code import tails

    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return False
    try:
        t = tails(rel)
        if conn.execute(f"SELECT 1 FROM anchors WHERE file IN ({','.join('?' * len(t))}) LIMIT 1", t).fetchone():
            return True
        if text is None:
            return False
        names = {n for (n,) in conn.execute("SELECT DISTINCT symbol FROM anchors WHERE symbol IS NOT NULL")}
        if not names or not any(n in text for n in names):
            return False
        import re

        return not names.isdisjoint(re.findall(r"[A-Za-z_$][\w$]*", text))  # as words, not inside others
    except sqlite3.Error:  # an index of an older schema: the next rebuild makes the table
        return False
    finally:
        conn.close()


def respond(cfg, payload: dict, fp: str) -> str:
    """The context one file event adds ("" for none); records what it gave in the session's state."""
    from ..index import code

    tool = payload.get("tool_name") if isinstance(payload.get("tool_name"), str) else "Read"
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    path = fp if os.path.isabs(fp) or not cwd else os.path.join(cwd, fp)
    repo = code.repo_root(path)
    if repo is None:
        return ""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(repo)).replace(os.sep, "/")
    if rel.startswith("../"):
        return ""
    text = code.read_code(path)
    db = os.path.join(cfg.cache_str, "index.sqlite")
    cited = code.could_cite(cfg.cache_str, rel, text)  # the cited list: no SQLite (nor pathlib) yet
    if cited is None:  # no list to go by: the index itself
        cited = os.path.exists(db) and _cited(db, rel, text)
    if not cited or not os.path.exists(db):
        return ""
    from ..index import store as index

    conn = index.open_index(cfg)
    try:
        from . import note_line, session

        cache_dir = cfg.cache_str
        st = session.load_state(cache_dir, payload.get("session_id"), cwd or repo)
        project = session.project_of(cache_dir, st, cwd or repo)
        ti = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
        notes = code.citing(conn, os.path.realpath(repo), rel, text, project,
                            _touched(tool, ti, text or "") if text is not None else None)
        if not notes:
            return ""
        if text is not None:
            code.judge(cache_dir, os.path.realpath(repo), rel, text, notes, record=(tool == "Read"))
        have = set(st.get("shown") or []) | set(st.get("injected") or [])
        flagged = set(st.get("flagged") or [])
        pick = [n for n in notes if n["path"] not in have or (n.get("state") == "changed" and n["path"] not in flagged)]
        pick = pick[:MAX_ITEMS]
        if not pick:
            return ""
        meta = note_line.meta(conn, [n["path"] for n in pick])
    finally:
        conn.close()
    from ..core.fence import escape_vault_text as esc

    lines = [note_line.line(meta[n["path"]], n.get("state")) for n in pick
             if n["path"] in meta and not meta[n["path"]]["private"]]
    if not lines:
        return ""
    st["injected"] = list(st.get("injected") or []) + [n["path"] for n in pick if n["path"] not in st.get("injected", [])]
    st["flagged"] = sorted(flagged | {n["path"] for n in pick if n.get("state") == "changed"})
    session.save_state(cache_dir, payload.get("session_id"), st)
    head = f"Vault notes citing {esc(rel)} (memory-plugin reference data; `memory-plugin explain TITLE` shows one):"
    return "\n".join([FENCE_OPEN, head, *lines, FENCE_CLOSE])
