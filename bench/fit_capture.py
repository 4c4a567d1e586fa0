"""Fit the capture detector's weights (memory_plugin/claude/capture.py, WEIGHTS / BIAS / THRESHOLD) on the
development sets only, and report leave-one-set-out figures (issue 13, bench/eval/PROTOCOL.md, session 5).

Data: bench/dev/capture-dev*.yaml (each one a fold) and, as extra negatives in every fit, the prompts of
bench/dev/prompts-*.yaml (none of them is a capture). Never a bench/eval/ set.

Model: logistic regression over capture.features of each sentence, L2 (L2 below, bias not penalised),
fit by Newton's method (NEWTON_STEPS steps, deterministic). Multiple-instance: a capture prompt's
positive instance is its best sentence under the current weights (first round: every sentence at weight
1/n), every sentence of any other prompt is a negative; MIL_ROUNDS rounds. Threshold: on the training
prompts, the lowest probability on a 0.01 grid whose pooled precision is >= TARGET_PRECISION (the
highest recall there), ties in recall going to the higher threshold.

    .venv/bin/python bench/fit_capture.py            # leave-one-set-out and per-set figures
    .venv/bin/python bench/fit_capture.py --write    # also rewrite capture.py's fitted block
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from memory_plugin.claude import capture  # noqa: E402

L2 = 0.3                 # ridge penalty on every weight (not the bias): the best leave-one-set-out of 0.1, 0.3, 1, 3
NEWTON_STEPS = 30        # Newton iterations per fit (converged well before)
MIL_ROUNDS = 5           # re-pick each capture prompt's best sentence this many times
TARGET_PRECISION = 0.95  # threshold: highest recall with pooled training precision at least this (target 0.9 + margin)


def load() -> tuple[dict[str, list[dict]], list[dict]]:
    folds = {}
    for f in sorted((ROOT / "bench" / "dev").glob("capture-dev*.yaml")):
        folds[f.stem] = [{"id": q["id"], "prompt": q["prompt"], "y": bool(q.get("capture", q["kind"] == "capture")),
                          "corr": bool(q.get("correction"))} for q in yaml.safe_load(f.read_text())["prompts"]]
    extra = []
    for f in sorted((ROOT / "bench" / "dev").glob("prompts-*.yaml")):
        for q in yaml.safe_load(f.read_text())["prompts"]:
            extra.append({"id": q["id"], "prompt": q["prompt"], "y": bool(q.get("capture", q["kind"] == "capture")),
                          "corr": False})
    for q in [q for qs in folds.values() for q in qs] + extra:
        q["sents"] = capture.prompt_features(q["prompt"], exhaustive=True) or [{}]
    return folds, extra


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="rewrite the fitted block of memory_plugin/claude/capture.py")
    ap.add_argument("--errors", action="store_true", help="list the dev prompts the all-data fit gets wrong")
    a = ap.parse_args()
    folds, extra = load()
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
        block = ["# FIT-START", f"BIAS = {b:.3f}", "WEIGHTS: dict[str, float] = {"]
        for n, v in sorted(w.items(), key=lambda kv: -kv[1]):
            block.append(f"    {n!r}: {v},")
        block += ["}", f"THRESHOLD = {t:.2f}", "# FIT-END"]
        path = ROOT / "memory_plugin" / "capture.py"
        text = path.read_text()
        text = re.sub(r"# FIT-START.*?# FIT-END", "\n".join(block), text, flags=re.S)
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
