"""Fit the capture detector's weights (memory_plugin/claude/capture_weights.json: bias, weights,
threshold, read by memory_plugin/claude/capture.py) on the development sets only, and report
leave-one-set-out figures (the method: bench/eval/PROTOCOL.md).

Data: the capture sets (bench/dev/capture-dev*.yaml, each one a fold) and, as extra negatives in every
fit, the prompt sets (bench/dev/prompts-*.yaml; none of them is a capture). Never a bench/eval/ set.

Model: logistic regression over capture.features of each sentence, L2 (L2 below, bias not penalised),
fit by Newton's method (NEWTON_STEPS steps, deterministic). Multiple-instance: a capture prompt's
positive instance is its best sentence under the current weights (first round: every sentence at weight
1/n), every sentence of any other prompt is a negative; MIL_ROUNDS rounds. Threshold: on the training
prompts, the lowest probability on a 0.01 grid whose pooled precision is >= TARGET_PRECISION (the
highest recall there), ties in recall going to the higher threshold.

    python bench/fit/fit_capture.py                      # leave-one-set-out and per-set figures
    python bench/fit/fit_capture.py --write              # also write the weights file capture.py loads
    python bench/fit/fit_capture.py --capture-sets capture-dev capture-dev2 --prompt-sets prompts-til

The weights file records the sets and the commit it was fit on (`fit_on`): pass the sets back, at that
commit, to reproduce it.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from memory_plugin.claude import capture  # noqa: E402

WEIGHTS_FILE = ROOT / "memory_plugin" / "claude" / "capture_weights.json"
L2 = 0.3                 # ridge penalty on every weight (not the bias): the best leave-one-set-out of 0.1, 0.3, 1, 3
NEWTON_STEPS = 30        # Newton iterations per fit (converged well before)
MIL_ROUNDS = 5           # re-pick each capture prompt's best sentence this many times
TARGET_PRECISION = 0.95  # threshold: highest recall with pooled training precision at least this (target 0.9 + margin)


def load(capture_sets: list[Path], prompt_sets: list[Path]) -> tuple[dict[str, list[dict]], list[dict]]:
    """Each capture set one fold (named by its file stem); the prompts of the prompt sets as extra
    negatives."""
    folds = {}
    for f in capture_sets:
        folds[f.stem] = [{"id": q["id"], "prompt": q["prompt"], "y": bool(q.get("capture", q["kind"] == "capture")),
                          "corr": bool(q.get("correction"))} for q in yaml.safe_load(f.read_text())["prompts"]]
    extra = []
    for f in prompt_sets:
        for q in yaml.safe_load(f.read_text())["prompts"]:
            extra.append({"id": q["id"], "prompt": q["prompt"], "y": bool(q.get("capture", q["kind"] == "capture")),
                          "corr": False})
    for q in [q for qs in folds.values() for q in qs] + extra:
        q["sents"] = capture.prompt_features(q["prompt"], exhaustive=True) or [{}]
    return folds, extra


def sets(dev: Path, pattern: str, names: list[str] | None) -> list[Path]:
    """The files of `dev` named (by stem), or every one matching `pattern` when none are."""
    if names is None:
        return sorted(dev.glob(pattern))
    missing = [n for n in names if not (dev / f"{n}.yaml").is_file()]
    if missing:
        raise SystemExit(f"no {', '.join(n + '.yaml' for n in missing)} in {dev}")
    return [dev / f"{n}.yaml" for n in names]


def _z(f: dict, w: list[float], index: dict[str, int]) -> float:
    return w[0] + sum(w[index[n]] for n in f if n in index)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        piv = m[c][c]
        for r in range(n):
            if r != c and m[r][c]:
                k = m[r][c] / piv
                for j in range(c, n + 1):
                    m[r][j] -= k * m[c][j]
    return [m[i][n] / m[i][i] for i in range(n)]


def _newton(inst: list[tuple[dict, float, float]], names: list[str]) -> list[float]:
    index = {n: i + 1 for i, n in enumerate(names)}
    d = len(names) + 1
    w = [0.0] * d
    for _ in range(NEWTON_STEPS):
        g = [0.0] * d
        h = [[0.0] * d for _ in range(d)]
        for f, y, sw in inst:
            p = 1.0 / (1.0 + math.exp(-max(-60, min(60, _z(f, w, index)))))
            cols = [0] + [index[n] for n in f if n in index]
            r = sw * (p - y)
            q = sw * p * (1 - p)
            for i in cols:
                g[i] += r
                for j in cols:
                    h[i][j] += q
        for i in range(1, d):
            g[i] += L2 * w[i]
            h[i][i] += L2
        h[0][0] += 1e-9
        step = _solve(h, g)
        w = [wi - si for wi, si in zip(w, step)]
    return w


def fit(prompts: list[dict]) -> tuple[float, dict[str, float]]:
    names = list(capture._NAMES)
    index = {n: i + 1 for i, n in enumerate(names)}
    w = None
    for _ in range(MIL_ROUNDS):
        inst = []
        for q in prompts:
            if not q["y"]:
                inst += [(f, 0.0, 1.0) for f in q["sents"]]
            elif w is None:
                inst += [(f, 1.0, 1.0 / len(q["sents"])) for f in q["sents"]]
            else:
                inst.append((max(q["sents"], key=lambda f: _z(f, w, index)), 1.0, 1.0))
        w = _newton(inst, names)
    return w[0], {n: round(w[index[n]], 3) for n in names}


def score(q: dict, bias: float, weights: dict[str, float]) -> float:
    return max(capture.probability(f, weights, bias) for f in q["sents"])


def pr(prompts: list[dict], bias: float, weights: dict[str, float], t: float) -> tuple[float | None, float | None, int, int, int]:
    tp = fp = fn = 0
    for q in prompts:
        hit = score(q, bias, weights) >= t
        tp += hit and q["y"]
        fp += hit and not q["y"]
        fn += (not hit) and q["y"]
    return (tp / (tp + fp) if tp + fp else None), (tp / (tp + fn) if tp + fn else None), tp, fp, fn


def threshold(prompts: list[dict], bias: float, weights: dict[str, float]) -> float:
    scored = [(score(q, bias, weights), q["y"]) for q in prompts]
    best = (-1.0, 0.5)
    for k in range(5, 96):
        t = k / 100
        tp = sum(1 for s, y in scored if s >= t and y)
        fp = sum(1 for s, y in scored if s >= t and not y)
        pos = sum(1 for _, y in scored if y)
        if tp + fp and tp / (tp + fp) >= TARGET_PRECISION and tp / pos >= best[0]:
            best = (tp / pos, t)  # >= : a tie in recall goes to the higher threshold
    return best[1]


def fmt(p, r, tp, fp, fn) -> str:
    f = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    return f"P {f(p)} R {f(r)} (TP {tp} FP {fp} FN {fn})"


def weights_data(bias: float, weights: dict[str, float], threshold: float,
                 capture_sets: list[str], prompt_sets: list[str], commit: str) -> dict:
    """The weights file's content: what capture.py reads (bias, threshold, weights heaviest first) and
    what the fit saw (`fit_on`: the sets, and the commit whose features it fit; features change, so a
    refit at a later commit may differ)."""
    return {"bias": round(bias, 3), "threshold": round(threshold, 2),
            "weights": dict(sorted(weights.items(), key=lambda kv: -kv[1])),
            "fit_on": {"capture_sets": capture_sets, "prompt_sets": prompt_sets, "commit": commit}}


def write_weights(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", type=Path, default=ROOT / "bench" / "dev", help="folder of the dev sets")
    ap.add_argument("--capture-sets", nargs="+", metavar="NAME", help="capture sets by file stem (default: every capture-dev*.yaml)")
    ap.add_argument("--prompt-sets", nargs="+", metavar="NAME", help="prompt sets by file stem (default: every prompts-*.yaml)")
    ap.add_argument("--write", action="store_true", help="write the weights to --out")
    ap.add_argument("--out", type=Path, default=WEIGHTS_FILE, help="the weights file (default: the one capture.py loads)")
    ap.add_argument("--errors", action="store_true", help="list the dev prompts the all-data fit gets wrong")
    a = ap.parse_args(argv)
    capture_sets = sets(a.dev, "capture-dev*.yaml", a.capture_sets)
    prompt_sets = sets(a.dev, "prompts-*.yaml", a.prompt_sets)
    folds, extra = load(capture_sets, prompt_sets)
    print("leave-one-set-out (fit on the other capture sets + prompt sets, threshold on them):")
    ps, rs = [], []
    for held in folds:
        train = [q for k, qs in folds.items() if k != held for q in qs] + extra
        b, w = fit(train)
        t = threshold(train, b, w)
        res = pr(folds[held], b, w, t)
        ps.append(res[0] or 0.0)
        rs.append(res[1] or 0.0)
        print(f"  {held:14s} t={t:.2f}  {fmt(*res)}")
    print(f"  mean P {sum(ps) / len(ps):.3f}  mean R {sum(rs) / len(rs):.3f}  min P {min(ps):.3f}")
    allp = [q for qs in folds.values() for q in qs] + extra
    b, w = fit(allp)
    t = threshold(allp, b, w)
    print(f"all dev data: bias {b:.3f}, threshold {t:.2f}")
    for k, qs in folds.items():
        print(f"  {k:14s} {fmt(*pr(qs, b, w, t))}")
    _, _, _, fp, _ = pr(extra, b, w, t)
    print(f"  prompt sets: {fp} of {len(extra)} flagged ({fp / len(extra):.1%})")
    if a.errors:
        for k, qs in list(folds.items()) + [("prompts", extra)]:
            for q in qs:
                s = score(q, b, w)
                if (s >= t) != q["y"]:
                    print(f"  {k} {q['id']} y={q['y']} p={s:.2f}: {q['prompt'][:100]!r}")
    if a.write:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
        write_weights(a.out, weights_data(b, w, t, [f.stem for f in capture_sets], [f.stem for f in prompt_sets], commit))
        print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
