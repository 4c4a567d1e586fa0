"""A note as a hook shows it after the brief: `- Title (type, age[, changed since]): one line`.

The prompt hook's items use it, in the shape the code hook's lines have (code_hook.line_for), so that
what reaches Claude in the moment reads the same whichever hook brought it. The note's path is left
out when its file name is its title (`memory-plugin explain TITLE` finds a note by its title), so the
line stays a few tokens. A pointer is the same line without its summary.
"""
from __future__ import annotations

LINE_CHARS = 140        # one note's line, all told (the code hook's)
SUMMARY_CHARS = 60      # its summary part


def meta(conn, paths: list[str]) -> dict[str, dict]:
    """{path: {path, title, type, summary, created, updated, props, private}} for the notes in `paths`."""
    import json

    from ..core.sqlutil import rows_in

    out = {}
    for p, title, dt, typ, summ, created, updated, props, private in rows_in(
            conn, "SELECT path, title, display_title, type, summary, created, updated, props, private FROM notes"
                  " WHERE path IN ({in})", paths):
        try:
            pr = json.loads(props) if props else {}
        except ValueError:
            pr = {}
        out[p] = {"path": p, "title": dt or title, "type": typ, "summary": summ, "created": created,
                  "updated": updated, "props": pr if isinstance(pr, dict) else {}, "private": private}
    return out


def line(m: dict, state: str | None, summary: bool = True) -> str:
    """The note `m` (from `meta`) on one line: its title, type, age (core/textutil.age_phrase) and
    "changed since" when `state` is "changed", then, unless `summary` is False (a pointer), as much
    of its summary as LINE_CHARS leaves room for."""
    from ..core.fence import escape_vault_text as esc
    from ..core.textutil import CODE_CHANGED, age_phrase, clip_summary as cut, one_line

    props = m.get("props") or {}
    age = age_phrase(props.get("last_validated"), m.get("updated"), m.get("created"))
    marks = ", ".join(x for x in (esc(m.get("type") or "note"), age, CODE_CHANGED if state == "changed" else "") if x)
    title = one_line(str(m.get("title") or ""))
    stem = str(m.get("path") or "").rsplit("/", 1)[-1][:-3]
    where = "" if title == stem or not m.get("path") else f"{esc(m['path'])}; "  # a title its file name is not
    head = f"- {esc(title)} ({where}{marks})"
    room = LINE_CHARS - len(head) - 2
    s = cut(m.get("summary") or "", min(SUMMARY_CHARS, room)) if summary and room > 20 else ""
    return head + (f": {esc(s)}" if s else "")
