"""Shared pieces of the reliability suite: whole-process helpers and the counters that
bench/reliability_summary.py adds up.

Counters: when MEMORY_PLUGIN_RELIABILITY_COUNTS names a file, every `count(key, n)` appends one JSON
line {"test": ..., "key": ..., "n": ...} to it. Keys: cases and held (`with case(): ...`, one per case
of an issue: tried, and held when no assertion failed), operations, faults, bad_inputs, lost, leaks,
plus free-form detail keys (`timed_hook` records `detail:hostile_hook_max_ms`).
"""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

COUNTS_ENV = "MEMORY_PLUGIN_RELIABILITY_COUNTS"
SELF_COUNTED_ENV = "MP_RELIABILITY_CASES_COUNTED"
EXE = Path(sys.executable).parent / "memory-plugin"


def count(key: str, n: int = 1) -> None:
    path = os.environ.get(COUNTS_ENV)
    if not path or not n:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"test": test, "key": key, "n": n}) + "\n")


def cli_cmd(*args: str) -> list[str]:
    return [str(EXE), *args] if EXE.exists() else [sys.executable, "-m", "memory_plugin", *args]


def popen(*args: str, env: dict | None = None, stdin_data: bytes | None = None, new_session: bool = True):
    p = subprocess.Popen(cli_cmd(*args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, **(env or {})}, start_new_session=new_session)
    return p


def feed(p: subprocess.Popen, data: bytes = b"") -> None:
    """Write the whole stdin and close it (so communicate() only reads)."""
    if data:
        p.stdin.write(data)
    p.stdin.close()
    p.stdin = None


def kill_group(p: subprocess.Popen) -> None:
    """SIGKILL the process we started and everything in its session (rebuild workers)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
    for f in (p.stdin, p.stdout, p.stderr):
        if f:
            f.close()


def has_command(name: str) -> bool:
    r = subprocess.run(cli_cmd(name, "--help"), capture_output=True, text=True)
    return r.returncode == 0


def snap(cache_dir: Path) -> dict:
    from memory_plugin.index import store as I

    conn = I.connect(cache_dir / "index.sqlite")
    try:
        return I.snapshot(conn)
    finally:
        conn.close()


def integrity_ok(db: Path) -> bool:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def fresh_snapshot(vault: Path, tmp: Path) -> dict:
    """What a rebuild from scratch says about the vault now (own cache dir)."""
    from memory_plugin.index import store as I
    from memory_plugin.core.config import load_config

    cfg = load_config(vault=vault, cache_dir=tmp)
    I.rebuild(cfg)
    return snap(Path(tmp))


def held_locks(cache_dir: Path, names=("index.lock", "outputs.lock", "vault.lock", "pending.lock",
                                       "errors.lock")) -> list[str]:
    """The locks in the cache dir that cannot be taken at once (should be none)."""
    from filelock import FileLock, Timeout

    held = []
    for n in names:
        lk = FileLock(str(cache_dir / n), timeout=0)
        try:
            lk.acquire()
            lk.release()
        except Timeout:
            held.append(n)
    return held


def wait_idle(cache_dir: Path, timeout: float = 60) -> bool:
    """Wait until no detached worker holds the index or outputs lock for a whole second."""
    end = time.time() + timeout
    free_since = None
    while time.time() < end:
        if not held_locks(cache_dir, ("index.lock", "outputs.lock")):
            free_since = free_since or time.time()
            if time.time() - free_since >= 1.0:
                return True
        else:
            free_since = None
        time.sleep(0.05)
    return False


def run_bytes(*args: str, data: bytes = b"", env: dict | None = None, timeout: float = 60):
    """The executable as a whole process with raw bytes on stdin; stdout/stderr decoded leniently."""
    r = subprocess.run(cli_cmd(*args), input=data, capture_output=True, env={**os.environ, **(env or {})},
                       timeout=timeout)
    return subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode("utf-8", "replace"),
                                       r.stderr.decode("utf-8", "replace"))


class case:
    """One case of the reliability table: counted as tried on entry, as held when its block ends
    without an assertion failing (`with case(): ...`)."""

    def __init__(self, n: int = 1):
        self.n = n

    def __enter__(self):
        count("cases", self.n)
        os.environ[SELF_COUNTED_ENV] = "1"  # tests/conftest.py then does not count the test as one case
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            count("held", self.n)
        return False


def timed_hook(*args: str, data: bytes = b"", env: dict | None = None, timeout: float = 60):
    """A hook (or any command) as a whole process; its wall time is recorded as the worst hook time
    on hostile input when it is the slowest so far."""
    t0 = time.perf_counter()
    r = run_bytes(*args, data=data, env=env, timeout=timeout)
    count("detail:hostile_hook_max_ms", int((time.perf_counter() - t0) * 1000))
    return r
