"""Writing in the vault's own style: which folder a new memory goes to, and how its `project` is
written (a wikilink to the project's hub when the vault links its projects, plain text otherwise).

Project *detection* (which project the session is in) is project.py's job; this module only
decides how a given project name is written.
"""
from __future__ import annotations

import json
import os
import sqlite3

from ..core import textutil
from ..core.config import Config
from ..core.paths import is_excluded

PLURAL = {"decision": "decisions", "pitfall": "pitfalls", "pattern": "patterns", "learning": "learnings",
          "convention": "conventions"}


def _top_folders(cfg: Config) -> list[str]:
    try:
        entries = sorted(os.scandir(cfg.vault), key=lambda e: e.name)
    except OSError:
        return []
    return [e.name for e in entries if e.is_dir() and not is_excluded(e.name, cfg.exclude)]


def type_folder(cfg: Config, type_: str) -> str:
    """The vault's existing folder for `type_` (matched without case, singular or plural), else the
    configured one. A folder the user configured explicitly always wins."""
    configured = (cfg.type_folders.get(type_) or cfg.type_folders.get("note", "Inbox")).strip("/")
    folders = _top_folders(cfg)
    if configured in folders:
        return configured
    by_fold: dict[str, str] = {}
    for f in folders:
        by_fold.setdefault(textutil.fold(f), f)
    if "/" not in configured and textutil.fold(configured) in by_fold:
        return by_fold[textutil.fold(configured)]
    if "/" in configured and os.path.isdir(os.path.join(cfg.vault, configured)):
        return configured
    user_set = cfg.sources.get("type_folders", "default") != "default" and type_ in cfg.type_folders
    if not user_set and type_ in PLURAL:
        for name in (PLURAL[type_], type_):
            if name in by_fold:
                return by_fold[name]
    return configured


def same_name_on_disk(cfg: Config, folder: str, name: str) -> list[str]:
    """Files in `folder` whose name is `name`.md up to case and Unicode form (not yet indexed ones too)."""
    key = textutil.fold(name) + ".md"
    try:
        entries = os.listdir(os.path.join(cfg.vault, folder) if folder else cfg.vault)
    except OSError:
        return []
    return [f"{folder}/{e}" if folder else e for e in entries if textutil.fold(e) == key]


def _is_link(value) -> bool:
    vals = value if isinstance(value, list) else [value]
    return any(isinstance(v, str) and "[[" in v for v in vals)


def project_value(conn: sqlite3.Connection, project: str) -> str:
    """How to write `project`: `[[Hub]]` when most notes that name a project link it and a note for
    this project exists (its title or an alias is the name), else the name as given."""
    project = project.strip()
    if not project or project.startswith("[["):
        return project
    linked = plain = 0
    for (props,) in conn.execute("SELECT props FROM notes WHERE project IS NOT NULL AND private = 0"):
        value = json.loads(props or "{}").get("project")
        if _is_link(value):
            linked += 1
        elif value is not None:
            plain += 1
    if linked <= plain:
        return project
    key = textutil.fold(project)
    hubs: list[tuple[int, str]] = []
    targets = {t for (t,) in conn.execute(
        "SELECT DISTINCT target FROM links WHERE kind = 'property' AND prop = 'project' AND target IS NOT NULL")}
    for path, title, dtitle, aliases, hub in conn.execute(
            "SELECT path, title, display_title, aliases, hub FROM notes WHERE private = 0 AND type != 'journal'"):
        names = [title, dtitle, *json.loads(aliases or "[]")]
        if any(textutil.fold(str(n)) == key for n in names):
            # a note the vault already links as a project beats an authored hub beats any other
            hubs.append((0 if path in targets else 1 if hub else 2, path))
    if not hubs:
        return project
    return f"[[{link_name(conn, sorted(hubs)[0][1])}]]"


def link_name(conn: sqlite3.Connection, path: str) -> str:
    """How to write a wikilink to `path`: its name, or its path when several files share the name."""
    name = path.rsplit("/", 1)[-1][:-3]
    n = conn.execute("SELECT count(*) FROM files WHERE name_lc = ?", (textutil.fold(name) + ".md",)).fetchone()[0]
    if n > 1:
        return path[:-3]
    return name
