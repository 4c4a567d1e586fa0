"""The retrieval eval: the questions file, the figures, and the recall@5 floor."""
import json
import shutil

import yaml

from conftest import FIXTURE_VAULT, ROOT, hash_tree, run_cli

QUESTIONS = ROOT / "fixtures" / "eval" / "questions.yaml"


def test_questions_file_covers_every_kind_and_points_at_real_notes():
    data = yaml.safe_load(QUESTIONS.read_text())
    qs = data["questions"]
    assert len(qs) >= 40
    kinds = {q["kind"] for q in qs}
    assert kinds == {"keyword", "paraphrase", "alias", "graph-bridge", "type-filtered", "temporal", "negative"}
    for q in qs:
        for p in q["expect"]:
            assert (FIXTURE_VAULT / p).is_file(), p
        assert bool(q["expect"]) == (q["kind"] != "negative")


def test_eval_on_fixture_vault_meets_recall_and_beats_baseline(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    qfile = tmp_path / "eval" / "questions.yaml"
    qfile.parent.mkdir()
    shutil.copy(QUESTIONS, qfile)
    before = hash_tree(vault)
    r = run_cli("eval", str(qfile), "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["summary"]
    assert s["overall"]["query"]["r5"] >= 0.95
    assert s["overall"]["query"]["mrr"] >= s["overall"]["baseline"]["mrr"]
    assert s["negative"]["query"]["none"] >= s["negative"]["baseline"]["none"]
    for kind, d in s.items():  # lexical only is never below plain BM25
        if "r5" in d["baseline"]:
            assert d["lexical"]["r5"] >= d["baseline"]["r5"], kind
    assert hash_tree(vault) == before
    text = run_cli("eval", str(qfile)).stdout
    assert "| **overall** |" in text
    assert all(f"{system} R@5" in text for system in ("hybrid", "lexical", "BM25"))


def test_eval_user_questions_with_vault_option(tmp_path, vault):
    q = tmp_path / "mine.yaml"
    q.write_text("questions:\n  - {q: 'WAL', expect: ['Concepts/Write-ahead logging.md'], kind: alias}\n"
                 "  - {q: 'quantum entanglement', expect: []}\n")
    r = run_cli("--vault", str(vault), "eval", str(q), "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["summary"]
    assert s["alias"]["query"]["r1"] == 1.0 and s["negative"]["query"]["none"] == 1.0


def test_eval_bad_questions_file(tmp_path, vault):
    for text in ("[", "questions: []", "questions:\n  - {expect: []}\n"):
        q = tmp_path / "q.yaml"
        q.write_text(text)
        r = run_cli("--vault", str(vault), "eval", str(q))
        assert r.returncode == 2 and r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1
    r = run_cli("--vault", str(vault), "eval", str(tmp_path / "missing.yaml"))
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_eval_unknown_kind_is_an_error_naming_the_question(tmp_path, vault):
    q = tmp_path / "q.yaml"
    q.write_text("questions:\n  - {q: 'WAL', expect: ['Concepts/Write-ahead logging.md'], kind: alias}\n"
                 "  - {q: 'how do we deploy?', expect: ['SOPs/Deploy.md'], kind: paraphrse}\n")
    r = run_cli("--vault", str(vault), "eval", str(q))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1
    assert "question 2" in r.stderr and "how do we deploy?" in r.stderr and "`paraphrse`" in r.stderr
    assert "keyword, paraphrase, alias, graph-bridge, bridge, type-filtered, temporal, negative" in r.stderr


def test_eval_reads_the_shared_eval_format(tmp_path, vault):
    """`question` / `expected` and the kinds of ../shared/eval/*/questions.yaml; negatives answered
    with nothing are counted as such."""
    q = tmp_path / "shared.yaml"
    q.write_text("questions:\n"
                 "  - {id: s1, kind: alias, question: 'WAL', expected: ['Concepts/Write-ahead logging.md'], why: x}\n"
                 "  - {id: s2, kind: bridge, question: 'which concept does the SKIP LOCKED queue decision depend on?',"
                 " expected: ['Concepts/Idempotency.md'], why: y}\n"
                 "  - {id: s3, kind: negative, question: 'Kafka consumer group rebalancing', expected: [], why: z}\n")
    r = run_cli("--vault", str(vault), "eval", str(q), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    s = out["summary"]
    assert set(s) == {"alias", "bridge", "negative", "overall"}
    assert s["alias"]["query"]["r1"] == 1.0 and s["bridge"]["query"]["r5"] == 1.0
    assert s["negative"]["query"]["none"] == 1.0 and s["negative"]["baseline"]["none"] == 0.0
    assert {"query", "lexical", "baseline"} <= set(s["overall"])
    assert [row["id"] for row in out["questions"]] == ["s1", "s2", "s3"]
