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

from common import EXE, LEXICAL, OUT, load_avg, machine, median, p95, publish, timed, vault

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


class Size:
    """One generated vault, rebuilt, with the note the PostToolUse runs edit."""

    def __init__(self, n: int, work):
        self.n, self.work = n, work
        self.vault = vault(n)
        self.cache = OUT / f"hookcache-{n}"
        self.env = {**LEXICAL, "MEMORY_PLUGIN_VAULT": str(self.vault), "MEMORY_PLUGIN_CACHE_DIR": str(self.cache)}
        subprocess.run([EXE, "rebuild"], env={**os.environ, **self.env}, check=True, capture_output=True)
        notes = sorted(p for p in self.vault.rglob("*.md")
                       if ".groundtruth" not in p.parts and "journal" not in p.parts)
        self.target = notes[len(notes) // 3]
        self.original = self.target.read_bytes()
        self.res: dict[str, list[float]] = {"session-start": [], "post-tool-use (vault note)": [],
                                            "post-tool-use (other file)": [], "session-end": []}

    def run_once(self, i: int) -> None:
        env, work, res = self.env, self.work, self.res
        w, _ = timed([EXE, "hook", "session-start"], env=env,
                     input=json.dumps({"session_id": f"b{i}", "source": "startup", "cwd": str(work)}))
        res["session-start"].append(w)
        _wait_idle(self.cache)
        self.target.write_bytes(self.original + f"\nbench edit {i} [[Bench {i}]]\n".encode())
        w, _ = timed([EXE, "hook", "post-tool-use"], env=env,
                     input=json.dumps({"session_id": f"b{i}", "tool_name": "Edit",
                                       "tool_input": {"file_path": str(self.target)}}))
        res["post-tool-use (vault note)"].append(w)
        _wait_idle(self.cache)
        w, _ = timed([EXE, "hook", "post-tool-use"], env=env,
                     input=json.dumps({"session_id": f"b{i}", "tool_name": "Write",
                                       "tool_input": {"file_path": str(work / "main.py")}}))
        res["post-tool-use (other file)"].append(w)
        w, _ = timed([EXE, "hook", "session-end"], env=env,
                     input=json.dumps({"session_id": f"b{i}", "reason": "other", "cwd": str(work)}))
        res["session-end"].append(w)
        _wait_idle(self.cache)

    def restore(self) -> None:
        self.target.write_bytes(self.original)
        for p in (self.vault / "journal").glob("*.md"):
            p.unlink()


def bench_sizes(sizes: list[int], runs: int, work) -> dict[int, dict[str, list[float]]]:
    """Every hook at every size, the sizes interleaved run by run (1k, 100k, 1k, 100k, ...), so a
    change in the machine's load during the run falls on all sizes alike and the ratios hold."""
    vaults = [Size(n, work) for n in sizes]
    try:
        for i in range(runs):
            for s in vaults:
                s.run_once(i)
    finally:
        for s in vaults:
            s.restore()
    return {s.n: s.res for s in vaults}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    work = OUT / "project-bench"
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",")]
    start = load_avg()
    results = bench_sizes(sizes, a.runs, work)
    load = f"{start}–{load_avg()}"
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
    lines += ["", f"The sizes are interleaved run by run, so the ratios compare like with like. Load average "
              f"(1 min) at the start and end of the run: {load}."]
    publish("hooks", lines, a.write)


if __name__ == "__main__":
    main()
