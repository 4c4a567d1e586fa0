"""Session 8's lexical-abstention experiment (bench/s8_lexabs.py). Not product code (no variant was
accepted, bench/eval/PROTOCOL.md "Session 8: lexical-only abstention against plain BM25"), but its
main rule must be query's lexical rule exactly, its replay must count a question answered with nothing
as a miss, and the leave-one-vault-out threshold must follow the stated rule."""
import sys
from pathlib import Path

import pytest

from memory_plugin.search import query as Q

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import s8_lexabs as S  # noqa: E402


@pytest.mark.parametrize("known", [0.0, 0.2, 0.49, 0.5, 0.9])
@pytest.mark.parametrize("cover,named_w", [(0.1, 0.0), (0.85, 0.0), (0.1, 0.4)])
def test_main_rule_is_querys_lexical_rule(known, cover, named_w):
    ev = {"known": known, "cover": cover, "named_w": named_w, "semantic": False}
    assert S.main_rule(ev) == Q.abstain(ev)
    assert S.v1(Q.ABSTAIN["lexical_known"])(ev) == Q.abstain(ev)


def _row(expect, known, r5=1.0, bm25=1.0, cover=0.0):
    lex = {"r5": r5, "kept": 1.0} if expect else {"none": 0.0}
    base = {"r5": bm25, "kept": 1.0} if expect else {"none": 0.0}
    return {"expect": ["a.md"] if expect else [], "ev": {"known": known, "cover": cover, "named_w": 0.0},
            "lex": lex, "bm25": base}


def test_abstaining_is_a_miss_and_a_negative_answered_with_nothing():
    rows = [_row(True, 0.4), _row(True, 0.9), _row(False, 0.3), _row(False, 0.8)]
    d = S.tally(rows, S.v1(0.5))
    assert d["r5"] == 0.5 and d["bm25"] == 1.0 and d["off"] == 1.0
    assert (d["none"], d["neg"], d["kept"], d["pos"]) == (1, 2, 1, 2)
    assert S.regained(rows, S.v1(0.5), S.v1(0.35)) == 1


def test_threshold_is_the_highest_with_no_shortfall_against_bm25_on_any_training_set():
    data = {"a": [_row(True, 0.42), _row(True, 0.9), _row(False, 0.3)],
            "b": [_row(True, 0.33, r5=0.0, bm25=1.0), _row(True, 0.9), _row(False, 0.1)]}
    # a: an answerable question at 0.42 -> t <= 0.40; b: the one at 0.33 misses anyway with abstention
    # off, so abstaining there adds no shortfall beyond min(BM25, off)
    assert S.choose_t(data, ["a"], S.v1) == 0.4
    assert S.choose_t(data, ["b"], S.v1) == 0.5
    assert S.choose_t(data, ["a", "b"], S.v1) == 0.4
