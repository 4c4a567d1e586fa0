"""Titles as the vault's app shows them and summaries its owner would write, over the hard cases
in fixtures/dialects/ (one note per rule, from each app's documented conventions)."""
from __future__ import annotations

from pathlib import Path

from memory_plugin.core import config
from memory_plugin.core.config import load_config
from memory_plugin.vault.notes import SUMMARY_CHARS, parse_note, trim

DIALECTS = Path(__file__).resolve().parent.parent / "fixtures" / "dialects"


def note(vault: str, rel: str):
    cfg = load_config(vault=DIALECTS / vault)
    return parse_note(rel, (DIALECTS / vault / rel).read_bytes(), cfg.values)


def test_the_dialect_is_read_from_the_vaults_own_files(tmp_path):
    detect_dialect = config.detect_dialect
    assert [detect_dialect(DIALECTS / d) for d in ("obsidian", "dendron", "logseq")] == \
        ["obsidian", "dendron", "logseq"]
    assert load_config(vault=DIALECTS / "dendron").values["dialect"] == "dendron"
    (tmp_path / "root.schema.yml").write_text("version: 1\n")  # a Dendron vault inside a workspace
    assert detect_dialect(tmp_path) == "dendron"
    assert detect_dialect(None) == "plain"


# --- titles -------------------------------------------------------------------------------------

def test_obsidian_titles_a_note_by_its_file_name_not_a_later_h1():
    n = note("obsidian", "References/Kevin Kelly.md")
    assert n.display_title == "Kevin Kelly"
    assert "Clippings" not in n.aliases  # a section further down names nothing


def test_obsidian_keeps_the_title_property_and_opening_h1_searchable_as_aliases():
    n = note("obsidian", "Home.md")
    assert n.display_title == "Home"
    assert n.aliases == ["Start here", "Welcome"]


def test_dendron_titles_a_note_by_its_title_property_else_its_hierarchy_leaf():
    assert note("dendron", "dendron.topic.lookup.md").display_title == "Lookup"
    assert note("dendron", "dendron.topic.schema.md").display_title == "Schemas"
    assert note("dendron", "daily.journal.no-title.md").display_title == "No title"


def test_logseq_decodes_the_page_name_from_the_file_name():
    assert note("logseq", "pages/gardening___what to sow%3F.md").display_title == "gardening/what to sow?"


def test_logseq_title_property_names_the_page():
    assert note("logseq", "pages/tomato-notes.md").display_title == "Tomatoes"


def test_logseq_journal_is_titled_by_its_date():
    n = note("logseq", "journals/2024_01_02.md")
    assert n.display_title == "Jan 2nd, 2024" and "2024-01-02" in n.aliases


# --- summaries ----------------------------------------------------------------------------------

def test_a_placeholder_is_never_a_summary():
    assert note("obsidian", "Placeholder only.md").summary == ""
    assert note("obsidian", "Template leftovers.md").summary == \
        "Tomatoes need staking before the first truss sets."


def test_a_run_of_headings_or_links_is_not_a_summary():
    assert note("obsidian", "Minimal Theme.md").summary == \
        "Minimal is a distraction-free theme for the Obsidian app by kepano."


def test_changelog_lines_are_not_a_summary():
    assert note("obsidian", "Release history.md").summary == "Every release of the plugin, newest first."


def test_setext_and_bold_headings_are_not_prose():
    assert note("obsidian", "Setext heading.md").summary == "Soil pH decides which beds get the blueberries."


def test_inline_fields_are_facts_not_prose():
    assert note("obsidian", "Logseq style fields.md").summary == "Sweet peas climb the north fence."


def test_summary_properties_in_order_skipping_empty_and_placeholder_values():
    assert note("obsidian", "Excerpt.md").summary == "Why raised beds warm up earlier in spring."
    assert note("dendron", "dendron.topic.schema.md").summary == "Templates for the structure of a hierarchy"


def test_dendron_links_read_as_their_labels_and_notes():
    n = note("dendron", "dendron.topic.lookup.md")
    assert n.summary == ("Lookup finds notes by name; see the schema docs and dendron.topic.hierarchies "
                         "for how names nest.")


def test_dendron_changelog_note_summary_is_its_prose():
    assert note("dendron", "changelog.md").summary == "The notable changes of each Dendron release."


def test_long_summaries_end_at_a_sentence_else_at_a_word():
    s = note("obsidian", "Long prose.md").summary
    assert len(s) <= SUMMARY_CHARS and s.endswith("needs dry browns such as straw or cardboard.")
    s = note("obsidian", "No sentence end.md").summary
    words = (DIALECTS / "obsidian" / "No sentence end.md").read_text().split()
    assert len(s) <= SUMMARY_CHARS and s.endswith("…") and s[:-1].split()[-1] in words


def test_trim_cuts_at_a_sentence_or_a_word():
    assert trim("x" * 20 + " Another sentence here. And more words follow after it", 50) == \
        "x" * 20 + " Another sentence here."
    # a sentence too short to keep (under a third of the room): cut at a word instead
    assert trim("Short one. " + "word " * 60, 60) == "Short one. " + "word " * 8 + "word…"
    assert trim("alpha beta gamma delta", 12) == "alpha beta…"


def test_foam_titles_by_title_property_then_first_h1_then_file_name():
    """Foam's own title rule (foam-vscode markdown-parser.ts): `title:`, else the first H1, else the
    file name; a `.foam/` folder tells the vault is Foam's."""
    assert config.detect_dialect(DIALECTS / "foam") == "foam"
    assert note("foam", "reading-2024.md").display_title == "Reading list for 2024"
    assert note("foam", "terminal.md").display_title == "Terminal setup"
    assert note("foam", "scratch-pad.md").display_title == "scratch-pad"



def test_a_workspace_foam_vscode_activates_on_is_foams(tmp_path):
    """foam-vscode activates in a workspace holding `.vscode/foam.json` (its package.json's
    activationEvents), with or without a `.foam/` folder: its notes are titled as Foam titles them."""
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "foam.json").write_text("{}\n")
    assert config.detect_dialect(tmp_path) == "foam"


def test_a_folder_no_app_marked_titles_by_title_property_then_a_slug_by_its_opening_h1(tmp_path):
    """No `.obsidian/`, `.foam/`, Dendron or Logseq marker. The `title:` a note declares is its title.
    Else a slug file name (what a static site or a wiki keeps) shows the H1 that opens the note; a
    later H1 is a section. A file name written as a name is the title, as the note apps show it: an
    H1 pasted at the top of the note stays searchable, as an alias."""
    files = {"tollgate.md": "# Tollgate\n\nThe API gateway.\n",
             "kevin-kelly.md": "## Books\n\n- Cool Tools\n\n# Clippings\n\n- one\n",
             "vector-space.md": "---\ntitle: Vector Space (linear algebra)\n---\n\n# Vectors\n",
             "README.md": "# Notes by Ada\n\nWelcome.\n",
             "Notes/Base Home.md": "# Vault System Plan\n\nHow this vault is kept.\n",
             "Categories/TechLearning.md": "# Tech learning\n\n![[Tech.base]]\n",
             "Decisions/Adopt ruff.md": "---\ntitle: \"ADR-007: Ruff\"\n---\n# Ruff replaces flake8\n",
             "Notes/肠胃.md": "# 🏥 健康日志\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    cfg = load_config(vault=tmp_path)
    assert cfg.values["dialect"] == "plain"
    notes = {rel: parse_note(rel, (tmp_path / rel).read_bytes(), cfg.values) for rel in files}
    assert {rel: n.display_title for rel, n in notes.items()} == {
        "tollgate.md": "Tollgate", "kevin-kelly.md": "kevin-kelly",
        "vector-space.md": "Vector Space (linear algebra)", "README.md": "Notes by Ada",
        "Notes/Base Home.md": "Base Home", "Categories/TechLearning.md": "TechLearning", "Notes/肠胃.md": "肠胃",
        "Decisions/Adopt ruff.md": "ADR-007: Ruff"}
    assert "Vault System Plan" in notes["Notes/Base Home.md"].aliases
    assert "Tech learning" in notes["Categories/TechLearning.md"].aliases


def test_markdown_links_read_as_their_labels_and_fields_are_no_prose():
    """A destination with parentheses (`[A (B)](A (B).md)`), what a malformed link leaves
    (`[a](x.md)](y.md)`), and a Dataview field whose value follows `::` at once (`quote::“…”`, in a
    callout) never reach a summary; `std::vector` in prose is no field."""
    from memory_plugin.vault.notes import clean_summary, first_paragraph

    assert clean_summary("See [Argument (Logic)](Argument (Logic).md)") == "See Argument (Logic)"
    assert clean_summary("[Predicate](../p/predicate.md)](../p/predicate-logic.md) has limits.") == \
        "Predicate has limits."
    assert first_paragraph("> [!quote]\n> quote::“*Hard choices, easy life.*”\n\nHealth comes first.\n") == \
        "Health comes first."
    assert first_paragraph("Use std::vector for the list.\n") == "Use std::vector for the list."


def test_a_templates_instruction_left_in_a_note_is_no_summary(tmp_path):
    # Templates/ (no app settings name it) and a note made from it that kept the instruction
    (tmp_path / "Templates").mkdir()
    (tmp_path / "Templates" / "Task.md").write_text(
        "---\ntype: task\n---\n## Overview\n> One paragraph describing what and why.\n\n## Tasks\n- [ ] \n")
    (tmp_path / "Notes").mkdir()
    body = "---\ntype: task\n---\n## Overview\n> One paragraph describing what and why.\n\n" \
           "## Tasks\n- [ ] Move the header into the panel\n"
    (tmp_path / "Notes" / "UI.md").write_text(body)
    (tmp_path / "Notes" / "Own.md").write_text(body.replace("> One paragraph", "> The panel, in one paragraph"))
    cfg = load_config(vault=tmp_path)
    parse = lambda rel: parse_note(rel, (tmp_path / rel).read_bytes(), cfg.values).summary  # noqa: E731
    assert parse("Notes/UI.md") == "Move the header into the panel"
    assert parse("Notes/Own.md").startswith("The panel, in one paragraph")  # the owner's own words stay


def test_a_tag_line_or_a_greeting_is_not_a_summary():
    from memory_plugin.vault.notes import first_paragraph

    assert first_paragraph("#dv/ #dvjs/list\n\n> [!hint] Contributed by Ann\n\nLists the open tasks.") == \
        "Lists the open tasks."
    assert first_paragraph("Good day!\n\nThis vault shows Dataview queries.\n") == "This vault shows Dataview queries."
    assert first_paragraph("Hello world programs print one line.\n") == "Hello world programs print one line."
    assert first_paragraph("#1 rule: keep pages short.\n") == "#1 rule: keep pages short."
    assert first_paragraph("Welcome!\n") == "Welcome!"  # nothing after it: still the note's only prose
    for line in ("Good morning routine: wake at 6.", "Hello world in Go.", "Hey Jude chords"):
        assert first_paragraph(f"{line}\n\nMore text.\n") == line  # a line that opens with a greeting word


def test_a_label_on_a_line_of_its_own_is_a_heading_not_the_summary():
    """An exported report sets its headings as lines of their own (`CHALLENGE`, `Key points:`): the
    summary is the paragraph after it; a short line that is a sentence stays."""
    from memory_plugin.vault.notes import first_paragraph

    assert first_paragraph("CHALLENGE\n\nHandling PII was the client's concern.\n\nAPPROACH\n") == \
        "Handling PII was the client's concern."
    assert first_paragraph("Key points:\n\nThe cache is rebuilt at night.\n") == "The cache is rebuilt at night."
    assert first_paragraph("NASA builds rockets.\n\nMore.\n") == "NASA builds rockets."
    assert first_paragraph("Rust is fast\n\nMore.\n") == "Rust is fast"
    assert first_paragraph("The plan for the move: three steps\n\nMore.\n") == "The plan for the move: three steps"


def test_a_display_formula_ends_the_summary_and_is_never_in_it():
    """Obsidian's display math (`$$` … `$$`) is a formula: the paragraph before it is the summary, and a
    note that opens with one is summarised by the prose after it."""
    from memory_plugin.vault.notes import first_paragraph

    assert first_paragraph("A BST is a type of [[Binary Tree]] where:\n$$\n\\text{left} < node\n$$\n") == \
        "A BST is a type of Binary Tree where:"
    assert first_paragraph("$$\nR = \\begin{bmatrix} 1 \\end{bmatrix}\n$$\n\nThe rotation matrix.\n") == "The rotation matrix."
    assert first_paragraph("$$ x = y $$\n\nThe prose after.\n") == "The prose after."
    assert first_paragraph("Costs $$5 a month.\n") == "Costs $$5 a month."
    assert first_paragraph("> [!info] Stiff system\n> Both fast and slow parts:\n> $$\n> y = 3 - e^{-t}\n> $$\n") == \
        "Both fast and slow parts:"  # a formula in a callout
    assert first_paragraph("Can we solve $$Ax = b$$ for every vector?\n") == "Can we solve Ax = b for every vector?"


def test_a_templater_script_and_inline_footnotes_are_no_summary():
    """A Templater command over several lines (`<%*` … `%>`) is the template's code, and an inline
    footnote (`^[…]`) an aside: the summary is the prose around them."""
    from memory_plugin.vault.notes import first_paragraph

    script = "<%*\nconst dv = app.plugins.plugins['dataview'].api;\nawait dv.io.load('x');\n%>\nRegenerates the tables.\n"
    assert first_paragraph(script) == "Regenerates the tables."
    cited = "**Longtermism** is an ethical stance^[Torres, [Against longtermism](https://x.org), 2021.] on the future.\n"
    assert first_paragraph(cited) == "Longtermism is an ethical stance on the future."
    linked = "A stance^[see [[Torres 2021]] and [the paper](https://x.org)] on the future.\n"
    assert first_paragraph(linked) == "A stance on the future."
    # a `<%` in prose is text: only a command opened at a line's start runs to its `%>`
    assert first_paragraph("Use <% for ERB tags in Rails views.\nMore prose.\n") == \
        "Use <% for ERB tags in Rails views. More prose."
