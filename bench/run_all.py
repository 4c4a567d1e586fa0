"""Run every benchmark and write its section of bench/RESULTS.md (`make bench`).

Each script can also run alone; see its docstring for the command.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [("bench_engine.py", []), ("bench_hooks.py", []), ("bench_coldstart.py", []), ("bench_query.py", []),
           ("bench_view.py", []), ("bench_scale.py", []), ("compare.py", []), ("reliability_summary.py", []),
           ("bench_prompt.py", []), ("bench_prompt_eval.py", [])]


def main() -> int:
    failed = []
    for script, args in SCRIPTS:
        path = HERE / script
        if not path.exists():
            continue
        print(f"== {script}", flush=True)
        r = subprocess.run([sys.executable, str(path), "--write", *args], cwd=HERE)
        if r.returncode:
            failed.append(script)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
