"""A vault knows a word when a note has it or one of its forms (tests, testing ~ test), not when a
note has only a longer word its stem starts ("breadth" for "bread"): the FTS5 prefix term the
lexical search uses matches both, and abstention must not count the second as the vault knowing
the word (retrieve.idf_weights, textutil.same_word)."""
import pytest

from conftest import query_items, run_cli, write_file as _note
from memory_plugin.core import textutil as T
from memory_plugin.core.config import load_config
from memory_plugin.index import store as index
from memory_plugin.search import retrieve as R


@pytest.mark.parametrize("t, w, same", [
    ("breads", "bread", True), ("breadth", "bread", False), ("breadcrumbs", "bread", False),
    ("testing", "test", True), ("tests", "testing", True), ("testament", "test", False),
    ("planned", "plan", True), ("planning", "plan", True), ("planet", "plan", False),
    ("recipe", "recipes", True), ("configurable", "configuration", True), ("marathons", "marathon", True),
])
def test_same_word(t, w, same):
    assert T.same_word(t, w) is same


def test_fts_token_is_the_tokenizers_form():
    assert T.fts_token("Café") == "cafe" and T.fts_token("NAÏVE") == "naive"
    assert T.fts_token("don't") == "" and T.fts_token("e-mail") == ""


def _index(tmp_path, notes: dict[str, str]):
    v = tmp_path / "vault"
    for name, text in notes.items():
        _note(v, name, text)
    cfg = load_config(vault=v, cache_dir=tmp_path / "cache")
    index.rebuild(cfg)
    return v, index.open_index(cfg)


def test_a_word_only_a_longer_word_starts_is_one_no_note_has(tmp_path):
    notes = {"Breadth.md": "The breadth of the search and its breadcrumbs.\n",
             "Cafe.md": "We met at the café and ran tests on the recipe.\n"}
    notes.update({f"Other {i}.md": f"Filler note {i}.\n" for i in range(6)})
    _v, conn = _index(tmp_path, notes)
    try:
        w = R.idf_weights(conn, ["bread", "breadth", "testing", "recipes", "cafe", "café"], 8)
    finally:
        conn.close()
    assert w["bread"][1] == 0 and w["breadth"][1] == 1
    assert w["testing"][1] == 1 and w["recipes"][1] == 1  # forms: "tests", "recipe"
    assert w["cafe"][1] == 1 and w["café"][1] == 1  # the tokenizer drops diacritics
    assert w["bread"][0] > w["breadth"][0]


def test_a_word_run_together_with_the_next_one_is_known(tmp_path):
    """"burning out" in the question, "burnout" in the note: the vault knows "burning" there; "desk"
    followed by another word than "top" is not known from "desktop"."""
    notes = {"Burnout.md": "Autistic burnout and the desktop app.\n"}
    notes.update({f"Other {i}.md": f"Filler note {i}.\n" for i in range(6)})
    _v, conn = _index(tmp_path, notes)
    try:
        q = "did I connect that to burning out at my desk tomorrow".split()
        w = R.idf_weights(conn, ["burning", "desk"], 7, q)
        alone = R.idf_weights(conn, ["burning"], 7)
    finally:
        conn.close()
    assert w["burning"][1] == 1 and w["desk"][1] == 0 and alone["burning"][1] == 0


@pytest.mark.parametrize("secret", [
    ("Bread.md", "Loaf.\n"),  # the index's word list holds private notes' titles
    ("Secret.md", "Sourdough breads.\n"),  # a form only a private note has
])
def test_a_private_note_does_not_make_the_word_known(tmp_path, secret):
    """"bread" only in a private note (its file name, a form in its text) is a word no note has, as
    it was before that note was written."""
    notes = {"Breadth.md": "Breadth first search.\n", secret[0]: f"---\nprivate: true\n---\n{secret[1]}"}
    notes.update({f"Other {i}.md": f"Filler note {i}.\n" for i in range(6)})
    _v, conn = _index(tmp_path, notes)
    try:
        assert R.idf_weights(conn, ["bread"], 8)["bread"][1] == 0
    finally:
        conn.close()


def test_a_question_about_a_word_the_vault_has_only_inside_others_gets_nothing(tmp_path, cache_dir):
    """"sourdough bread recipe" in a vault with "breadth" and "recipe" but no bread: the vault knows
    only "recipe", which holds too little of the question to answer."""
    v = tmp_path / "vault"
    _note(v, "Search breadth.md", "The breadth of a search against its depth.\n")
    _note(v, "Pasta recipe.md", "A recipe for pasta with tomatoes.\n")
    for t in ("tea", "kites", "stamps", "boats", "clocks", "maps", "shoes", "lamps", "chess", "piano"):
        _note(v, f"Notes/{t.title()}.md", f"What I know about {t}.\n")
    r = run_cli("--vault", str(v), "rebuild")
    assert r.returncode == 0, r.stderr
    assert query_items(v, "do we have a sourdough bread recipe?") == []
    assert [i["path"] for i in query_items(v, "a pasta recipe with tomatoes")][:1] == ["Pasta recipe.md"]


def test_only_words_a_form_could_be_are_read(tmp_path):
    """Thousands of `2023…` ids are not read for "2023" (no form is that much longer than its stem);
    a long word's cut stem still finds its long forms."""
    notes = {f"Z{i}.md": f"202301011{i:03d} note planned.\n" for i in range(5)}
    notes["Config.md"] = "The configurations are read first.\n"
    _v, conn = _index(tmp_path, notes)
    try:
        assert R._forms_of(conn, "2023") == []
        assert R._forms_of(conn, "plan") == ["planned"]
        assert R._forms_of(conn, "configuration") == ["config", "configurations"]  # the title too
    finally:
        conn.close()


def test_a_connection_that_cannot_make_the_word_table_keeps_the_prefix_count(tmp_path):
    notes = {"Breadth.md": "Breadth first search.\n"}
    notes.update({f"Other {i}.md": f"Filler note {i}.\n" for i in range(6)})
    _v, conn = _index(tmp_path, notes)
    try:
        conn.execute("PRAGMA query_only = 1")
        assert R.idf_weights(conn, ["bread"], 7)["bread"][1] == 1  # as before the word list was read
    finally:
        conn.close()


def test_a_term_finds_what_its_word_boundary_pattern_finds():
    """Term (no regex per term) against the patterns it stands for, over random text with letters,
    digits, `_`, accents and a combining mark."""
    import random
    import re

    from memory_plugin.core import textutil as T

    rnd = random.Random(3)
    alpha = "ab_é1 .-xyzçÅ\u0301"
    for _ in range(5000):
        hay = "".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 30)))
        lit = "".join(rnd.choice("abé1xy") for _ in range(rnd.randint(1, 3)))
        for whole in (False, True):
            rx = re.compile(rf"(?<![^\W_]){re.escape(lit)}" + (r"(?![^\W_])" if whole else ""))
            m, h = rx.search(hay), T.Term(lit, whole).search(hay)
            assert (m is None) == (h is None) and (m is None or m.start() == h.start()), (hay, lit, whole)
