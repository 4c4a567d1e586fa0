"""fsutil.file_lock: on Unix the flock(2) lock filelock.FileLock takes, without importing filelock
(Flock); the two exclude each other, within a process and across processes; filelock where flock is
missing (Windows, a filesystem without it)."""
from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import time

import pytest
from filelock import FileLock, Timeout

from memory_plugin.core import fsutil

pytestmark = pytest.mark.skipif(os.name != "posix", reason="Flock is the Unix lock")


def test_flock_and_filelock_exclude_each_other(tmp_path):
    p = str(tmp_path / "vault.lock")
    ours = fsutil.file_lock(p, timeout=0)
    assert isinstance(ours, fsutil.Flock)
    with ours:
        with pytest.raises(Timeout):
            FileLock(p, timeout=0).acquire()
    theirs = FileLock(p, timeout=0)
    with theirs:
        with pytest.raises(fsutil.LockTimeout):
            fsutil.file_lock(p, timeout=0).acquire()
        t = time.monotonic()
        with pytest.raises(fsutil.lock_timeouts()):
            fsutil.file_lock(p, timeout=0.3).acquire()
        assert time.monotonic() - t >= 0.3
    with fsutil.file_lock(p, timeout=0):  # released: free again
        pass


def test_a_lock_held_by_another_process_is_waited_for(tmp_path):
    p = str(tmp_path / "index.lock")
    code = ("import sys, time; from memory_plugin.core.fsutil import file_lock\n"
            "with file_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(0.6)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, p], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(Timeout):
            FileLock(p, timeout=0).acquire()
        with pytest.raises(fsutil.LockTimeout):
            fsutil.file_lock(p, timeout=0.1).acquire()
        t = time.monotonic()
        with fsutil.file_lock(p, timeout=-1):  # waits for the holder's exit
            assert time.monotonic() - t > 0.1
    finally:
        proc.wait(10)


def test_reentrant_per_object_and_the_file_stays(tmp_path):
    p = str(tmp_path / "sub" / "x.lock")
    os.makedirs(os.path.dirname(p))
    lk = fsutil.file_lock(p, timeout=0)
    lk.acquire()
    lk.acquire()
    lk.release()
    assert lk.is_locked
    with pytest.raises(Timeout):
        FileLock(p, timeout=0).acquire()
    lk.release()
    assert not lk.is_locked
    FileLock(p, timeout=0).acquire()  # free (and released when that object goes)
    mask = os.umask(0)
    os.umask(mask)
    assert os.path.isfile(p) and stat.S_IMODE(os.stat(p).st_mode) == 0o644 & ~mask


def test_a_lock_object_dropped_while_held_releases(tmp_path):
    p = str(tmp_path / "x.lock")
    lk = fsutil.file_lock(p, timeout=0)
    lk.acquire()
    del lk
    with fsutil.file_lock(p, timeout=0):
        pass


@pytest.mark.filterwarnings("ignore:flock not supported:UserWarning")  # filelock says what it falls back to
def test_a_filesystem_without_flock_gets_filelock(tmp_path, monkeypatch):
    import fcntl

    real = fcntl.flock

    def no_flock(fd, op):
        raise OSError(errno.ENOSYS, "Function not implemented")

    p = str(tmp_path / "x.lock")
    lk = fsutil.file_lock(p, timeout=0)
    monkeypatch.setattr(fcntl, "flock", no_flock)
    delegated = []
    monkeypatch.setattr("filelock.FileLock", lambda path, timeout: delegated.append(path) or FileLock(
        str(tmp_path / "soft.lock"), timeout=timeout))
    with lk:
        assert lk.is_locked and delegated == [p]
    assert not lk.is_locked
    monkeypatch.setattr(fcntl, "flock", real)


def test_other_flock_errors_are_raised(tmp_path, monkeypatch):
    import fcntl

    def bad(fd, op):
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(fcntl, "flock", bad)
    with pytest.raises(OSError) as e:
        fsutil.file_lock(str(tmp_path / "x.lock"), timeout=0).acquire()
    assert e.value.errno == errno.EBADF


def test_without_fcntl_the_lock_is_filelock(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "fcntl", None)  # as on Windows: `import fcntl` fails
    lk = fsutil.file_lock(tmp_path / "x.lock", timeout=0)
    assert isinstance(lk, FileLock)
    with lk:
        pass


def test_a_remember_never_imports_filelock(vault, tmp_path):
    from conftest import run_cli

    assert run_cli("--vault", str(vault), "--cache-dir", str(tmp_path / "c"), "rebuild").returncode == 0
    code = ("import sys, atexit; from memory_plugin.__main__ import main; rc = main(sys.argv[1:]); "
            "assert 'filelock' not in sys.modules, 'filelock imported'; sys.exit(rc)")
    r = subprocess.run([sys.executable, "-c", code, "--vault", str(vault), "--cache-dir", str(tmp_path / "c"),
                        "remember", "--type", "learning", "--title", "Kites", "--summary",
                        "Kites fly best in steady wind.", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
