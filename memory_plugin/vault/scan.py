"""The scan stage: find a vault's files (notes, attachments, link targets under excluded folders)
the way Obsidian sees them, without reading them. Parsing each note is the next stage (`notes`)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.paths import excluder, real_rel


@dataclass
class VaultFile:
    path: str
    abspath: str
    mtime_ns: int
    size: int


# The temp file fsutil.atomic_write writes next to a note (`.Title.md.k3j9x_2a.tmp`, mkstemp's 8
# characters): one that a killed writer left behind is removed by the next sync.
TEMP_RE = re.compile(r"\..+\.md\.[a-z0-9_]{8}\.tmp", re.I)


def walk_vault(root: Path, excludes: list[str], warnings: list[tuple[str, str, str]] | None = None,
               skip_dirs: tuple[str, ...] = (), targets_only: list[str] | None = None,
               temps: list[str] | None = None) -> tuple[dict[str, VaultFile], list[str]]:
    """-> ({note path: VaultFile}, [attachment paths]). Dot-folders, excludes and symlinks are skipped
    (a symlink inside the vault is an alias of a path walked anyway: paths.real_rel); symlinks out of
    the vault and symlink loops are reported. Files under a configured exclude (not a dot-folder) go
    to `targets_only` when it is given: links may point to them, but they are no notes of the graph.
    Our own temp files are collected in `temps` (absolute paths) when it is given."""
    notes: dict[str, VaultFile] = {}
    is_excluded = excluder(excludes)
    attachments: list[str] = []
    warnings = warnings if warnings is not None else []
    root_real = os.path.realpath(root)
    seen_dirs = {root_real}
    skip_real = {os.path.realpath(d) for d in skip_dirs}
    stack = [(str(root), "", False)]
    while stack:
        d, rel_d, in_excluded = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError as e:
            warnings.append((rel_d or ".", "unreadable", f"folder cannot be read: {e.strerror}"))
            continue
        for e in entries:
            rel = f"{rel_d}/{e.name}" if rel_d else e.name
            if e.name.startswith("."):
                if temps is not None and TEMP_RE.fullmatch(e.name):
                    temps.append(e.path)
                continue
            excluded = in_excluded or is_excluded(rel)
            if excluded and targets_only is None:
                continue
            try:
                if e.is_symlink():
                    # paths.real_rel is the rule the hooks apply too: a note is known by its real
                    # path only, so a symlink inside the vault is never followed (its target is
                    # walked under its own name) and one outside is skipped
                    target = real_rel(root_real, e.path)
                    if not excluded:
                        if target is None:
                            warnings.append((rel, "symlink", "symlink points outside the vault: skipped"))
                        elif target == "" or rel.startswith(target + "/"):
                            warnings.append((rel, "symlink", "symlink loop: skipped"))
                        elif os.path.isdir(e.path):  # a file alias says nothing: its target may be private
                            warnings.append((rel, "symlink", "symlink to a folder inside the vault: skipped "
                                             "(its notes are read at their real path)"))
                    continue
                if e.is_dir():
                    real = os.path.realpath(e.path)
                    if real in seen_dirs:
                        if not excluded:
                            warnings.append((rel, "symlink", "symlink loop: skipped"))
                        continue
                    if real in skip_real:
                        continue
                    seen_dirs.add(real)
                    stack.append((e.path, rel, excluded))
                elif e.is_file():
                    if excluded:
                        targets_only.append(rel)
                    elif e.name.lower().endswith(".md"):
                        st = e.stat()
                        notes[rel] = VaultFile(rel, e.path, st.st_mtime_ns, st.st_size)
                    else:
                        attachments.append(rel)
            except OSError as err:
                if not excluded:
                    warnings.append((rel, "unreadable", f"cannot be read: {err.strerror}"))
    return notes, attachments
