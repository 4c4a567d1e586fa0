"""Which files belong to the vault: shared by the scanner and the hooks (standard library only)."""
from __future__ import annotations

import fnmatch
import os


def is_excluded(rel: str, excludes: list[str]) -> bool:
    """Dot-folders and dot-files, and configured folders or glob patterns (vault-relative)."""
    parts = rel.split("/")
    if any(p.startswith(".") for p in parts):
        return True
    for ex in excludes:
        ex = ex.strip("/")
        if not ex:
            continue
        if rel == ex or rel.startswith(ex + "/") or fnmatch.fnmatch(rel, ex):
            return True
    return False


def vault_rel(vault: str | os.PathLike, path: str, excludes: list[str]) -> str | None:
    """The vault-relative POSIX path of `path` (absolute, or relative to the vault) when its real
    location lies inside the vault and outside excluded folders; else None."""
    root = os.path.realpath(vault)
    p = path if os.path.isabs(path) else os.path.join(root, path)
    full = os.path.realpath(p)
    if not full.startswith(root + os.sep):
        return None
    rel = os.path.relpath(full, root).replace(os.sep, "/")
    if is_excluded(rel, excludes):
        return None
    return rel
