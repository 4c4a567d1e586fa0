"""Properties are knowledge: the text of a note's properties and inline fields is searchable (the fts
`props` column), counts as evidence for the abstention, and shows in `why`; the titles of the notes
property links point to find the note too. And the summary leaks: HTML, template fill-ins."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memory_plugin.core.config import load_config
from memory_plugin.index import store as I
from memory_plugin.search import query as Q
from memory_plugin.vault.notes import first_paragraph, parse_note, property_text


def make_vault(root: Path, notes: dict[str, str], app: str = ".obsidian") -> Path:
    vault = root / "vault"
    (vault / app).mkdir(parents=True)
    for rel, text in notes.items():
        p = vault / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return vault


def built(tmp_path: Path, notes: dict[str, str], app: str = ".obsidian"):
    cfg = load_config(vault=make_vault(tmp_path, notes, app), cache_dir=tmp_path / "cache")
    I.rebuild(cfg)
    return cfg


def ask(cfg, text: str) -> list[dict]:
    conn = I.open_index(cfg)
    try:
        return Q.query(cfg, conn, text, semantic=False, as_json=True)["items"]
    finally:
        conn.close()


MOVIE = """---
categories:
  - "[[Movies]]"
director: "[[Ridley Scott]]"
cast: [Harrison Ford, Rutger Hauer]
year: 1982
created: 2024-01-02
cssclasses: [wide]
publish: true
ImageURL: "https://example.org/poster.png"
seoTitle: Blade Runner review
rating: "<% tp.system.prompt('Rating') %>"
---
A film about replicants.
"""

OTHER = {f"Films/Film {i}.md": f"---\ndirector: \"[[Someone {i}]]\"\n---\nAnother film about rain and cities.\n"
         for i in range(6)}


# --- what is property text ---------------------------------------------------------------------

def test_property_text_keeps_the_values_that_are_knowledge():
    cfg = load_config(vault=None)
    n = parse_note("Blade Runner.md", MOVIE.encode(), cfg.values)
    lines = n.prop_text.split("\n")
    assert 'director: [[Ridley Scott]]' in lines
    assert "cast: Harrison Ford, Rutger Hauer" in lines
    assert "year: 1982" in lines
    # the note's own dates, how it is shown or published, and template variables are no knowledge
    assert not any(line.startswith(("created", "cssclasses", "publish", "ImageURL", "seoTitle", "rating"))
                   for line in lines)


def test_inline_fields_in_every_dataview_form_and_in_callouts():
    body = ("Intro line.\n"
            "director:: [[Ridley Scott]]\n"
            "- **Studio**:: Warner Bros\n"
            "> [!info]\n> budget:: 28 million\n"
            "I rated it [rating:: 9] and (seen:: twice) so far.\n"
            "```\ncode:: not a field\n```\n"
            "std::vector is C++, no field.\n")
    text = property_text({}, body.replace("```\ncode:: not a field\n```", " " * 30))
    assert text.split("\n") == ["director: [[Ridley Scott]]", "Studio: Warner Bros", "budget: 28 million",
                                "rating: 9", "seen: twice"]
    cfg = load_config(vault=None)
    assert "code" not in parse_note("n.md", body.encode(), cfg.values).prop_text


def test_logseq_block_properties_are_no_page_facts():
    page = ("title:: Tomatoes\nauthor:: [[Jane Doe]]\ntype:: [[Book]]\n"
            "- first block\n  id:: 659f77da-6359-45cd-ac4c-9302fe21953e\n  collapsed:: true\n"
            "- second block\n  source:: garden club\n")
    # a Logseq page: its page properties (title has a column of its own); a block's are the block's
    assert property_text({}, page, logseq=True).split("\n") == ["author: [[Jane Doe]]", "type: [[Book]]"]
    assert property_text({}, "- rating:: 5\n  genre:: essay\n- a block\n  mood:: calm\n", logseq=True) == \
        "rating: 5\ngenre: essay"
    # Dataview gives every field to the page, but never Logseq's own block anchors and folding
    assert property_text({}, page).split("\n") == ["author: [[Jane Doe]]", "type: [[Book]]", "source: garden club"]


def test_the_plugins_own_type_and_status_words_steer_and_the_owners_are_searchable():
    assert property_text({"type": "decision", "status": "superseded", "project": "atlas"}, "") == ""
    assert property_text({"Type": "Development", "Status": "WIP"}, "").split("\n") == \
        ["Type: Development", "Status: WIP"]


def test_frontmatter_yaml_cannot_read_still_has_searchable_lines():
    cfg = load_config(vault=None)
    text = '---\nID: "ff332651-ca17"\nSources:\n  - [""](""): ""\nAuthor: Jim\n---\nBody.\n'
    n = parse_note("n.md", text.encode(), cfg.values)
    assert n.props == {} and "invalid YAML" in n.warnings[0]
    assert n.prop_text.split("\n") == ["ID: ff332651-ca17", "Author: Jim"]


def test_tags_and_aliases_are_read_in_any_case_as_obsidian_reads_them():
    cfg = load_config(vault=None)
    n = parse_note("n.md", b'---\nTags: ["#Topic/Dev"]\nAliases: [PSTools]\n---\nx\n', cfg.values)
    assert n.tags == ["Topic/Dev"] and n.aliases == ["PSTools"]


# --- searchable, evidence, why -------------------------------------------------------------------

def test_a_property_value_finds_the_note_and_why_shows_it(tmp_path):
    cfg = built(tmp_path, {"Blade Runner.md": MOVIE, **OTHER})
    items = ask(cfg, "Ridley Scott")
    assert items and items[0]["path"] == "Blade Runner.md"
    assert any("in the property director (Ridley Scott)" in w for w in items[0]["why"])
    assert not any("director:" in w for w in items[0]["why"])  # the note's YAML is not the answer's words
    conn = I.open_index(cfg)
    try:
        assert [h["path"] for h in Q.search(conn, "Harrison")] == ["Blade Runner.md"]
    finally:
        conn.close()


def test_property_words_are_evidence_the_answer_is_not_nothing(tmp_path):
    """The abstention counts a word only the properties hold as a word the vault knows."""
    cfg = built(tmp_path, {"Blade Runner.md": MOVIE, **OTHER})
    items = ask(cfg, "which films did Rutger Hauer play in?")
    assert items and items[0]["path"] == "Blade Runner.md"


def test_a_fact_in_the_properties_of_a_long_note_is_found_whatever_its_length(tmp_path):
    """BM25 weighs a row against the whole note: a book's `year: 1923` above pages of highlights
    counts for little there. The filed list weighs property values by themselves: the book is its
    first note, above short notes whose properties hold only "book", and the answer shows it with
    the property that holds the fact."""
    from memory_plugin.search import retrieve as R

    highlights = "".join(f"> Highlight {i}: advertising is salesmanship, and every ad must sell.\n\n" for i in range(400))
    notes = {"Books/Scientific Advertising.md": "---\ncategories: [\"[[Books]]\"]\nyear: 1923\n---\n" + highlights}
    notes.update({f"Notes/n{i}.md": f"The library on topic {i}.\n" for i in range(3)})
    notes.update({f"Books/b{i}.md": f"---\ncategories: [\"[[Books]]\"]\nyear: {1950 + i}\n---\nA book.\n" for i in range(8)})
    notes.update({f"Garden/g{i}.md": f"Tomatoes and basil, bed {i}.\n" for i in range(30)})
    cfg = built(tmp_path, notes)
    conn = I.open_index(cfg)
    try:
        content = ["book", "library", "came", "1923"]
        weights = R.idf_weights(conn, content, conn.execute("SELECT count(*) FROM notes").fetchone()[0])
        ranked, why = R.filed(conn, content, None, weights)
    finally:
        conn.close()
    assert ranked[0][0] == "Books/Scientific Advertising.md" and ranked[0][1] > ranked[1][1] > 0, ranked[:3]
    assert "in the property year (1923)" in why[ranked[0][0]] and not any(p.startswith("Notes/") for p, _ in ranked)
    items = ask(cfg, "which book in my library came out in 1923?")
    it = next(it for it in items if it["path"] == "Books/Scientific Advertising.md")
    assert any("in the property year (1923)" in w for w in it["why"]), it["why"]


def test_inline_fields_are_searchable(tmp_path):
    notes = {"Garden.md": "Notes on the garden.\n\n- [planted:: marigolds] by the fence\n", **OTHER}
    cfg = built(tmp_path, notes)
    items = ask(cfg, "marigolds")
    assert items[0]["path"] == "Garden.md" and any("in the property planted (marigolds)" in w for w in items[0]["why"])


def test_a_property_link_finds_the_note_by_the_linked_notes_title(tmp_path):
    """`author: "[[kk]]"` where kk's title (Foam: its `title:`) is "Kevin Kelly"; a sync follows a
    changed title, as a rebuild would."""
    notes = {"kk.md": "---\ntitle: Kevin Kelly\n---\nAn author.\n",
             "book.md": "---\ntitle: The Inevitable\nauthor: \"[[kk]]\"\n---\nTwelve forces.\n", **OTHER}
    cfg = built(tmp_path, notes, app=".foam")
    items = ask(cfg, "books by Kevin Kelly")
    assert "book.md" in [i["path"] for i in items[:2]]
    assert any("in the property author (Kevin Kelly)" in w for w in next(i for i in items if i["path"] == "book.md")["why"])
    (cfg.vault / "kk.md").write_text("---\ntitle: Kevin Kelly Jr\n---\nAn author.\n", encoding="utf-8")
    I.sync(cfg)
    conn = I.open_index(cfg)
    try:
        synced = I.snapshot(conn)
        props = conn.execute("SELECT f.props FROM fts f JOIN notes n ON n.id = f.rowid WHERE n.path = 'book.md'").fetchone()[0]
    finally:
        conn.close()
    assert "author: Kevin Kelly Jr" in props
    other = load_config(vault=cfg.vault, cache_dir=tmp_path / "fresh")
    I.rebuild(other)
    conn = I.open_index(other)
    try:
        assert I.snapshot(conn) == synced
    finally:
        conn.close()


def test_a_private_notes_properties_are_never_searchable(tmp_path):
    notes = {"Secret.md": "---\nprivate: true\ndirector: Zanzibar Quill\n---\nx\n",
             "Shown.md": "---\nguest:: none\n---\nNothing here.\n", **OTHER}
    cfg = built(tmp_path, notes)
    conn = I.open_index(cfg)
    try:
        assert conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'zanzibar'").fetchone()[0] == 0
    finally:
        conn.close()
    assert ask(cfg, "Zanzibar Quill") == []


def test_an_old_index_without_the_props_column_is_rebuilt(tmp_path):
    cfg = built(tmp_path, {"a.md": "x\n"})
    conn = sqlite3.connect(str(I.index_path(cfg)))
    conn.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(Exception, match="old schema"):
        I.open_index(cfg)


# --- summaries never leak markup or template text ------------------------------------------------

def test_html_is_no_summary():
    body = ('<a href="https://www.loom.com/share/x">  <img style="" src="https://cdn.loom.com/x.gif"> </a>\n\n'
            "Lookup finds notes <b>fast</b>.\n")
    assert first_paragraph(body) == "Lookup finds notes fast."


def test_a_templates_fill_ins_and_instructions_are_no_summary():
    page = ("- *Engineering Design Project Template*\n"
            "- **Category:** [Engineering Discipline/Design Focus] *(Replace with specific focus)*\n"
            "- **Start Date:** [Start Date] *(Replace with actual start date)*\n"
            "- **Milestones:** *(Should be connected to tangible deliverables)*\n")
    s = first_paragraph(page)
    assert "[Start Date]" not in s and "Replace with" not in s and "(Should" not in s


def test_a_heading_in_a_list_item_and_an_empty_item_end_nothing_they_should_not():
    assert first_paragraph("- ## Step 1: Install\n- **Download**\n\t- Visit the site and download it.\n") == \
        "Visit the site and download it."
    assert first_paragraph("- *Emphasize the point-based approach*\n-\n") == "Emphasize the point-based approach"


def test_callout_titles_and_navigation_links_are_no_summary():
    assert first_paragraph("<< [[2023-10-17]] | [[2023-10-19]] >>\n\n> [!SOURCE] Sources\n>\n\n"
                           "## Journal\n\n> Personalized daily activity logs\n") == "Personalized daily activity logs"
    assert first_paragraph("> [!TIP] This is my vault's homepage.\n") == "This is my vault's homepage."
    assert first_paragraph("*Source: chrome-extension://abc/options.html*\n\n> A test clipping\n") == "A test clipping"


def test_logseq_page_tags_and_alias_are_the_pages_tags_and_aliases(tmp_path):
    vault = make_vault(tmp_path, {"pages/Paper.md": "tags:: [[Micro fluidics]], #pumps\nalias:: Pump paper\n- body\n"},
                       app="logseq")
    (vault / "logseq" / "config.edn").write_text("{}\n", encoding="utf-8")
    cfg = load_config(vault=vault)
    n = parse_note("pages/Paper.md", (vault / "pages/Paper.md").read_bytes(), cfg.values)
    assert n.tags == ["Micro fluidics", "pumps"] and "Pump paper" in n.aliases


def test_a_date_property_is_found_by_the_day_in_words(tmp_path, cache_dir):
    """`birthday: 1984-07-31` answers "whose birthday is on July 31st?": a date value is also
    indexed in words, with the day as a number and as an ordinal."""
    from conftest import query_items, run_cli, write_file

    v = tmp_path / "vault"
    write_file(v, "people/Betty T.md", "---\nbirthday: 1984-07-31\n---\nMet at the climbing gym.\n")
    write_file(v, "people/Sam K.md", "---\nbirthday: 1990-03-02\n---\nWorks on boats.\n")
    for i in range(6):
        write_file(v, f"Notes/Note {i}.md", f"Filler note {i} about July plans.\n" if i % 2 else f"Filler {i}.\n")
    r = run_cli("--vault", str(v), "rebuild")
    assert r.returncode == 0, r.stderr
    got = [i["path"] for i in query_items(v, "whose birthday is on July 31st?")]
    assert got[:1] == ["people/Betty T.md"]
    assert [i["path"] for i in query_items(v, "who was born on March 2nd?")][:1] == ["people/Sam K.md"]
    write_file(v, "Notes/Payday.md", "Salaries are paid on the 31st.\n")  # the ordinal as written still counts
    assert run_cli("--vault", str(v), "sync").returncode == 0
    assert [i["path"] for i in query_items(v, "what is paid on the 31st?")][:1] == ["Notes/Payday.md"]


READWISE = """---
categories:
  - "[[Clippings]]"
source: readwise
---

# Awesome Local Speech Models

![rw-book-cover](https://example.org/cover.png)

## Metadata
- Author: [[tleyden]]
- Full Title: Awesome Local Speech Models
- Category: #articles
- Summary: The post lists local speech-to-speech models that work fully offline.
- URL: https://www.reddit.com/r/LocalLLaMA/comments/1/awesome/

## Full Document
A long pasted thread about microphones and latency.
"""


def test_a_readwise_metadata_list_is_properties_and_its_summary_the_summary(tmp_path):
    """Readwise's export keeps an article's properties as `- Key: value` lines under `## Metadata`:
    `Summary` is the note's summary (not the `Full Title` line), `Author` a fact the answer shows."""
    cfg = built(tmp_path, {"Clippings/Awesome Local Speech Models.md": READWISE, **OTHER})
    conn = I.open_index(cfg)
    try:
        summary = conn.execute("SELECT summary FROM notes WHERE path LIKE 'Clippings/%'").fetchone()[0]
    finally:
        conn.close()
    assert summary == "The post lists local speech-to-speech models that work fully offline."
    # a list without a Summary is no first paragraph either, wherever inline queries sit before it
    conn_cfg = built(tmp_path / "b", {"Clip.md": "# `= this.file.name`\n\n## Metadata\n- Author: [[x]]\n"
                                                 "- URL: https://example.org/a\n\n## Full Document\nThe article argues.\n"})
    conn = I.open_index(conn_cfg)
    try:
        assert conn.execute("SELECT summary FROM notes WHERE path = 'Clip.md'").fetchone()[0] == "The article argues."
    finally:
        conn.close()
    items = ask(cfg, "which article did tleyden write?")
    assert items and items[0]["path"] == "Clippings/Awesome Local Speech Models.md"
    assert any("in the property Author" in w for w in items[0]["why"]), items[0]["why"]
