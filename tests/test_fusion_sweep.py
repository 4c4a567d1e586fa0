"""Session 7's fusion experiment (bench/fusion_sweep.py): not product code (the product keeps
retrieve.fuse, bench/eval/PROTOCOL.md session 7), but its baseline must be the product's fusion and
it must not be usable to sweep the report sets."""
import sys
from pathlib import Path

import pytest

from memory_plugin.search import retrieve as R

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import fusion_sweep as S  # noqa: E402


def _cands():
    cands: dict = {}
    R.add(cands, "lexical", [("a.md", 9.0), ("b.md", 4.0), ("c.md", 1.0)], {})
    R.add(cands, "forms", [("b.md", 7.0), ("a.md", 6.0)], {})
    R.add(cands, "semantic", [("c.md", 0.71), ("d.md", 0.60), ("a.md", 0.40)], {})
    R.add(cands, "names", [("d.md", 0.35)], {})
    R.add(cands, "graph", [("e.md", 0.2)], {})
    return cands


@pytest.mark.parametrize("semantic", [True, False])
def test_h0_is_the_products_fusion(semantic):
    a, b = _cands(), _cands()
    R.fuse(a, semantic=semantic)
    S.make_variants(R)["H0"](b, semantic=semantic)
    assert {p: c.fused for p, c in a.items()} == {p: c.fused for p, c in b.items()}


def test_word_family_as_one_retriever():
    """H3a: the words (2/3 exact + 1/3 forms, min-max scaled) or a name, whichever is stronger, weigh
    as much as the semantic list."""
    c = _cands()
    S.make_variants(R)["H3a"](c)
    assert c["a.md"].fused == pytest.approx(2 / 3 * 1.0 + 1 / 3 * 0.0 + (0.40 - 0.40) / (0.71 - 0.40))
    assert c["d.md"].fused == pytest.approx(0.35 + (0.60 - 0.40) / (0.71 - 0.40))
    assert c["e.md"].fused == pytest.approx(0.2)


def test_report_sets_are_not_swept(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["fusion_sweep.py", "--sets", "dendron"])
    with pytest.raises(SystemExit, match="run once"):
        S.main()
    monkeypatch.setattr(sys, "argv", ["fusion_sweep.py", "--report-once", "--sets", "til"])
    with pytest.raises(SystemExit, match="report sets only"):
        S.main()
