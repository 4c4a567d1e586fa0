"""Memory in the moment (issue 29): `../shared/eval/codemem/replay.py` on each set, one row per set.

replay.py drives scripted sessions (prompts, reads, edits, code changes) through the hooks `install`
registers and counts what reached Claude and when; it never judges. Lay each set's repository first
(its README: `fetch`, then `git archive` at the set's commit).

    .venv/bin/python bench/bench_codemem.py --set starlette=../shared/eval/codemem/starlette:REPO \\
        --set chi=bench/dev/codemem/chi:REPO [--write]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

from common import EXE, ROOT, load_avg, machine, publish

REPLAY = ROOT.parent / "shared" / "eval" / "codemem" / "replay.py"
COLUMNS = (("prompt_answerable", "prompts answered"), ("prompt_ordinary_quiet", "ordinary quiet"),
           ("file_cited", "cited-file notes"), ("file_uncited_quiet", "uncited quiet"),
           ("stale_flagged", "changed flagged"), ("valid_not_flagged", "unchanged unflagged"),
           ("delivered_when_needed", "brought when needed"))


def frac(v) -> str:
    a, b = v
    return f"{a}/{b}" + (f" ({a / b:.2f})" if b else "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", required=True, help="NAME=SET_DIR:REPO_DIR")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    rows = []
    for spec in a.set:
        name, rest = spec.split("=", 1)
        set_dir, repo = rest.rsplit(":", 1)
        with tempfile.TemporaryDirectory(prefix="codemem-") as work:
            p = subprocess.run([sys.executable, str(REPLAY), EXE, set_dir, "--repo", repo, "--work", work, "--json"],
                               capture_output=True, text=True, timeout=3600)
        if p.returncode:
            sys.exit(f"{name}: replay failed: {p.stderr.strip()[-300:]}")
        r = json.loads(p.stdout.strip().splitlines()[-1])
        rows.append(f"| {name} | " + " | ".join(frac(r[k]) for k, _ in COLUMNS)
                    + f" | {r['tokens_per_event']} | {r['brief_tokens']} | {len(r['private_leaks'])} |")
    lines = ["## Memory in the moment (issue 29)", "",
             f"replay.py through the installed hooks (prompt recall as configured by the set's replay); {machine()}; "
             f"load {load_avg()}.", "`.venv/bin/python bench/bench_codemem.py --set NAME=SET:REPO ... --write`", "",
             "| set | " + " | ".join(t for _, t in COLUMNS) + " | tokens/event | brief tokens | private leaks |",
             "|---" * (len(COLUMNS) + 4) + "|", *rows, "",
             "Targets: answered ≥ 0.8, ordinary quiet ≥ 0.9, cited-file notes ≥ 0.9, uncited quiet ≥ 0.95, changed "
             "flagged ≥ 0.9 and unchanged never, brought when needed ≥ 0.75, ≤ 30 tokens/event, no private note."]
    publish("codemem", lines, a.write)


if __name__ == "__main__":
    main()
