"""Issue 28: titles as the vault's app shows them in a plain vault that links by name, and nothing a
reader is shown (summary, `why`, tags) carries template placeholders, block ids, image styles or
link syntax."""
from __future__ import annotations

import json

import pytest

from memory_plugin.core.config import load_config
from memory_plugin.search import retrieve as R
from memory_plugin.vault import dialect as D
from memory_plugin.vault import notes as N
from memory_plugin.vault.notes import clean_summary, first_paragraph, parse_note


def _write(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


PEOPLE = {
    "People/tomelliot.md": "---\naliases:\n- Tom Elliot\n---\n\n# Tom Elliot\n\n- GitHub: [tomelliot](https://github.com/tomelliot/) ^github\n",
    "People/kepano.md": "---\naliases:\n- \"@kepano\"\n---\n\n# @kepano\n\nMade [[Minimal]] and [[Obsidian Web Clipper]].\n",
    "index.md": "---\ntitle: Welcome to the hub\n---\n\nStart at [[Plugins]], [[Themes]] or [[kepano]].\n",
}


def _plain(tmp_path, files, links: str, named: bool = True):
    vault = tmp_path / "vault"
    _write(vault, files)
    # the rest of the vault, named and linking the way the owner names and links
    for i in range(6):
        body = ("See [[tomelliot]] and [[kepano|Steph]].\n" if links == "name"
                else "See [Tom](People/tomelliot.md) and [Steph](People/kepano.md).\n")
        _write(vault, {(f"Notes/Plugin review {i}.md" if named else f"notes/plugin-review-{i}.md"): f"# Note {i}\n\n{body}"})
    N._VAULT_READS.clear()
    cfg = load_config(vault=vault)
    cfg.ensure_cache_dir()  # as an index build has
    assert cfg.values["dialect"] == "plain"
    return vault, cfg


def _titles(vault, cfg, files):
    return {rel: parse_note(rel, (vault / rel).read_bytes(), cfg.values).display_title for rel in files}


def test_a_plain_vault_named_as_a_note_app_names_notes_is_titled_by_file_name(tmp_path):
    """No `.obsidian/` (a vault laid out without its settings), but `[[name]]` links and file names
    written as titles: a slug-like name (a handle) is a name too, shown as the file name; H1 and
    alias stay searchable names; a declared `title:` still wins, as in every plain vault."""
    vault, cfg = _plain(tmp_path, PEOPLE, "name")
    assert _titles(vault, cfg, PEOPLE) == {
        "People/tomelliot.md": "tomelliot", "People/kepano.md": "kepano", "index.md": "Welcome to the hub"}
    note = parse_note("People/tomelliot.md", (vault / "People/tomelliot.md").read_bytes(), cfg.values)
    assert "Tom Elliot" in note.aliases
    kept = json.loads((cfg.cache_dir / D.NAMING_FILE).read_text())
    assert kept["names_files"] is True and kept["wikilinks"] >= D.NAMING_MIN_WIKILINKS


def test_a_plain_vault_that_links_by_path_or_names_files_by_slug_keeps_the_opening_h1(tmp_path):
    """Markdown links by path (a site's notes), or wikilinks between slug-named files (a dev folder,
    `commit-messages.md` under `# Commit messages`): a slug gives way to the H1 that opens the note."""
    want = {"People/tomelliot.md": "Tom Elliot", "People/kepano.md": "@kepano", "index.md": "Welcome to the hub"}
    vault, cfg = _plain(tmp_path / "a", PEOPLE, "path")
    assert _titles(vault, cfg, PEOPLE) == want
    assert json.loads((cfg.cache_dir / D.NAMING_FILE).read_text())["names_files"] is False
    vault, cfg = _plain(tmp_path / "b", PEOPLE, "name", named=False)
    assert _titles(vault, cfg, PEOPLE) == want


def test_the_naming_is_kept_per_index_generation(tmp_path):
    """Decided once per index build: later processes read it; a new generation (a rebuild) decides
    again."""
    vault, cfg = _plain(tmp_path, PEOPLE, "path")
    cache = str(cfg.cache_dir)
    (cfg.cache_dir / "index-100.sqlite").write_bytes(b"")
    assert D.names_files(str(vault), cache) is False
    for i in range(6):  # the owner moved to wikilinks; the index generation is the same: kept
        _write(vault, {f"Notes/Plugin review {i}.md": "[[tomelliot]] [[kepano]] [[index]]\n"})
    assert D.names_files(str(vault), cache) is False
    (cfg.cache_dir / "index-200.sqlite").write_bytes(b"")  # a rebuild
    assert D.names_files(str(vault), cache) is True


def test_a_vault_with_few_links_keeps_the_plain_rules(tmp_path):
    vault = tmp_path / "v"
    _write(vault, {"Toll gate.md": "# Tollgate\n\nThe [[API]] gateway.\n", "A b.md": "# A B\n"})
    assert D.names_files(str(vault), None) is False


def test_block_ids_never_show():
    # a reference line once its block id is gone: no summary
    assert first_paragraph("- GitHub: [kepano](https://github.com/kepano/) ^github\n\nMakes themes.\n") == "Makes themes."
    assert first_paragraph("- Makes themes for [[Obsidian]] ^bio\n") == "Makes themes for Obsidian"
    assert first_paragraph("A claim worth linking to. ^claim-1\n^para\n\nNext.\n") == "A claim worth linking to."
    assert clean_summary("The block ^abc") == "The block"
    assert clean_summary("2^10 is 1024") == "2^10 is 1024"  # no space before: no block id


def test_image_styles_never_show():
    """Dendron sets an image's style after it (markdown-it-attrs): how it is drawn, no text."""
    assert first_paragraph("- demo ![note-auto-creator](https://x.io/a.gif){max-width: 300px, display: block, "
                           "margin: 0 auto} of the plugin\n") == "demo note-auto-creator of the plugin"
    assert clean_summary("[Docs](https://x.io){target=_blank} say so") == "Docs say so"
    assert first_paragraph("![x](a.png){max-width: 300px}\n\nThe prose.\n") == "The prose."


def test_placeholder_tags_are_no_tags(tmp_path):
    """`#placeholder/author` is a template's blank: never a tag of the note (nor a `why`'s "tagged
    #…"), never a fact."""
    raw = b"---\ntags: [seedling]\n---\n# Podcast\n\nHosted by #placeholder/author.\n\nhost:: #placeholder/author\n"
    note = parse_note("Podcast.md", raw, load_config(vault=tmp_path).values)
    assert note.tags == ["seedling"]
    assert "placeholder" not in note.prop_text and "placeholder" not in note.summary


@pytest.mark.parametrize("label_first, value, shown", [
    (True, "[[Nghị định 153/2020/NĐ-CP|notes.archives.nd-153]]", "Nghị định 153/2020/NĐ-CP"),
    (False, "[[notes/Ridley Scott|Ridley Scott]]", "Ridley Scott"),
    (False, "[[Ridley Scott]]", "Ridley Scott"),
    (False, "[[Ridley Scott#Films]]", "Ridley Scott"),
    (False, "[Kevin Kelly](https://kk.org){target=_blank}", "Kevin Kelly"),
    (False, "{{VALUE:author}}", ""),
    (False, "#placeholder/author", ""),
    (False, "GitHub: kepano ^github", "GitHub: kepano"),
    (False, "3 ^ 2 is nine", "3 ^ 2 is nine"),
    (True, "'[[dendron://dendron.docs/ref.module-schema]]'", "'ref.module-schema'"),
    (True, "dendron://link-user.role.ea", "link-user.role.ea"),
])
def test_a_property_in_why_reads_as_a_summary_does(label_first, value, shown):
    """`why`'s property line and the parser's clean_summary read a value alike (retrieve does not
    import the parser: the prompt hook never loads it)."""
    assert R._why_value(f"Ref: {value}", label_first) == (f"Ref: {shown}" if shown else "")
    assert clean_summary(value, label_first) == shown


def test_why_names_a_property_link_by_its_label(tmp_path):
    from memory_plugin.index import store
    from memory_plugin.search import query as Q

    _write(tmp_path, {"dendron.yml": "version: 5\n",
                      "notes.archives.nd-153.md": "---\ntitle: Nghị định 153\n---\nA decree.\n",
                      "notes.bond.md": "---\ntitle: Corporate bonds\nRef: \"[[Nghị định 153/2020/NĐ-CP|notes.archives.nd-153]]\"\n"
                                       "---\nNotes on issuing bonds.\n"})
    cfg = load_config(vault=tmp_path)
    assert cfg.values["dialect"] == "dendron"
    store.rebuild(cfg)
    conn = store.open_index(cfg)
    try:
        items = Q.query(cfg, conn, "which decree is nghị định 153 about bonds", semantic=False, as_json=True)["items"]
    finally:
        conn.close()
    whys = [w for it in items for w in it["why"]]
    assert any("in the property Ref (Nghị định 153/2020/NĐ-CP)" in w for w in whys), whys
    assert not any("|notes." in w or "[[" in w for w in whys)


def test_a_template_line_inside_a_paragraph_is_skipped_not_an_end(tmp_path):
    """A properties block the app does not read as properties (a space or blank line before its
    `---`): a paragraph closed by `---`, i.e. a setext heading, never a summary, even when one of its
    lines is a template's (jimbrig-vault: `Date Created:` left as the summary)."""
    _write(tmp_path, {"Templates/Note.md": "---\ntags: []\n---\nAuthor: Jimmy Briggs <jimmy@example.com>\n",
                      "Best Practices.md": " ---\nDate Created: 2023-06-21\nDate Modified: 2023-06-21\n"
                                           "Author: Jimmy Briggs <jimmy@example.com>\nTags: [ ]\n---\n\n"
                                           "# Best Practices\n\nUse templates for every note.\n"})
    cfg = load_config(vault=tmp_path)
    note = parse_note("Best Practices.md", (tmp_path / "Best Practices.md").read_bytes(), cfg.values)
    assert note.summary == "Use templates for every note."
