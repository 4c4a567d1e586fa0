"""What the UserPromptSubmit hook adds (issue 13): `memory-plugin eval --prompts` over the blind
prompt sets (bench/eval/prompts-*.yaml, reported) and the dev sets (bench/dev/, where the hook's
constants were set), lexical and semantic side by side, into bench/RESULTS.md.

    .venv/bin/python bench/bench_prompt_eval.py [--evaldata DIR] [--write] [--detail]

The fixture and dendron sets name their vaults; the others run over EVALDATA/<set>/vault, laid out by
bench/lay_evaldata.py (--evaldata, default $MEMORY_PLUGIN_EVALDATA), and are not measured without it.
--write records one row per set in bench/RESULTS.md; --detail prints each set's full table as well
(stdout only).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from common import EXE, ROOT, machine, publish

# (prompt set, what it is, the set under --evaldata whose vault it runs over; None: the vault it names)
SETS = [("bench/eval/prompts-fixture.yaml", "blind, reported", None),
        ("bench/eval/prompts-dendron.yaml", "blind, reported", None),
        ("bench/eval/prompts-sourcegraph-handbook.yaml", "blind, reported", "sourcegraph-handbook"),
        ("bench/eval/prompts-dnd-srd.yaml", "blind, reported", "dnd-srd"),
        ("bench/eval/prompts-quickadd-docs.yaml", "blind, reported", "quickadd-docs"),
        ("bench/eval/prompts-dwarves-brain.yaml", "blind, reported", "dwarves-brain"),
        ("bench/eval/capture-test.yaml", "blind test set for capture, reported", None),
        ("bench/eval/capture-test-2.yaml", "second blind test set for capture, reported", None),
        ("bench/dev/capture-dev.yaml", "dev: capture rules set on it", None),
        ("bench/dev/capture-dev2.yaml", "dev: capture rules revised on it", None),
        ("bench/dev/capture-dev3.yaml", "dev: measured once before a last revision, then revised", None),
        ("bench/dev/capture-dev4.yaml", "dev: capture rules revised on it", None),
        ("bench/dev/capture-dev5.yaml", "dev: written before the sentence-level detector ran on it; fitted on", None),
        ("bench/dev/capture-dev6.yaml", "dev: measured once (P 0.65 R 0.69), then the detector revised and fitted on it", None),
        ("bench/dev/capture-dev7.yaml", "dev: measured once (P 0.86 R 0.93), then the weights refitted on it", None),
        ("bench/dev/capture-dev8.yaml", "dev: measured once (P 0.73 R 0.79), then the question-clause and place-word rules set on it", None),
        ("bench/dev/prompts-til.yaml", "dev: recall rule set on it", "til"),
        ("bench/dev/prompts-til2.yaml", "dev: 30 more ordinary prompts, recall rule set on it", "til"),
        ("bench/dev/prompts-til-code.yaml", "dev: ordinary prompts naming code, the named cues set on it", "til"),
        ("bench/dev/prompts-silverbullet.yaml", "dev: recall rule set on it", "silverbullet"),
        ("bench/dev/prompts-logseq.yaml", "dev: recall rule set on it", "logseq"),
        ("bench/dev/prompts-dvogt23-notes.yaml", "dev, written blind; nothing set on it yet", "dvogt23-notes")]
ROWS = [("prompts", "prompts"), ("injected", "prompts with an injection"),
        ("precision", "precision of injected items (≥ 0.85)"),
        ("answered_by_hook", "answerable prompts given an expected note (≥ 0.6)"),
        ("answered", "… or already shown by the brief"),
        ("ordinary_injected", "ordinary prompts with any injection (≤ 10%)"),
        ("negative_injected", "negative prompts with any injection"),
        ("capture_precision", "capture precision (≥ 0.9)"), ("capture_recall", "capture recall (≥ 0.8)"),
        ("tokens_per_prompt", "tokens added per prompt"),
        ("tokens_per_session", "tokens added per 20-prompt session")]
SESSION_PROMPTS = 20
HEADING = "## UserPromptSubmit recall and capture (issue 13)"
COMMAND = ("Command: `.venv/bin/python bench/bench_prompt_eval.py --write` (runs `memory-plugin eval --prompts FILE "
           "--json`; each prompt is the first of a fresh session, so the brief's notes are excluded as in the hook; "
           "ordinary and negative shares count only prompts with no expected note). Tokens = characters / 4; a "
           "session of 20 prompts costs 20 × the per-prompt figure.")
LEGEND = ("One row per set (`bench/eval/` blind and reported; `bench/dev/` development: the recall rule and the "
          "capture detector were set on these, so their figures are not results). sem = semantic, lex = lexical; "
          "capture is the same in both modes. \"–\": the set has no prompt of that kind. `--detail` prints one table "
          "per set with every figure (prompts with an injection, answerable prompts answered with the brief, "
          "negative prompts injected, tokens per session) and what each set was used for.")
# (summary key, column title): the figures with a target, semantic / lexical in one cell
COLUMNS = [("precision", "injected items precision (≥ 0.85), sem / lex"),
           ("answered_by_hook", "answerable given their note (≥ 0.6), sem / lex"),
           ("ordinary_injected", "ordinary prompts injected (≤ 10%), sem / lex")]


def _fig(v, fmt: str = ".2f") -> str:
    return "–" if v is None else format(v, fmt)


def summary_row(rel: str, res: dict) -> str:
    """One set's row, from `eval --prompts --json` ({mode: summary}); a mode not run shows "–"."""
    sem, lex = res.get("semantic", {}), res.get("lexical", {})
    cap = sem or lex  # the capture detector does not depend on the mode
    role = "dev" if rel.startswith("bench/dev/") else "blind"
    prompts = (sem or lex).get("prompts", "–")
    cells = [f"{_fig(sem.get(k))} / {_fig(lex.get(k))}" for k, _ in COLUMNS]
    cells.append(f"{_fig(cap.get('capture_precision'))} / {_fig(cap.get('capture_recall'))}")
    cells.append(f"{_fig(sem.get('tokens_per_prompt'), '.1f')} / {_fig(lex.get('tokens_per_prompt'), '.1f')}")
    return f"| {Path(rel).stem} | {role} | {prompts} | " + " | ".join(cells) + " |"


def section(machine_line: str, commit: str, load: tuple[float, float, float], results: list[tuple[str, dict]],
            missing: list[tuple[str, str]]) -> list[str]:
    """The block written to RESULTS.md: one row per set. RESULTS.md keeps every benchmark's current
    figure under 40 KB, and a table per set (~21 sets) is ~15 KB; --detail prints those instead.
    `results`: (prompt set path, `eval --prompts --json` output); `missing`: (set path, why)."""
    lines = [HEADING, "",
             f"Machine: {machine_line}; commit {commit}; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
             "(1 / 5 / 15 min; figures of a set do not depend on it).", "", COMMAND, "", LEGEND, "",
             "| set | role | prompts | " + " | ".join(t for _, t in COLUMNS)
             + " | capture P (≥ 0.9) / R (≥ 0.8) | tokens per prompt, sem / lex |",
             "|---|---|---:|" + "---|" * (len(COLUMNS) + 2)]
    lines += [summary_row(rel, res) for rel, res in results]
    if missing:
        lines += ["", "Not measured (vaults are laid out by `bench/lay_evaldata.py` under --evaldata): " + "; ".join(f"{Path(rel).stem} ({why})" for rel, why in missing) + "."]
    return lines


def detail(rel: str, what: str, res: dict) -> list[str]:
    """One set's table with every figure of each mode, for stdout."""
    res = {m: {**v, "tokens_per_session": round(v["tokens_per_prompt"] * SESSION_PROMPTS)} for m, v in res.items()}
    modes = list(res)
    lines = [f"### `{rel}` ({what})", "", "| | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for k, label in ROWS:
        cells = []
        for m in modes:
            v = res[m].get(k)
            cells.append("–" if v is None else (f"{v:.2f}" if isinstance(v, float) and not k.startswith("tokens") else str(v)))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines + [""]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="update the prompt-eval section of bench/RESULTS.md")
    ap.add_argument("--detail", action="store_true", help="also print one table per set with every figure")
    ap.add_argument("--evaldata", type=Path, default=os.environ.get("MEMORY_PLUGIN_EVALDATA"),
                    help="the folder bench/lay_evaldata.py laid the evaluation vaults in (EVALDATA/<set>/vault)")
    a = ap.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    results, missing, tables = [], [], []
    for rel, what, laid in SETS:
        path = ROOT / rel
        vault = []
        if laid is not None:
            if a.evaldata is None or not (a.evaldata / laid / "vault").is_dir():
                missing.append((rel, f"no {laid} vault"))
                continue
            vault = ["--vault", str(a.evaldata / laid / "vault")]
        r = subprocess.run([EXE, *vault, "eval", "--prompts", str(path), "--json"], capture_output=True, text=True, cwd=ROOT)
        if r.returncode != 0:
            # the error names folders of this machine: shown here, not recorded
            print(f"{rel}: eval failed: {r.stderr.strip()[:500]}", file=sys.stderr)
            missing.append((rel, "eval failed"))
            continue
        res = json.loads(r.stdout)
        results.append((rel, res))
        tables += detail(rel, what, res)
    publish("prompt-eval", section(machine(), commit, os.getloadavg(), results, missing), a.write)
    if a.detail:
        print("\n" + "\n".join(tables))


if __name__ == "__main__":
    main()
