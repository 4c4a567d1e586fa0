"""A session's state for the hooks after SessionStart: which notes Claude already has (the brief's,
and those a hook added), the session's project, the notes flagged "changed since". One small JSON
file per session in the cache's sessions/ folder; standard library only (every file event reads it).
"""
from __future__ import annotations

import json
import os
import time

STATE_MAX_AGE = 3 * 86400  # session state files older than this are removed when a new one is made


def _state_path(cache_dir: str, session_id) -> str:
    sid = "".join(c for c in str(session_id or "unknown") if c.isalnum() or c in "-_")[:80] or "unknown"
    return os.path.join(cache_dir, "sessions", sid + ".prompt.json")


def _brief_paths(cache_dir: str, data: dict | None = None) -> list[str]:
    """Every note the session's brief could have shown (a superset: the brief is cut to its budget)."""
    from ..outputs import brief

    if data is None:
        data = brief.load(cache_dir) or {}
    paths = [i.get("path") for part in ("conventions", "hubs") for i in data.get(part) or []]
    for proj in (data.get("projects") or {}).values():
        for part in ("hubs", "pitfalls", "decisions", "notes"):
            paths += [i.get("path") for i in proj.get(part) or []]
    return [p for p in paths if isinstance(p, str)]


def _project(data: dict, cwd: str | None) -> str:
    """The working folder's project ("" for none), as SessionStart's brief found it: from the
    catalogue in brief.json (no SQL; the index's catalogue takes 20 ms at 10k notes)."""
    from ..outputs import brief
    from ..index import project

    m = project.detect(brief.catalog_of(data), cwd=cwd)
    return m.project["name"] if m.project else ""


def fresh_state(cache_dir: str, cwd: str | None) -> dict:
    """A session's first prompt when SessionStart left no state: the notes the brief would show in
    `cwd` as it is now (its conventions, hubs and this folder's project: not every project's, which
    at 10k notes were 2,600 paths, a 1 MB parse and a 170 KB state read back by each prompt) and
    its project. Without a working folder, every project's notes (the brief was one of them)."""
    from ..outputs import brief

    found = brief.for_session(cache_dir, cwd) if cwd else None  # brief.json's first line and one project
    if found:
        data, match = found
        name = match.project["name"] if match.project else ""
    else:
        data, name = brief.load(cache_dir) or {}, ""
        if cwd:  # this folder's project only; without a folder (`eval --prompts`), any project's
            from ..index import project

            name = _project(data, cwd)
            key = project.key(name) if name else None
            data = {**data, "projects": {k: v for k, v in (data.get("projects") or {}).items() if k == key}}
    return {"shown": _brief_paths(cache_dir, data), "injected": [], "project": [cwd or "", name], "new": True}


def load_state(cache_dir: str, session_id, cwd: str | None = None) -> dict:
    """{"shown": paths the brief showed, "injected": paths this hook added, "project": [cwd, name]}."""
    try:
        with open(_state_path(cache_dir, session_id), encoding="utf-8") as f:
            st = json.load(f)
        if isinstance(st, dict) and isinstance(st.get("shown"), list) and isinstance(st.get("injected"), list):
            return st
    except (OSError, ValueError):
        pass
    _prune(os.path.join(cache_dir, "sessions"))
    return fresh_state(cache_dir, cwd)


def save_state(cache_dir: str, session_id, st: dict) -> None:
    from ..core.fsutil import atomic_write  # makes the folder too

    keep = {k: st[k] for k in ("shown", "injected", "project", "flagged") if k in st}
    # not fsynced: a state lost in a crash only lets a note be given twice (~10 ms on a file event)
    atomic_write(_state_path(cache_dir, session_id), json.dumps(keep), skip_unchanged=False, durable=False)


def _prune(folder: str) -> None:
    cutoff = time.time() - STATE_MAX_AGE
    try:
        with os.scandir(folder) as it:
            for e in it:
                if e.name.endswith(".prompt.json") and e.stat().st_mtime < cutoff:
                    os.unlink(e.path)
    except OSError:
        pass


def project_of(cache_dir: str, st: dict, cwd: str | None) -> str:
    """The session's project for `cwd`: detected once per session and folder."""
    known = st.get("project")
    if isinstance(known, list) and len(known) == 2 and known[0] == (cwd or "") and isinstance(known[1], str):
        return known[1]
    from ..outputs import brief

    found = brief.for_session(cache_dir, cwd)  # brief.json's first line and one project: no 1 MB parse
    if found:
        name = found[1].project["name"] if found[1].project else ""
    else:
        name = _project(brief.load(cache_dir) or {}, cwd)
    st["project"] = [cwd or "", name]
    st["changed"] = True
    return name
