"""The lexical retriever does not score terms that half the notes have (retrieve.informative): FTS5's
bm25 gives them an idf of 1e-6, so leaving them out changes no note's weight, only which notes are
scored; and the words a note has are still all of the question's."""
import pytest

from memory_plugin.index import store as index
from memory_plugin.search import retrieve as R
from memory_plugin.core.config import load_config

# word -> how many of the ten notes have it (the other words of each note are its own)
COUNTS = {"widget": 6, "halfword": 5, "fourword": 4, "sprocket": 1}


@pytest.fixture
def conn(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(10):
        words = [w for w, n in COUNTS.items() if i < n]
        (vault / f"Note {i}.md").write_text(f"# Note {i}\n\nOwnword{i} filler text {' '.join(words)}.\n")
    cfg = load_config(vault=vault, cache_dir=tmp_path / "cache")
    index.rebuild(cfg)
    c = index.open_index(cfg)
    yield c
    c.close()


def bm25_idf_is_zero(conn, word: str) -> bool:
    """Does FTS5's own bm25 give `word` no weight? The best score of a one-word query is ~1e-6 then."""
    best = conn.execute("SELECT bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 1",
                        (f'"{word}"',)).fetchone()[0]
    return -best < 1e-4


@pytest.mark.parametrize("word", sorted(COUNTS))
def test_a_term_is_left_out_exactly_when_bm25_gives_it_no_weight(conn, word):
    kept, common = R.informative(conn, [f'"{word}"', '"sprocket"'])
    left_out = f'"{word}"' not in kept
    assert left_out == bm25_idf_is_zero(conn, word)
    assert left_out == (COUNTS[word] * 2 >= 10)
    assert '"sprocket"' in kept and common == int(left_out)


def test_when_no_term_is_worth_scoring_none_is_left_out(conn):
    assert R.informative(conn, ['"widget"', '"halfword"']) == (['"widget"', '"halfword"'], 0)
    # a word no note has matches nothing: the common words are then all the search has
    assert R.informative(conn, ['"widget"', '"nowhere"']) == (['"widget"', '"nowhere"'], 0)
    assert R.informative(conn, ['"nowhere"', '"sprocket"', '"widget"']) == (['"sprocket"'], 1)


def test_lexical_scores_only_notes_with_an_informative_word_and_the_same_weight(conn):
    top: dict = {}
    hits = R.lexical(conn, ["widget", "sprocket"], None, top=top)
    assert [h[0] for h in hits] == ["Note 0.md"]
    assert top["cut"] is True
    assert hits[0][2] == ["widget", "sprocket"]  # the words the note has: all of them, as before
    full = conn.execute("SELECT -bm25(fts) FROM fts WHERE fts MATCH '\"widget\" OR \"sprocket\"' "
                        "ORDER BY bm25(fts) LIMIT 1").fetchone()[0]
    assert hits[0][1] == pytest.approx(full, rel=1e-4)
    every = R.lexical(conn, ["widget"], None, top=(t2 := {}))
    assert len(every) == 6 and t2["cut"] is False


def test_a_cut_list_keeps_bm25s_zero_as_its_floor():
    def fused(floors):
        cands: dict = {}
        R.add(cands, "lexical", [("a", 10.0), ("b", 6.0), ("c", 2.0)], {})
        R.fuse(cands, floors=floors)
        return {p: round(c.fused / R.RETRIEVER["lexical"].weight, 6) for p, c in cands.items()}

    assert fused(None) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert fused({"lexical": 0.0}) == {"a": 1.0, "b": 0.6, "c": 0.2}
    short = [("p", 1.0, [], "")] * 3
    assert R.lexical_floors({"lexical": (short, {"cut": True}), "forms": (short, {"cut": False})}) == {"lexical": 0.0}
    assert R.lexical_floors({"lexical": (short * R.DEPTH, {"cut": True})}) == {}


@pytest.mark.parametrize("text", ["widget sprocket", "widget halfword fourword", "halfword fourword",
                                  "widget nowhere", "nowhere sprocket widget", "fourword ownword3 widget",
                                  "what about the widget and the sprocket?"])
def test_the_anchor_read_from_a_cut_search_is_plain_bm25s_first(conn, text):
    from memory_plugin.search import query as Q

    content = Q.parse_question(text)["content"]
    top: dict = {}
    R.lexical(conn, content, None, top=top)
    assert Q._anchor(conn, text, None, content, top) == Q.baseline(conn, text, None, limit=1)
    assert Q._anchor(conn, text, None, content, {}) == Q.baseline(conn, text, None, limit=1)


def test_the_anchor_is_plain_bm25s_first_where_the_property_weight_orders_otherwise(tmp_path):
    """The lexical retriever weighs property text (PROPS_WEIGHT); the anchor is BM25 with FTS5's
    default weights: the note with the word in its body, not the one with it in a property."""
    from memory_plugin.search import query as Q

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Filed.md").write_text("---\nmaker: gizmo\n---\n" + "Some other words here. " * 2 + "\n")
    (vault / "Body.md").write_text("The gizmo came up. Some other words here too, as many as there are.\n")
    for i in range(6):
        (vault / f"Other {i}.md").write_text(f"Filler {i} text.\n")
    cfg = load_config(vault=vault, cache_dir=tmp_path / "cache")
    index.rebuild(cfg)
    c = index.open_index(cfg)
    try:
        text = "gizmo"
        content = Q.parse_question(text)["content"]
        top: dict = {}
        R.lexical(c, content, None, top=top)
        assert top["path"] == "Filed.md"  # the property weight puts it first for the retriever
        plain = Q.baseline(c, text, None, limit=1)
        assert plain == ["Body.md"]
        assert Q._anchor(c, text, None, content, top) == plain
    finally:
        c.close()
