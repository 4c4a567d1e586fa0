"""Session 6's calibrated-abstention experiment (bench/fit_confidence.py, bench/confidence_model.py):
its features, its fit and its comparison with main's rule. Not product code: the product keeps
query.ABSTAIN (bench/eval/PROTOCOL.md, session 6), but the experiment must stay reproducible."""
import math
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from memory_plugin.search import query as Q
from memory_plugin.core.config import load_config
from memory_plugin.index.store import open_index

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import confidence_model as C  # noqa: E402
import fit_confidence as F  # noqa: E402


def test_evidence_reads_margins_ranks_and_agreement():
    lex = [("a.md", 10.0, [], ""), ("b.md", 5.0, [], ""), ("c.md", 4.0, [], "")]
    forms = [("a.md", 9.0, [], "")]
    sem = [("b.md", 0.70), ("a.md", 0.60)] + [(f"n{i}.md", 0.50 - i / 100) for i in range(48)]
    ev = C.evidence(lex, forms, sem, (0.5, 0.1), 4)
    assert ev["lex_margin"] == 2.0 and ev["forms_agree"] and ev["lex_hits"] == 3
    assert ev["sem_top"] == 0.70 and ev["sem_2"] == 0.60 and ev["sem_10"] == sem[9][1]
    assert math.isclose(ev["sem_bg"], sum(s for _, s in sem[10:50]) / 40)
    assert math.isclose(ev["sem_z"], (0.70 - 0.5) / 0.1)
    assert ev["lex_rank_in_sem"] == 2 and ev["sem_rank_in_lex"] == 2  # a.md second for meaning, b.md for words
    assert ev["overlap5"] == 2 / 5 and ev["agree"]
    apart = C.evidence(lex, forms, [("x.md", 0.3), ("y.md", 0.2)], None, 4)
    assert apart["lex_rank_in_sem"] is None and apart["sem_rank_in_lex"] is None and not apart["agree"]
    f = C.answer_features(apart, True)
    assert f["lex_in_sem"] == f["sem_in_lex"] == -1.0  # absent: the depth cap
    assert "log_words" not in f  # question length is no feature (a trait of how sets are written)
    assert set(C.answer_features(apart, False)) == {"known", "cover", "named", "lex_margin", "forms_agree", "no_hits"}


def test_the_fit_is_deterministic_and_separates_what_it_can():
    xs = [{"a": i / 10, "b": (i % 3) / 3} for i in range(20)]
    ys = [int(i >= 10) for i in range(20)]
    m1, m2 = F.fit(xs, ys, 1.0), F.fit(xs, ys, 1.0)
    assert m1 == m2
    assert m1["weights"]["a"] > 1.0 and abs(m1["weights"]["b"]) < abs(m1["weights"]["a"])
    assert F.prob(m1, {"a": 1.9, "b": 0}) > 0.9 > 0.1 > F.prob(m1, {"a": 0.0, "b": 0})
    # more ridge, smaller weights
    assert abs(F.fit(xs, ys, 30.0)["weights"]["a"]) < abs(m1["weights"]["a"])


def test_the_frozen_model_answers_names_and_abstains_monotonically():
    """The report run's model (b6c24bb): overrides first; then abstaining only gets likelier as the
    vault knows less of the question or its best note is less close than usual."""
    ev = {"semantic": True, "named_w": 0.0, "cover": 0.0, "known": 1.0, "sem_z": 0.0}
    assert not C.abstain(ev)
    assert C.abstain({**ev, "known": 0.2, "sem_z": -1.0})
    assert not C.abstain({**ev, "known": 0.2, "sem_z": -1.0, "named_w": C.OVERRIDE["named_min"]})
    ps = [C.p_answer({**ev, "known": k}) for k in (0.2, 0.5, 0.8, 1.0)]
    assert ps == sorted(ps)
    ps = [C.p_answer({**ev, "sem_z": z}) for z in (-3, -1, 0, 1)]
    assert ps == sorted(ps)
    assert C.abstain({"semantic": False, "known": C.LEXICAL_KNOWN - 0.01})


def test_retrieval_evidence_on_a_real_index_matches_query(vault, cache_dir):
    """On a small real index the experiment's evidence keeps query's own (known, cover, names) and
    its comparison rule is query's abstain itself."""
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    cfg = load_config(vault=vault)
    conn = open_index(cfg)
    try:
        verdicts = []
        for text in ("which queue did atlas use originally?", "terraform helm kubernetes rebalancing"):
            res = Q.query(cfg, conn, text, record=False, project="", semantic=False, abstention=F.NEVER)
            ev = F.retrieval_evidence(cfg, conn, text, None, res["evidence"], False)
            for k in ("known", "cover", "named_w"):
                assert ev.get(k) == res["evidence"].get(k)
            assert ev["lex_hits"] == len(Q.R.lexical(conn, Q.parse_question(text)["content"], None)
                                         or Q.R.lexical(conn, Q.parse_question(text)["content"], None, forms=True))
            assert F.old_abstain(ev) == Q.abstain(res["evidence"])
            verdicts.append(F.old_abstain(ev))
        assert verdicts == [False, True]  # as test_query's lexical abstention test has them
    finally:
        conn.close()


@pytest.mark.parametrize("name", ["mdbook-guide", "dataview-docs"])
def test_session6_dev_sets_point_at_existing_notes(name):
    import yaml

    path = BENCH / "dev" / name / "questions.yaml"
    qs = yaml.safe_load(path.read_text())["questions"]
    assert len({q["id"] for q in qs}) == len(qs) >= 25
    assert sum(q["kind"] == "negative" for q in qs) >= 6
    assert all((q["kind"] == "negative") == (q["expected"] == []) for q in qs)
    assert (path.parent / "fetch.sh").is_file()
    vault = Path("/work/evaldata") / name / "vault"
    if not vault.is_dir():
        pytest.skip(f"{vault} is not laid out (bench/dev/{name}/fetch.sh)")
    for q in qs:
        for rel in q["expected"]:
            assert (vault / rel).is_file(), f"{q['id']}: {rel}"
