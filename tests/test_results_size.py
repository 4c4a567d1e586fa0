"""bench/RESULTS.md and bench/eval/PROTOCOL.md stay readable: each under 40 KB, with no label of the
team's work sessions and no folder of one machine. The two quality benchmarks with the largest
output write one summary row per set, not a table per set: their next `--write` must not push
RESULTS.md back over the bound, so their sections are rendered here from synthetic data (no eval
run) and from the figures RESULTS.md holds now (the layout there is the one the scripts write)."""
from __future__ import annotations

import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import bench_prompt_eval  # noqa: E402
import bench_retrieval  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
PROTOCOL = ROOT / "bench" / "eval" / "PROTOCOL.md"
MAX_BYTES = 40_960
# A section of one script: the whole file holds about twenty of them
SECTION_MAX_BYTES = 8_192
SESSION_LABEL = re.compile(r"\bsessions? \d+\b|\bs\d+-[a-z]", re.I)
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|home|root|tmp)/")


def _block(name: str) -> str:
    text = RESULTS.read_text(encoding="utf-8")
    m = re.search(rf"<!-- {name}:start -->\n(.*?)\n<!-- {name}:end -->", text, re.S)
    assert m, f"no {name} block in RESULTS.md"
    return m.group(1)


@pytest.mark.parametrize("path", [RESULTS, PROTOCOL], ids=lambda p: p.name)
def test_size_bound(path):
    assert path.stat().st_size <= MAX_BYTES, f"{path.name}: {path.stat().st_size} bytes > {MAX_BYTES}"


@pytest.mark.parametrize("path", [RESULTS, PROTOCOL], ids=lambda p: p.name)
def test_no_session_label_or_machine_path(path):
    text = path.read_text(encoding="utf-8")
    assert not SESSION_LABEL.findall(text), SESSION_LABEL.findall(text)[:5]
    assert not MACHINE_PATH.findall(text), [ln for ln in text.splitlines() if MACHINE_PATH.search(ln)][:5]


def test_the_patterns_catch_what_they_forbid():
    # the forbidden label is assembled here so that this file does not hold one itself
    assert SESSION_LABEL.search("measured in " + "session" + " 12")
    assert SESSION_LABEL.search("the " + "s" + "12-retrieval run")
    assert MACHINE_PATH.search("over `/home/user/evaldata/dnd-srd/vault`")
    assert not SESSION_LABEL.search("each prompt is the first of a fresh session, 20 prompts")
    assert not MACHINE_PATH.search("`../shared/eval/dendron/vault`, bench/eval/foam-docs")


# ---------------------------------------------------------------- retrieval

KINDS = ["overall", "exact", "paraphrase", "multi-hop", "temporal", "entity", "negative"]
SYSTEMS = ["query", "lexical", "semantic", "baseline"]


def _retrieval_summary(n: int) -> dict:
    per = {s: {"r1": 0.5, "r5": 0.75, "mrr": 0.625, "none": 0.5, "kept": 0.9} for s in SYSTEMS}
    return {k: {"n": n if k == "overall" else 6, **per} for k in KINDS}


def test_retrieval_section_is_one_row_per_set():
    names = [f"set-{i:02d}" for i in range(25)]
    measured = [(name, "held-out", _retrieval_summary(40), 4.25) for name in names]
    text = bench_retrieval.section("host: 2 cores", "abc1234", measured, ["unlaid"])
    assert len(text.encode()) <= SECTION_MAX_BYTES, len(text.encode())
    rows = [ln for ln in text.splitlines() if ln.startswith("| set-")]
    assert rows == [f"| {n} | held-out | 40 | 0.75 | 0.62 | 0.75 | 0.75 | 0.75 | 0.62 | 3/6 / 3/6 / 3/6 | 0.90 | 4.2 |"
                    for n in names]
    assert "paraphrase" not in text and "###" not in text  # no per-kind table
    assert "unlaid" in text
    # the per-kind detail is still there for stdout
    detail = bench_retrieval.detail("set-00", "held-out", "q.yaml", "v", "on",
                                    "| kind | n |\n|---|---:|\n| paraphrase | 6 |")
    assert "paraphrase" in detail


def _cell(v: str, cast=float):
    return None if v == "–" else cast(v)


def test_retrieval_section_renders_the_block_of_results_md():
    """Parse the figures of the retrieval block back into eval summaries: the script renders the same
    block, character for character."""
    block = _block("retrieval")
    machine = re.search(r"^Machine: (.*)$", block, re.M).group(1)
    commit = re.search(r"^Commit: (.*)$", block, re.M).group(1)
    measured = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if not line.startswith("| ") or len(cells) != 12 or cells[2] == "n":
            continue
        name, role, n, hr5, hmrr, lr5, sr5, br5, bmrr, negs, kept, secs = cells
        o = {"n": int(n), "query": {}, "lexical": {}, "semantic": {}, "baseline": {}}
        for system, metric, v in (("query", "r5", hr5), ("query", "mrr", hmrr), ("query", "kept", kept),
                                  ("lexical", "r5", lr5), ("semantic", "r5", sr5), ("baseline", "r5", br5),
                                  ("baseline", "mrr", bmrr)):
            if _cell(v) is not None:
                o[system][metric] = float(v)
        neg = {}
        for system, v in zip(("query", "lexical", "baseline"), negs.split(" / ")):
            if v != "–":
                got, total = map(int, v.split("/"))
                neg["n"] = total
                neg[system] = {"none": got / total}
        measured.append((name, role, {"overall": o, "negative": neg}, float(secs)))
    assert len(measured) >= 20
    assert bench_retrieval.section(machine, commit, measured, []).rstrip() == block.rstrip()


# ---------------------------------------------------------------- prompt eval

def _prompt_summary(tokens: float) -> dict:
    return {"prompts": 80, "injected": 0.25, "items": 30, "precision": 0.9, "answered": 0.6, "answered_by_hook": 0.4,
            "ordinary_injected": 0.05, "negative_injected": None, "capture_precision": 0.95, "capture_recall": 0.85,
            "tokens_per_prompt": tokens, "by_kind": {}}


def test_prompt_eval_section_is_one_row_per_set():
    results = [(f"bench/eval/prompts-set{i:02d}.yaml", {"lexical": _prompt_summary(6.04), "semantic": _prompt_summary(12.25)})
               for i in range(21)]
    lines = bench_prompt_eval.section("host: 2 cores", "abc1234", (0.4, 0.8, 1.1), results,
                                      [("bench/eval/prompts-unlaid.yaml", "no unlaid vault")])
    text = "\n".join(lines)
    assert len(text.encode()) <= SECTION_MAX_BYTES, len(text.encode())
    rows = [ln for ln in lines if ln.startswith("| prompts-set")]
    assert len(rows) == 21
    assert rows[0] == ("| prompts-set00 | blind | 80 | 0.90 / 0.90 | 0.40 / 0.40 | 0.05 / 0.05 | 0.95 / 0.85 "
                       "| 12.2 / 6.0 |")
    assert "###" not in text and "20-prompt session" not in text  # no table per set
    assert "prompts-unlaid" in text
    detail = bench_prompt_eval.detail(results[0][0], "blind", results[0][1])
    assert any("tokens added per 20-prompt session" in ln for ln in detail)


def test_prompt_eval_section_renders_the_block_of_results_md():
    block = _block("prompt-eval")
    m = re.search(r"^Machine: (.*); commit (\w+); load average ([\d.]+) / ([\d.]+) / ([\d.]+) \(", block, re.M)
    machine, commit, load = m.group(1), m.group(2), tuple(float(x) for x in m.group(3, 4, 5))
    keys = ["precision", "answered_by_hook", "ordinary_injected"]
    results = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if not line.startswith("| ") or len(cells) != 8 or cells[0] == "set":
            continue
        name, role, prompts, *pairs = cells
        sem, lex = {"prompts": int(prompts)}, {"prompts": int(prompts)}
        for k, pair in zip(keys, pairs[:3]):
            sem[k], lex[k] = (_cell(v) for v in pair.split(" / "))
        sem["capture_precision"], sem["capture_recall"] = (_cell(v) for v in pairs[3].split(" / "))
        sem["tokens_per_prompt"], lex["tokens_per_prompt"] = (_cell(v) for v in pairs[4].split(" / "))
        folder = "bench/dev" if role == "dev" else "bench/eval"
        results.append((f"{folder}/{name}.yaml", {"lexical": lex, "semantic": sem}))
    assert len(results) >= 20
    assert "\n".join(bench_prompt_eval.section(machine, commit, load, results, [])).rstrip() == block.rstrip()


def test_error_text_quoted_in_results_loses_folders():
    """compare.py and bench_engine.py quote a failed peer's error in RESULTS.md: folders of the
    machine are cut, file names and relative paths kept."""
    from common import without_folders

    got = without_folders('graphify update /tmp/memory-plugin-bench/compare-vault-1000/v failed: '
                          'File "/usr/lib/python3.11/site.py", line 3')
    assert got == 'graphify update v failed: File "site.py", line 3'
    assert not MACHINE_PATH.search(without_folders("/home/user/a/b.py and /tmp/x/y"))
    assert without_folders("bench/eval/foam-docs and ../shared/eval, 3/6") == "bench/eval/foam-docs and ../shared/eval, 3/6"
