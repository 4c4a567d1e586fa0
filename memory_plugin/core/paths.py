"""Which files belong to the vault: shared by the scanner and the hooks (standard library only)."""
from __future__ import annotations

import fnmatch
import os
import re
TYPE_CHECKING = False  # importing typing costs every hook a few ms
if TYPE_CHECKING:
    from typing import Callable


def is_excluded(rel: str, excludes: list[str]) -> bool:
    """Dot-folders and dot-files, and configured folders or glob patterns (vault-relative)."""
    return excluder(excludes)(rel)


def excluder(excludes: list[str]) -> Callable[[str], bool]:
    """is_excluded for one list of excludes, with the patterns compiled once (the scan asks this
    of every file in the vault)."""
    pats = [ex.strip("/") for ex in excludes if ex.strip("/")]
    prefixes = tuple(p + "/" for p in pats)
    exact = frozenset(pats)
    globs = [re.compile(fnmatch.translate(os.path.normcase(p))).match for p in pats if _GLOB_CHARS.search(p)]

    def excluded(rel: str) -> bool:
        if rel.startswith(".") or "/." in rel:
            return True
        if rel in exact or rel.startswith(prefixes):
            return True
        return any(g(os.path.normcase(rel)) for g in globs)
    return excluded


_GLOB_CHARS = re.compile(r"[*?\[]")


def real_rel(root_real: str, path: str) -> str | None:
    """Where `path` really is, relative to the vault's real root `root_real` ("" for the root
    itself); None when its real location is outside the vault.

    The one rule for symlinks inside the vault: a file is the note at its real path. A symlink
    (to a file or a folder) whose real path is inside the vault is an alias: the scan skips it,
    since the real path is walked anyway, and a hook maps a path through it to the real path.
    So rebuild, sync and PostToolUse know each file under one name only."""
    full = os.path.realpath(path)
    if full == root_real:
        return ""
    if not full.startswith(root_real + os.sep):
        return None
    return os.path.relpath(full, root_real).replace(os.sep, "/")


def vault_rel(vault: str | os.PathLike, path: str, excludes: list[str]) -> str | None:
    """The vault-relative POSIX path of `path` (absolute, or relative to the vault) when its real
    location lies inside the vault and outside excluded folders; else None (see real_rel)."""
    root = os.path.realpath(vault)
    rel = real_rel(root, path if os.path.isabs(path) else os.path.join(root, path))
    if not rel or is_excluded(rel, excludes):
        return None
    return rel


def _git_dir(top: str) -> str | None:
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    try:  # a worktree or submodule: `.git` is a file "gitdir: PATH"
        with open(dot, encoding="utf-8", errors="replace") as f:
            line = f.read(4096).strip()
    except OSError:
        return None
    if line.startswith("gitdir:"):
        d = line[7:].strip()
        return os.path.normpath(os.path.join(top, d))
    return None


def git_top(path: str) -> str | None:
    """The top-level folder of the git checkout `path` lies in (at or above it), or None."""
    probe = os.path.abspath(path)
    for _ in range(64):
        if _git_dir(probe):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent
    return None
