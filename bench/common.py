"""Shared pieces of the benchmarks: whole-process timing with peak RSS, vault generation, and
writing one section of bench/RESULTS.md."""
from __future__ import annotations

import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEN = ROOT.parent / "shared" / "bench" / "gen_vault.py"
OUT = Path(os.environ.get("MEMORY_PLUGIN_BENCH_DIR") or Path(tempfile.gettempdir()) / "memory-plugin-bench")
RESULTS = ROOT / "bench" / "RESULTS.md"
EXE = str(Path(sys.executable).parent / "memory-plugin")
# The engine, hook and peer benchmarks measure the lexical engine: the optional embedding stage (the
# semantic extra) takes minutes on a fresh vault and has its own benchmark (bench_semantic.py).
LEXICAL = {"MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}

# Measure what a user runs: a pip-installed package has its bytecode compiled, and any other install
# writes it on first use. An editable checkout under PYTHONDONTWRITEBYTECODE would recompile every
# module in every process instead (5-10 ms per hook), so compile it once here (files rewritten only
# when stale).
subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "memory_plugin")], check=True,
               env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})


def timed(cmd: list[str], *, env: dict | None = None, input: str | None = None, cwd=None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one whole process, via GNU time when present."""
    gtime = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    full_env = {**os.environ, **(env or {})}
    if gtime:
        fmt_file = OUT / f".time-{os.getpid()}"
        OUT.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        r = subprocess.run([gtime, "-f", "%M", "-o", str(fmt_file)] + cmd, input=input, capture_output=True,
                           text=True, env=full_env, cwd=cwd)
        wall = time.perf_counter() - t0
        rss = int(fmt_file.read_text().strip().splitlines()[-1]) / 1024
    else:
        t0 = time.perf_counter()
        r = subprocess.run(cmd, input=input, capture_output=True, text=True, env=full_env, cwd=cwd)
        wall, rss = time.perf_counter() - t0, float("nan")
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr[-2000:]}")
    return wall, rss


def median(xs):
    return statistics.median(xs)


def p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def vault(n: int, seed: int = 1) -> Path:
    v = OUT / f"vault-{n}"
    if not (v / ".groundtruth" / "summary.json").exists():
        subprocess.run([sys.executable, str(GEN), "--notes", str(n), "--seed", str(seed), "--out", str(v), "--force"],
                       check=True, capture_output=True)
    return v


def machine() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
                break
    except OSError:
        pass
    return (f"{platform.node() or 'host'}: {os.cpu_count()} cores ({cpu}), {mem} RAM, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}, SQLite "
            f"{__import__('sqlite3').sqlite_version}; measured {time.strftime('%Y-%m-%d %H:%M %Z')}")


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section between <!-- name:start --> and <!-- name:end -->."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    block = f"{start}\n{body.rstrip()}\n{end}"
    if start in text and end in text:
        text = re.sub(re.escape(start) + r".*?" + re.escape(end), lambda m: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    tmp = RESULTS.with_name(f".{RESULTS.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, RESULTS)



def without_folders(text: str) -> str:
    """`text` with every absolute path cut to its last part. An error message quoted in RESULTS.md
    (a peer tool that failed) names folders of the machine it ran on, which mean nothing to a reader."""
    return re.sub(r"(?<![\w.~])(?:/[^\s/:'\"`()]+)+/(?=[^\s/])", "", text)


def publish(name: str, lines: list[str], write: bool) -> None:
    """Print a benchmark's markdown section and, with --write, record it in RESULTS.md."""
    text = "\n".join(lines)
    print(text)
    if write:
        write_section(name, text)


def load_avg() -> str:
    """The 1-minute load average: the machine is shared, so every figure says how busy it was."""
    return f"{os.getloadavg()[0]:.1f}"


def cpu_probe() -> float:
    """Seconds a fixed pure-Python loop takes (median of 3): how fast this VM's CPU is right now. The
    host is shared, and under contention CPU-bound work here slows by ~50% while `python -c pass`
    (start-up, mostly I/O and page faults) does not move (0.43-0.60 s, seconds apart)."""
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        sum(range(30_000_000))
        runs.append(time.perf_counter() - t0)
    return median(runs)


def _session_pss_kb(sid: int) -> int:
    """Total PSS (shared pages split between the processes sharing them) of a process session."""
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                st = f.read()
            if int(st[st.rindex(b")") + 2:].split()[3]) != sid:
                continue
            with open(f"/proc/{d}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except (OSError, ValueError, IndexError):
            continue
    return total


def timed_tree(cmd: list[str], *, env: dict | None = None, cwd=None) -> tuple[float, float, float]:
    """Wall seconds, peak RSS of the largest process (MB, GNU time) and peak total PSS of the
    process and every worker it starts (MB, sampled every 50 ms from /proc)."""
    import threading

    gtime = shutil.which("time") or "/usr/bin/time"
    OUT.mkdir(parents=True, exist_ok=True)
    fmt_file = OUT / f".time-{os.getpid()}"
    t0 = time.perf_counter()
    p = subprocess.Popen([gtime, "-f", "%M", "-o", str(fmt_file)] + cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True)
    peak = [0]

    def sample():
        while p.poll() is None:
            peak[0] = max(peak[0], _session_pss_kb(p.pid))
            time.sleep(0.05)
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    err = p.stderr.read()
    p.wait()
    wall = time.perf_counter() - t0
    th.join()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {err[-2000:].decode(errors='replace')}")
    rss = int(fmt_file.read_text().strip().splitlines()[-1]) / 1024
    return wall, rss, peak[0] / 1024


def wait_worker(cache: Path) -> None:
    """Until no process runs in `cache` (a detached worker works from its cache dir), at most 60 s."""
    cache = os.path.realpath(cache)
    for _ in range(1200):
        busy = False
        for d in os.listdir("/proc"):
            try:
                busy = d.isdigit() and os.readlink(f"/proc/{d}/cwd") == cache
            except OSError:
                continue
            if busy:
                break
        if not busy:
            return
        time.sleep(0.05)
