"""How sure the retrieval is: calibrated probabilities instead of hand-set thresholds (issues 10 and 13).

Two decisions, each a small logistic regression over features that should mean the same in any
vault (cosines and their margins, the share of the question's idf mass some note holds, whether the
word and meaning retrievers agree), fitted on the development sets only by bench/fit_confidence.py
(stdlib, deterministic), its coefficients in FITTED below:

- `p_answer(ev)`: is there something in the vault about this question? `query` answers "Nothing in
  the vault about X" when it is below the mode's threshold (one model for semantic on, one for
  lexical only).
- `p_item(f)`: the prompt hook: is this candidate note one the prompt is about? The hook injects the
  candidates at or above its threshold (precision first).

No numpy here: the hook imports this module on every prompt.
"""
from __future__ import annotations

import math

AGREE_TOP = 5   # "agree": one retriever's best note is in the other's top AGREE_TOP
DEPTH_CAP = 51  # a rank beyond the retrievers' depth (50)


def _log_rank(r: int | None) -> float:
    """log2 of a 1-based rank (0 for the first), the depth cap when absent."""
    return math.log2(min(r or DEPTH_CAP, DEPTH_CAP))


def evidence(lex: list, forms: list, sem: list | None, calibration: tuple[float, float] | None,
             n_content: int) -> dict:
    """The retrieval's agreement evidence, before fusion: `lex`/`forms` are BM25 hits
    [(path, bm25, words, why)], `sem` semantic hits (path, score) or None when the layer is off."""
    ev: dict = {"n_content": n_content}
    lex_paths = [h[0] for h in lex]
    ev["lex_margin"] = (lex[0][1] / lex[1][1]) if len(lex) > 1 and lex[1][1] > 0 else (2.0 if lex else 1.0)
    ev["forms_agree"] = bool(lex and forms and lex[0][0] == forms[0][0])
    ev["lex_hits"] = len(lex)
    if sem is None:
        return ev
    scores = [s for _, s in sem]
    sem_paths = [p for p, _ in sem]
    top = scores[0] if scores else 0.0
    ev["sem_top"] = top
    ev["sem_2"] = scores[1] if len(scores) > 1 else top
    ev["sem_10"] = scores[9] if len(scores) > 9 else (scores[-1] if scores else 0.0)
    tail = scores[10:50]
    ev["sem_bg"] = sum(tail) / len(tail) if tail else (scores[-1] if scores else 0.0)
    mean, sd = calibration or (0.5, 1.0)
    ev["sem_z"] = (top - mean) / (sd or 1.0)
    ev["lex_rank_in_sem"] = (sem_paths.index(lex_paths[0]) + 1) if lex_paths and lex_paths[0] in sem_paths else None
    ev["sem_rank_in_lex"] = (lex_paths.index(sem_paths[0]) + 1) if sem_paths and sem_paths[0] in lex_paths else None
    ev["overlap5"] = len(set(lex_paths[:AGREE_TOP]) & set(sem_paths[:AGREE_TOP])) / AGREE_TOP
    ev["agree"] = bool(lex_paths and sem_paths) and (lex_paths[0] in sem_paths[:AGREE_TOP]
                                                      or sem_paths[0] in lex_paths[:AGREE_TOP])
    return ev


# ---------------------------------------------------------------- answer vs abstain

def answer_features(ev: dict, semantic: bool) -> dict[str, float]:
    """Named features of query's evidence `ev` (see `evidence`, plus known / cover / named_w)."""
    f = {
        "known": ev.get("known", 1.0),
        "cover": ev.get("cover", 0.0),
        "named": ev.get("named_w", 0.0),
        "log_words": math.log(1 + ev.get("n_content", 1)),
        "lex_margin": min(math.log(max(ev.get("lex_margin", 1.0), 1.0)), 2.0),
    }
    if not semantic:
        f["forms_agree"] = float(bool(ev.get("forms_agree")))
        f["no_hits"] = float(not ev.get("lex_hits"))
        return f
    top = ev.get("sem_top", 0.0)
    f.update({
        "sem_top": top,
        "sem_z": max(-4.0, min(4.0, ev.get("sem_z", 0.0))),
        "gap2": top - ev.get("sem_2", top),
        "gap10": top - ev.get("sem_10", top),
        "gap_bg": top - ev.get("sem_bg", top),
        "lex_in_sem": -_log_rank(ev.get("lex_rank_in_sem")) / math.log2(DEPTH_CAP),
        "sem_in_lex": -_log_rank(ev.get("sem_rank_in_lex")) / math.log2(DEPTH_CAP),
        "overlap5": ev.get("overlap5", 0.0),
    })
    return f


def _p(weights: dict[str, float], bias: float, f: dict[str, float]) -> float:
    z = bias + sum(w * f.get(n, 0.0) for n, w in weights.items())
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def p_answer(ev: dict) -> float:
    """The probability that the vault holds an answer to the question `ev` describes."""
    mode = "semantic" if ev.get("semantic") else "lexical"
    m = FITTED["answer"][mode]
    return _p(m["weights"], m["bias"], _standard(answer_features(ev, mode == "semantic"), m))


def abstain(ev: dict) -> bool:
    """The one rule for "Nothing in the vault about X": p_answer below the mode's threshold."""
    mode = "semantic" if ev.get("semantic") else "lexical"
    return p_answer(ev) < FITTED["answer"][mode]["threshold"]


def _standard(f: dict[str, float], m: dict) -> dict[str, float]:
    """Features centred and scaled as in the fit (its means and sds are stored with the weights)."""
    mu, sd = m.get("mean", {}), m.get("sd", {})
    return {n: (v - mu.get(n, 0.0)) / (sd.get(n, 1.0) or 1.0) for n, v in f.items()}


# ---------------------------------------------------------------- the prompt hook's items

def item_features(item: dict, ev: dict, spec: float, describe: float | None, semantic: bool) -> dict[str, float]:
    """Named features of one candidate note for the prompt hook: `item` is a query item (its `found`:
    retriever -> (rank, score)), `ev` query's evidence, `spec` the idf of the prompt's words the note
    has in units of a word only one note has, `describe` the cosine of the prompt and the note's own
    description (title + summary; semantic on)."""
    found = item.get("found") or {}
    rank = lambda k: found[k][0] if k in found else None  # noqa: E731
    word = min((r for r in (rank("lexical"), rank("forms"), rank("names")) if r), default=None)
    f = {
        "spec": min(spec, 6.0) / 6.0,
        "word_rank": -_log_rank(word) / math.log2(DEPTH_CAP),
        "named": float(rank("names") == 1),
        "cover": ev.get("cover", 0.0),
        "known": ev.get("known", 1.0),
        "log_words": math.log(1 + ev.get("n_content", 1)),
    }
    if not semantic:
        f["lex_first"] = float(rank("lexical") == 1 and rank("forms") == 1)
        f["lex_margin"] = min(math.log(max(ev.get("lex_margin", 1.0), 1.0)), 2.0) if rank("lexical") == 1 else 0.0
        return f
    sem = found.get("semantic")
    cos = sem[1] if sem else 0.0
    f.update({
        "cos": cos,
        "sem_rank": -_log_rank(sem[0] if sem else None) / math.log2(DEPTH_CAP),
        "gap_bg": cos - ev.get("sem_bg", cos),
        "sem_z": max(-4.0, min(4.0, ev.get("sem_z", 0.0))),
        "describe": describe if describe is not None else 0.0,
    })
    return f


def p_item(f: dict[str, float], semantic: bool) -> float:
    m = FITTED["item"]["semantic" if semantic else "lexical"]
    return _p(m["weights"], m["bias"], _standard(f, m))


def item_ok(f: dict[str, float], semantic: bool) -> bool:
    return p_item(f, semantic) >= FITTED["item"]["semantic" if semantic else "lexical"]["threshold"]


# ---------------------------------------------------------------- fitted coefficients
# BEGIN FITTED (written by bench/fit_confidence.py --write; do not edit by hand)
FITTED: dict = {
    "answer": {
        "semantic": {"bias": 0.0, "weights": {}, "mean": {}, "sd": {}, "threshold": 0.0},
        "lexical": {"bias": 0.0, "weights": {}, "mean": {}, "sd": {}, "threshold": 0.0},
    },
    "item": {
        "semantic": {"bias": 0.0, "weights": {}, "mean": {}, "sd": {}, "threshold": 1.1},
        "lexical": {"bias": 0.0, "weights": {}, "mean": {}, "sd": {}, "threshold": 1.1},
    },
}
# END FITTED
