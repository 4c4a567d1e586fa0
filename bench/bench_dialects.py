"""How memory-plugin reads vaults in other apps' dialects: `../shared/eval/dialects/check.py` over each
set given (`NAME=EXPECT_YAML:VAULT`), one row per set, lexical mode. Marks the development sets (where
rules were tuned: bench/dev/dialects) apart from held-out ones.

    python bench/bench_dialects.py --set cams-nexus=bench/dev/dialects/cams-nexus/expect.yaml:DIR ... [--write]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from common import EXE, LEXICAL, ROOT, machine, publish

CHECK = ROOT.parent / "shared" / "eval" / "dialects" / "check.py"


def run(expect: str, vault: str) -> dict:
    # a detached worker the hooks started may still be writing there: what it leaves is not an error
    with tempfile.TemporaryDirectory(prefix="dialects-", ignore_cleanup_errors=True) as work:
        p = subprocess.run([sys.executable, str(CHECK), EXE, expect, vault, "--work", work, "--json"],
                           capture_output=True, text=True, env={**os.environ, **LEXICAL}, timeout=3600)
    if p.returncode != 0:
        raise RuntimeError(f"check.py failed on {vault}: {p.stderr[-500:]}")
    return json.loads(p.stdout)


def row(name: str, dev: bool, d: dict) -> str:
    t, s, h, pj, f, q, w, r = (d[k] for k in ("titles", "summaries", "hubs", "projects", "facts", "questions",
                                              "writes", "reorganize"))
    never = ", ".join(f"`{x}`" for x in s[2]) or "none"
    return (f"| {name}{' (dev)' if dev else ''} | {t[0]}/{t[1]} | {s[0]}/{s[1]}; {never} | {h[0]} of {h[1]}; {h[2]} |"
            f" {pj[0]}/{pj[1]} | {f[0]:.0f}/{f[1]}; {f[2]} | {q[0]:.0f}/{q[1]}; {q[2]}; {q[3]}/{q[4]} |"
            f" {w[0]}/{w[1]} | {r[0]} / {r[1]} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", default=[], metavar="NAME=EXPECT:VAULT")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    lines = ["## Vault dialects (issue 28)", "", f"Machine: {machine()}", "",
             "Command: `python bench/bench_dialects.py --set NAME=EXPECT_YAML:VAULT ... --write` "
             "(lexical; `../shared/eval/dialects/check.py` per set)", "",
             "| set | titles | summaries close; never-strings shown | hubs: owner's of listed; non-hubs |"
             " projects | facts top 5; 'Nothing' | questions top 5; 'Nothing'; negatives empty | writes |"
             " reorganize proposals / notes |",
             "|---|---|---|---|---|---|---|---|---|"]
    for spec in a.set:
        name, _, rest = spec.partition("=")
        expect, _, vault = rest.partition(":")
        dev = "bench/dev/" in expect.replace(os.sep, "/")
        lines.append(row(name, dev, run(expect, vault)))
    publish("dialects", lines, a.write)


if __name__ == "__main__":
    main()
