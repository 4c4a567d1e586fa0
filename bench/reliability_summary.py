"""Run tests/reliability with counters on and print (and record) a markdown summary.

    .venv/bin/python bench/reliability_summary.py [--write | --no-write] [pytest args...]

Every test appends {"test", "key", "n"} lines to the file named by MEMORY_PLUGIN_RELIABILITY_COUNTS
(tests/reliability/rel_helpers.py: count). Keys: cases and held (rel_helpers.case: one per issue
case tried, and held when its assertions passed), operations, faults, bad_inputs, lost, leaks, and
`detail:*` observations (`detail:hostile_hook_max_ms`: the worst hook time on hostile input).
"""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, machine, write_section  # noqa: E402


def main(argv: list[str]) -> int:
    write = "--no-write" not in argv
    extra = [a for a in argv if a not in ("--no-write", "--write")]  # --write is the default
    with tempfile.TemporaryDirectory() as d:
        counts = Path(d) / "counts.jsonl"
        env = {**os.environ, "MEMORY_PLUGIN_RELIABILITY_COUNTS": str(counts)}
        load = os.getloadavg()[0]
        t0 = time.time()
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            str(ROOT / "tests" / "reliability"), *extra], cwd=ROOT, env=env,
                           capture_output=True, text=True)
        wall = time.time() - t0
        lines = [json.loads(l) for l in counts.read_text().splitlines()] if counts.exists() else []
    tail = [l for l in r.stdout.strip().splitlines() if l.strip()][-1:] or ["(no pytest output)"]
    total = collections.Counter()
    per_file: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    details: dict[str, int] = {}
    for e in lines:
        if e["key"].startswith("detail:"):
            k = e["key"][7:]
            details[k] = max(details.get(k, 0), e["n"]) if "max" in k or "per_" in k else details.get(k, 0) + e["n"]
            continue
        total[e["key"]] += e["n"]
        per_file[e["test"].split("::")[0].rsplit("/", 1)[-1]][e["key"]] += e["n"]
    keys = ("cases", "held", "operations", "faults", "bad_inputs", "lost", "leaks")
    out = ["## Reliability suite (`tests/reliability`)", "",
           f"`{' '.join(['python', 'bench/reliability_summary.py', *extra])}` — pytest: **{tail[0]}**, "
           f"{wall:.0f} s wall, load average {load:.2f} at start.", "",
           "| file | cases tried | cases held | operations | faults injected | bad inputs | entries lost | leaks |",
           "|---|---|---|---|---|---|---|---|"]
    for f in sorted(per_file):
        c = per_file[f]
        out.append(f"| {f} | " + " | ".join(str(c[k]) for k in keys) + " |")
    out.append("| **total** | " + " | ".join(f"**{total[k]}**" for k in keys) + " |")
    worst = details.pop("hostile_hook_max_ms", None)
    if worst is not None:
        out += ["", f"Worst hook time on hostile input (a 1 MB note of unclosed links, emphasis or backticks, "
                    f"a YAML alias bomb, an 800- or 990-deep property; whole process): **{worst} ms**."]
    if details:
        out += ["", "Observations: " + "; ".join(f"{k} = {v}" for k, v in sorted(details.items())) + "."]
    out += ["", f"Machine: {machine()}."]
    text = "\n".join(out)
    print(text)
    if r.returncode != 0:
        print("\n" + "\n".join(r.stdout.splitlines()[-40:]), file=sys.stderr)
    if write and r.returncode == 0:  # a failed run records nothing
        write_section("reliability", text)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
