"""Session 6's calibrated abstention experiment (issue 10; bench/eval/PROTOCOL.md, session 6): the
evidence features and the logistic model that bench/fit_confidence.py fits on the dev sets.

NOT used by the product: on the seven dev sets (leave-one-vault-out) the model tied main's rule
(query.ABSTAIN), and on the report sets it answered more negatives with nothing but kept fewer
answerable questions (kepano-vault 0.85 -> 0.69), so query.py keeps its rule. As it ran in the
product for the one report run, this code lived in memory_plugin/confidence.py at commit b6c24bb
(the FITTED block there is the frozen model); `evidence()` gets its lists from query's own retrievers
(see fit_confidence.retrieval_evidence).
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
    """Named features of query's evidence `ev` (see `evidence`, plus known / cover / named_w). The
    question's length is not one: the dev sets' negatives are shorter than their answerable
    questions (5-6 content words against 6-8), a trait of how sets are written, not of questions."""
    f = {
        "known": ev.get("known", 1.0),
        "cover": ev.get("cover", 0.0),
        "named": ev.get("named_w", 0.0),
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
    """The probability that the vault holds an answer to the question `ev` describes (the semantic
    model; lexical only: the lexical model fitted beside it, reported but not used by `abstain`)."""
    mode = "semantic" if ev.get("semantic") else "lexical"
    m = FITTED["answer"][mode]
    return _p(m["weights"], m["bias"], _standard(answer_features(ev, mode == "semantic"), m))


# Evidence that always answers, before the model (session 2's values, set on bench/dev): the dev
# sets hold almost no one- or two-word name lookups ("WAL", "atlas", "testing"), so the model cannot
# learn them; such a question is answered when it names a note or one note holds its words.
OVERRIDE = {
    "named_min": 0.35,  # a title, alias, tag or project names at least half the question's content
                        # words (names' weight (share)^1.5: 0.5^1.5 = 0.35); a one-word title such as
                        # "Page" inside a long question is no evidence
    "cover_min": 0.8,   # one of BM25's top 5 has words holding this share of the question's idf mass
}


# Lexical only: nothing when the words some note has hold less than this share of the question's
# idf mass (session 2's rule, kept: the lexical model fitted in session 6 met the dev criterion but
# answered nothing to issue 10's own example, "can I roll a page back to how it looked an hour ago?",
# in a small vault where BM25 ranks the note first; bench/eval/PROTOCOL.md, session 6).
LEXICAL_KNOWN = 0.5


def overridden(ev: dict) -> bool:
    """A name or the words of one note carry the question (OVERRIDE): always answered."""
    return ev.get("named_w", 0.0) >= OVERRIDE["named_min"] or ev.get("cover", 0.0) >= OVERRIDE["cover_min"]


def abstain(ev: dict) -> bool:
    """The one rule for "Nothing in the vault about X": never when a name or one note's words carry
    the question (OVERRIDE), else p_answer below the mode's threshold."""
    if overridden(ev):
        return False
    if not ev.get("semantic"):
        return ev.get("known", 1.0) < LEXICAL_KNOWN
    return p_answer(ev) < FITTED["answer"]["semantic"]["threshold"]


def _standard(f: dict[str, float], m: dict) -> dict[str, float]:
    """Features centred and scaled as in the fit (its means and sds are stored with the weights)."""
    mu, sd = m.get("mean", {}), m.get("sd", {})
    return {n: (v - mu.get(n, 0.0)) / (sd.get(n, 1.0) or 1.0) for n, v in f.items()}


# ---------------------------------------------------------------- fitted coefficients
# The frozen model of the report run (commit b6c24bb; bench/fit_confidence.py on the seven dev sets).
# BEGIN FITTED (written by bench/fit_confidence.py --write; do not edit by hand)
FITTED: dict = {
    "answer": {
        "semantic": {
            "bias": 0.8037,
            "weights": {
                "known": 1.2385,
                "sem_z": 1.1452
            },
            "mean": {
                "known": 0.7559,
                "sem_z": -0.3065
            },
            "sd": {
                "known": 0.2577,
                "sem_z": 0.9646
            },
            "threshold": 0.41,
            "l2": 3.0,
            "features": "C"
        },
        "lexical": {
            "bias": 0.6981,
            "weights": {
                "cover": 0.4621,
                "forms_agree": -0.0796,
                "known": 0.9688,
                "lex_margin": 0.383,
                "named": 0.0088,
                "no_hits": -0.0399
            },
            "mean": {
                "cover": 0.436,
                "forms_agree": 0.6051,
                "known": 0.7559,
                "lex_margin": 0.2782,
                "named": 0.0199,
                "no_hits": 0.0103
            },
            "sd": {
                "cover": 0.1897,
                "forms_agree": 0.4888,
                "known": 0.2577,
                "lex_margin": 0.2791,
                "named": 0.0406,
                "no_hits": 0.1008
            },
            "threshold": 0.39,
            "l2": 10.0,
            "features": "A"
        }
    }
}
# END FITTED
