"""Hook benchmarks (issue 3): each hook as a whole process at 1k/10k/100k notes, median and p95 of
>= 20 runs, with the ratio to a bare `python -c pass` measured in the same run.

    .venv/bin/python bench/bench_hooks.py [--sizes 1000,10000,100000] [--runs 20] [--write]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from common import EXE, OUT, load_avg, machine, median, p95, publish, timed, vault

LOADS: dict[int, str] = {}


def _wait_idle(cache) -> None:
    """Let the detached sync that SessionStart starts finish, so it does not slow the next run."""
    from filelock import FileLock, Timeout

    time.sleep(0.05)
    for _ in range(600):
        busy = subprocess.run(["pgrep", "-f", "memory_plugin hook worker"], capture_output=True).returncode == 0
        if not busy:
            try:
                with FileLock(str(cache / "index.lock"), timeout=0):
                    return
            except Timeout:
                pass
        time.sleep(0.1)


def bench_size(n: int, runs: int, work) -> dict:
    v = vault(n)
    cache = OUT / f"hookcache-{n}"
    env = {"MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    subprocess.run([EXE, "rebuild"], env={**os.environ, **env}, check=True, capture_output=True)
    notes = sorted(p for p in v.rglob("*.md") if ".groundtruth" not in p.parts and "journal" not in p.parts)
    target = notes[len(notes) // 3]
    original = target.read_bytes()
    res: dict[str, list[float]] = {"session-start": [], "post-tool-use (vault note)": [],
                                   "post-tool-use (other file)": [], "session-end": []}
    start = load_avg()
    try:
        for i in range(runs):
            w, _ = timed([EXE, "hook", "session-start"], env=env,
                         input=json.dumps({"session_id": f"b{i}", "source": "startup", "cwd": str(work)}))
            res["session-start"].append(w)
            _wait_idle(cache)
            target.write_bytes(original + f"\nbench edit {i} [[Bench {i}]]\n".encode())
            w, _ = timed([EXE, "hook", "post-tool-use"], env=env,
                         input=json.dumps({"session_id": f"b{i}", "tool_name": "Edit",
                                           "tool_input": {"file_path": str(target)}}))
            res["post-tool-use (vault note)"].append(w)
            w, _ = timed([EXE, "hook", "post-tool-use"], env=env,
                         input=json.dumps({"session_id": f"b{i}", "tool_name": "Write",
                                           "tool_input": {"file_path": str(work / "main.py")}}))
            res["post-tool-use (other file)"].append(w)
            w, _ = timed([EXE, "hook", "session-end"], env=env,
                         input=json.dumps({"session_id": f"b{i}", "reason": "other", "cwd": str(work)}))
            res["session-end"].append(w)
    finally:
        target.write_bytes(original)
        for p in (v / "journal").glob("*.md"):
            p.unlink()
    LOADS[n] = f"{start}–{load_avg()}"
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    work = OUT / "project-bench"
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",")]
    results = {n: bench_size(n, a.runs, work) for n in sizes}
    base = [timed([sys.executable, "-c", "pass"])[0] for _ in range(a.runs)]
    b = median(base)
    budgets = {"session-start": 0.050, "post-tool-use (vault note)": 0.150,
               "post-tool-use (other file)": 0.030, "session-end": 0.150}
    lines = ["## Hooks (issue 3)", "", f"Machine: {machine()}", "",
             f"Command: `.venv/bin/python bench/bench_hooks.py --sizes {a.sizes} --runs {a.runs} --write` "
             f"(each hook a whole process through the installed `memory-plugin` console script (package bytecode compiled, as pip does), JSON on stdin; "
             f"median and p95 of {a.runs} runs; bare `{os.path.basename(sys.executable)} -c pass` in the same run: "
             f"median {b * 1000:.1f} ms).", "",
             "| hook | budget | " + " | ".join(f"{n:,} notes median / p95" for n in sizes) +
             f" | ×bare python at {sizes[min(1, len(sizes) - 1)]:,} | {sizes[-1]:,}/{sizes[0]:,} |",
             "|---|---|" + "---|" * len(sizes) + "---|---|"]
    mid = sizes[min(1, len(sizes) - 1)]
    for hook, budget in budgets.items():
        cells = [f"{median(results[n][hook]) * 1000:.0f} / {p95(results[n][hook]) * 1000:.0f} ms" for n in sizes]
        ratio = median(results[mid][hook]) / b
        growth = median(results[sizes[-1]][hook]) / median(results[sizes[0]][hook])
        lines.append(f"| {hook} | ≤ {budget * 1000:.0f} ms | " + " | ".join(cells) + f" | {ratio:.1f}× | {growth:.2f} |")
    lines += ["", "Load average (1 min) at the start and end of each size (the machine is shared): "
              + ", ".join(f"{n:,} notes {LOADS[n]}" for n in sizes) + "."]
    publish("hooks", lines, a.write)


if __name__ == "__main__":
    main()
