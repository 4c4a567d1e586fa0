"""Run every benchmark and write its section of bench/RESULTS.md (`make bench`).

    python bench/run_all.py [--evaldata DIR] [--only SCRIPT ...]

Each script can also run alone; see its docstring for the command. --evaldata (default
$MEMORY_PLUGIN_EVALDATA) is where bench/lay_evaldata.py laid the evaluation vaults; the prompt sets over
them are not measured without it.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [("bench_engine.py", []), ("bench_hooks.py", []), ("bench_coldstart.py", []), ("bench_query.py", []),
           ("bench_view.py", []), ("bench_scale.py", []), ("compare.py", []), ("reliability_summary.py", []),
           ("bench_prompt.py", []), ("bench_prompt_eval.py", [])]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run every benchmark and write its section of bench/RESULTS.md.")
    ap.add_argument("--evaldata", type=Path, default=os.environ.get("MEMORY_PLUGIN_EVALDATA"),
                    help="the folder bench/lay_evaldata.py laid the evaluation vaults in")
    ap.add_argument("--only", nargs="+", metavar="SCRIPT", choices=[s for s, _ in SCRIPTS], help="only these scripts")
    a = ap.parse_args(argv)
    env = dict(os.environ)
    if a.evaldata is not None:
        env["MEMORY_PLUGIN_EVALDATA"] = str(a.evaldata.resolve())
    failed = []
    for script, args in SCRIPTS:
        path = HERE / script
        if not path.exists() or (a.only and script not in a.only):
            continue
        print(f"== {script}", flush=True)
        r = subprocess.run([sys.executable, str(path), "--write", *args], cwd=HERE, env=env)
        if r.returncode:
            failed.append(script)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
