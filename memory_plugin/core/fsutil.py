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


class LockTimeout(TimeoutError):
    """A lock not had within its timeout (catch `lock_timeouts()`: filelock's too, where it locked)."""


def lock_timeouts() -> tuple:
    """What a lock's timeout raises, to catch: LockTimeout, and filelock's Timeout where filelock
    locked (it is imported then)."""
    import sys

    fl = sys.modules.get("filelock")
    return (LockTimeout,) if fl is None else (LockTimeout, fl.Timeout)


# The errors of flock(2) on a filesystem that does not lock (some network and FUSE mounts): filelock's
# own Unix lock handles these (with a soft lock), so the lock is handed to it.
_NO_FLOCK = ("ENOSYS", "EOPNOTSUPP", "ENOTSUP", "ENOLCK")


class Flock:
    """The lock filelock.FileLock takes on Unix, flock(2) on the whole lock file (so either excludes
    the other, as the tests holding a FileLock against our commands check), taken without importing
    filelock: its import chain (logging, secrets, hashlib, platform ...) and the exit handler it
    registers cost each process that locks 30-50 ms (`remember` at 10,000 notes: bench_query.py).
    As FileLock: reentrant per object, `with` or acquire()/release(), `timeout` seconds to wait (-1
    for ever, 0 one try, polling every POLL s) then LockTimeout; the lock file is made when missing
    (mode 0644 less the umask) and never removed, so every waiter locks the one file. On a filesystem
    without flock the lock is filelock's."""

    POLL = 0.05  # seconds between tries while another process holds the lock (FileLock's poll_interval)

    def __init__(self, path: str, timeout: float = -1):
        self.lock_file, self.timeout = path, timeout
        self._fd: int | None = None
        self._count = 0
        self._other = None  # filelock.FileLock, on a filesystem without flock

    @property
    def is_locked(self) -> bool:
        return self._fd is not None or (self._other is not None and self._other.is_locked)

    def acquire(self, timeout: float | None = None) -> "Flock":
        import fcntl
        import time

        if self._other is not None:
            self._other.acquire(timeout=self.timeout if timeout is None else timeout)
            return self
        if self._fd is not None:
            self._count += 1
            return self
        timeout = self.timeout if timeout is None else timeout
        start = time.monotonic()
        # O_NONBLOCK: a FIFO put in the lock file's place must not hang the open (as filelock opens it)
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        while True:
            fd = os.open(self.lock_file, flags, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
            except OSError as e:
                import errno

                os.close(fd)
                if e.errno not in {getattr(errno, n, None) for n in _NO_FLOCK} - {None}:
                    raise
                from filelock import FileLock

                self._other = FileLock(self.lock_file, timeout=self.timeout)
                return self.acquire(timeout)
            except BaseException:
                os.close(fd)
                raise
            else:
                try:  # the file locked is still the one at the path (not replaced in between)
                    same = os.path.samestat(os.fstat(fd), os.stat(self.lock_file))
                except OSError:
                    same = False
                if same:
                    self._fd, self._count = fd, 1
                    return self
                os.close(fd)
                continue
            if 0 <= timeout <= time.monotonic() - start:
                raise LockTimeout(f"The file lock '{self.lock_file}' could not be acquired.")
            time.sleep(self.POLL)

    def release(self, force: bool = False) -> None:
        if self._other is not None:
            self._other.release(force=force)
            return
        if self._fd is None:
            return
        self._count = 0 if force else self._count - 1
        if self._count > 0:
            return
        import fcntl

        fd, self._fd = self._fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> "Flock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self) -> None:
        self.release(force=True)


def file_lock(path: str | os.PathLike, timeout: float = -1):
    """An exclusive lock on the file `path`: a Flock where flock(2) exists (Unix), else (Windows) a
    filelock.FileLock, imported only there."""
    if os.name == "posix":
        try:
            import fcntl  # noqa: F401 - present on every Unix CPython; checked, not assumed
        except ImportError:
            pass
        else:
            return Flock(os.fspath(path), timeout)
    from filelock import FileLock

    return FileLock(os.fspath(path), timeout=timeout)


VAULT_LOCK = "vault.lock"


def vault_lock(cache_dir: str | os.PathLike, timeout: float = 30):
    """The one lock for writing the vault's files: journal appends and every note the commands write
    (remember, --merge, supersede, reorganize ...) take it, so no writer's change is lost to another's.
    Held only for a read-modify-write, never while indexing."""
    os.makedirs(cache_dir, exist_ok=True)
    return file_lock(os.path.join(cache_dir, VAULT_LOCK), timeout=timeout)
