"""Atomic writes and locks: the only way the plugin writes a file."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

# tempfile is imported where a file is written: it costs every hook a few ms (shutil, random, bz2...)


def atomic_write(path: str | os.PathLike, data: str | bytes, *, skip_unchanged: bool = True) -> bool:
    """Write `data` to `path` via a temp file in the same directory and os.replace.

    Keeps the existing file's mode. Returns False when the content was already equal.
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    mode = None
    try:
        st = path.stat()
        mode = st.st_mode & 0o7777
        if skip_unchanged and st.st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:  # a new file gets the usual mode, not mkstemp's 0600
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return True


@contextlib.contextmanager
def atomic_stream(path: str | os.PathLike):
    """A text file to write piece by piece; it replaces `path` atomically when the block ends
    without an error (keeping the old file's mode), and is removed when it does not."""
    path = Path(path)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def file_lock(path: str | os.PathLike, timeout: float = -1):
    """A filelock.FileLock (imported lazily: hooks pay for it only when they lock)."""
    from filelock import FileLock

    return FileLock(str(path), timeout=timeout)


VAULT_LOCK = "vault.lock"


def vault_lock(cache_dir: str | os.PathLike, timeout: float = 30):
    """The one lock for writing the vault's files: journal appends and every note the commands write
    (remember, --merge, supersede, reorganize ...) take it, so no writer's change is lost to another's.
    Held only for a read-modify-write, never while indexing."""
    os.makedirs(cache_dir, exist_ok=True)
    return file_lock(os.path.join(cache_dir, VAULT_LOCK), timeout=timeout)
