"""retrieve.names finds its candidates through the FTS index's title and alias columns: the same
names as the scan of every title and alias with LIKE that it replaced."""
import json

import pytest
import yaml

from conftest import ROOT, run_cli
from memory_plugin.search import query as Q
from memory_plugin.search import retrieve as R
from memory_plugin.core import textutil as T
from memory_plugin.core.config import load_config
from memory_plugin.index.store import open_index


@pytest.fixture
def conn(vault, cache_dir):
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    c = open_index(load_config(vault=vault))
    yield c
    c.close()


def like_names(conn, words, content):
    """The scan the FTS candidates replaced, with names()'s own check after it."""
    like = [w for w in content if len(w) >= 2][:12]
    if not like:
        return set()
    rows = conn.execute("SELECT path, title, display_title, aliases FROM notes WHERE private = 0 AND skipped = 0 AND ("
                        + " OR ".join(["title LIKE ? OR display_title LIKE ? OR aliases LIKE ?"] * len(like)) + ")",
                        [f"%{w}%" for w in like for _ in range(3)]).fetchall()
    out = set()
    for path, title, dtitle, aliases in rows:
        for name in [title, dtitle] + json.loads(aliases or "[]"):
            nw = T.words(name)
            if [w for w in nw if w not in T.STOPWORDS] and T.contains_seq(words, nw):
                out.add(path)
    return out


def title_and_alias_hits(conn, question):
    """(every note names() returns, those it returns as named by title or alias, what the scan named)"""
    q = Q.parse_question(question)
    ranked, why = R.names(conn, q["words"], q["content"], None)
    return ({p for p, _ in ranked}, {p for p, _ in ranked if "named in the question" in why[p]},
            like_names(conn, q["words"], q["content"]))


def same_names(found, named, want):
    """Nothing the scan named is lost (a note may be returned for a tag or project it also has), and
    nothing is named by title or alias that the scan did not name."""
    return want <= found and named <= want


def test_every_fixture_question_names_what_the_scan_named(conn):
    questions = yaml.safe_load((ROOT / "fixtures" / "eval" / "questions.yaml").read_text())["questions"]
    named = 0
    for item in questions:
        found, got, want = title_and_alias_hits(conn, item["q"])
        assert same_names(found, got, want), item["q"]
        named += bool(want)
    assert named >= 10  # the comparison is not between two empty sets


def test_a_word_that_starts_a_longer_title_word_still_brings_its_note(tmp_path, cache_dir):
    # "Decision.md", shown as "Custom states": the question's "state" starts "states", and its title
    # "Decision" (a type word, never searched for) is named in the question: the LIKE scan found it so
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Decision.md").write_text("---\ntitle: Custom states\n---\nWhich states a task can have.\n")
    (vault / "Other.md").write_text("# Other\n\nNothing about it.\n")
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    c = open_index(load_config(vault=vault))
    try:
        found, got, want = title_and_alias_hits(c, "one column per state for each decision")
    finally:
        c.close()
    assert got == want == {"Decision.md"} and same_names(found, got, want)


def test_an_alias_is_a_name_and_a_private_note_never_is(conn):
    found, got, want = title_and_alias_hits(conn, "what do we know about WAL")
    assert "Concepts/Write-ahead logging.md" in got and same_names(found, got, want)
    found, _, _ = title_and_alias_hits(conn, "salary negotiation")
    assert not any(p.startswith("Personal/") for p in found)


def test_a_name_in_an_unspaced_script_is_found_by_its_characters(tmp_path, cache_dir):
    """Chinese is written without spaces: the index keeps "最好用的工具集合在哪个笔记" as one token, so
    the title `最好用的工具集合` is no word of the question, yet the question holds it; a two-character
    title inside a long question weighs little (its share of the question's characters)."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "tools.md").write_text("---\ntitle: 最好用的工具集合\n---\n- ripgrep\n", encoding="utf-8")
    (vault / "books.md").write_text("---\ntitle: 读书\n---\n- 三体\n", encoding="utf-8")
    (vault / "other.md").write_text("# Other\n\nNothing about it.\n")
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    c = open_index(load_config(vault=vault))
    try:
        q = Q.parse_question("最好用的工具集合在哪个笔记?")
        ranked, why = R.names(c, q["words"], q["content"], None)
        assert ranked[0][0] == "tools.md" and "named in the question" in why["tools.md"]
        assert ranked[0][1] >= Q.ABSTAIN["named_min"]  # evidence: answered, not "Nothing"
        q = Q.parse_question("读书的时候最好用的工具集合在哪个笔记?")
        weights = dict(R.names(c, q["words"], q["content"], None)[0])
        assert weights["books.md"] < Q.ABSTAIN["named_min"] and weights["books.md"] < weights["tools.md"]
    finally:
        c.close()
    r = run_cli("--vault", str(vault), "query", "最好用的工具集合在哪个笔记?", "--json")
    assert json.loads(r.stdout)["items"][0]["path"] == "tools.md"
