"""query with the semantic layer on (the real all-MiniLM-L6-v2 from the test model package)."""
import json

from conftest import run_cli


def _note(vault, rel, text):
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def test_meaning_finds_a_note_that_shares_no_word_with_the_question(vault, semantic_env):
    """The answer shares no word with the question: found by meaning, and `why` says so with the
    section it was found in; lexically (semantic off) no `why` speaks of meaning."""
    _note(vault, "Learnings/Page history.md", "---\ntype: learning\n---\n# Page history\n\n## Restore\n\n"
          "Every save keeps a snapshot of the page. Open the snapshot list and restore the one you want.\n")
    assert run_cli("--vault", str(vault), "rebuild", env=semantic_env).returncode == 0
    question = "how do I recover an older copy of a document?"
    out = json.loads(run_cli("--vault", str(vault), "query", question, "--json", env=semantic_env).stdout)
    top = [i for i in out["items"][:5] if i["path"] == "Learnings/Page history.md"]
    assert top and any(w.startswith("close in meaning: §") for w in top[0]["why"]), [
        (i["path"], i["why"]) for i in out["items"][:8]]
    lexical = json.loads(run_cli("--vault", str(vault), "query", question, "--json",
                                 env={"MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}).stdout)
    assert not any(w.startswith("close in meaning") for i in lexical["items"] for w in i["why"])


def test_nothing_in_the_vault_with_semantic_on(vault, semantic_env):
    assert run_cli("--vault", str(vault), "rebuild", env=semantic_env).returncode == 0
    r = run_cli("--vault", str(vault), "query", "what is our vacation policy?", env=semantic_env)
    assert r.returncode == 0 and "Nothing in the vault" in r.stdout


def test_broken_model_falls_back_to_lexical_in_one_line(vault, semantic_env, tmp_path):
    """A configured model that is not there: query answers lexically and says so in one line."""
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    env = {**semantic_env, "MEMORY_PLUGIN_EMBEDDING_MODEL": str(tmp_path / "no-such-model")}
    r = run_cli("--vault", str(vault), "query", "SKIP LOCKED job queue", "--json", env=env)
    assert r.returncode == 0
    assert json.loads(r.stdout)["items"][0]["path"] == "Projects/atlas/decisions/Use Postgres SKIP LOCKED for job queue.md"
    assert r.stderr.count("\n") == 1 and "lexical only" in r.stderr


def test_an_answer_shows_the_semantic_tail_only_when_closer_than_usual(vault, semantic_vault_env, monkeypatch):
    """The semantic search ranks every note of a small vault: a note only its tail has (no word of
    the question, no name, no link) is shown when it is closer to the question than usual in this
    vault (its cosine's z-score against the vault's calibration), and a `why` that speaks of meaning
    names the section or the passage. With every hit taken as evidence, the tail is back."""
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index
    from memory_plugin.search import query as Q
    from memory_plugin.search import retrieve as R
    from memory_plugin.semantic import vectors as S

    cfg = load_config(vault=vault)
    conn = open_index(cfg)
    try:
        mean, sd = S.calibration(conn)
        question = "what do I do in the first minutes of a production outage?"
        res = Q.query(cfg, conn, question, project="")
        items = res["items"]
        assert items[0]["path"] == "SOPs/Incident response.md"

        def tail(it, z_min=R.SEMANTIC_EVIDENCE_Z):
            f = it["found"]
            return not f.keys() - {"semantic"} and (f["semantic"][1] - mean) / sd < z_min

        assert not [it["path"] for it in items if tail(it)]
        for it in items:
            assert all(w.startswith("close in meaning: ") for w in it["why"] if w.startswith("close in meaning")), it
        monkeypatch.setattr(R, "SEMANTIC_EVIDENCE_Z", float("-inf"))  # every hit as evidence: the tail pads
        padded = Q.query(cfg, conn, question, project="")
        assert [it["path"] for it in padded["items"] if tail(it)]
    finally:
        conn.close()
