"""Atomic writes and locks: the only way the plugin writes a file. Paths are handled as strings:
importing pathlib costs ~16M instructions, a tenth of a file event that brings notes (claude/code_hook.py)."""
from __future__ import annotations

import contextlib
import os



def _temp_beside(path: str) -> tuple[int, str]:
    """A new temp file (mode 0600, O_EXCL) in `path`'s folder, named as mkstemp names it
    (`.NAME.xxxxxxxx.tmp`, which scan.TEMP_RE knows). Not tempfile.mkstemp itself: importing tempfile
    (shutil, random, bz2, lzma) cost each hook that writes ~12M instructions."""
    for _ in range(100):
        tmp = os.path.join(_parent(path), f".{os.path.basename(path)}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp file name beside {path}")


def _parent(path: str) -> str:
    return os.path.dirname(path) or "."


def _new_file_mode() -> int:
    """The mode a new file gets (0666 less the umask), not mkstemp's 0600."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def _replacing(path: str, mode: int, open_mode: str, durable: bool = True):
    """A temp file beside `path`, open for writing; on a clean exit it is synced (when `durable`),
    given `mode` and renamed over `path`; on any error it is removed and `path` is left as it was."""
    os.makedirs(_parent(path), exist_ok=True)
    fd, tmp = _temp_beside(path)
    try:
        text = {} if "b" in open_mode else {"encoding": "utf-8", "newline": ""}
        with os.fdopen(fd, open_mode, **text) as f:
            yield f
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write(path: str | os.PathLike, data: str | bytes, *, skip_unchanged: bool = True,
                 follow_symlinks: bool = False, new_mode: int | None = None, durable: bool = True) -> bool:
    """Write `data` to `path` via a temp file in the same directory and os.replace.

    Keeps the existing file's mode (`new_mode`, when given, is a new file's mode). Returns False when
    the content was already equal. A symlink at `path` is replaced by a plain file, unless
    `follow_symlinks`: then the file it resolves to (through any chain of links, relative or not) is
    written atomically, in its own folder, and the links stay as they were. Off by default because a
    vault's note that is a link must never lead a write out of the vault. `durable=False` skips the
    fsync: for a file whose loss in a crash costs nothing (a session's hook state), still atomic.
    """
    path = os.path.realpath(path) if follow_symlinks else os.fspath(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        st = os.stat(path)
        mode = st.st_mode & 0o7777
        if skip_unchanged and st.st_size == len(data):
            with open(path, "rb") as f:
                if f.read() == data:
                    return False
    except FileNotFoundError:
        mode = _new_file_mode() if new_mode is None else new_mode
    with _replacing(path, mode, "wb", durable) as f:
        f.write(data)
    return True


def atomic_stream(path: str | os.PathLike):
    """A text file to write piece by piece; it replaces `path` atomically when the block ends
    without an error (keeping the old file's mode), and is removed when it does not."""
    path = os.fspath(path)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = _new_file_mode()
    return _replacing(path, mode, "w")


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
