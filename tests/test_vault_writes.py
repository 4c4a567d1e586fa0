"""Notes filed as the vault's owner files them: the app's settings (vault/appsettings.py), then what the
vault's notes do (memory/vaultstyle.py); the journal in the app's daily-notes folder and format.
The small vaults here are written from each app's documented settings files."""
from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

from conftest import run_cli, write_file as put
from memory_plugin.core.config import load_config
from memory_plugin.memory import journal, write
from memory_plugin.vault import appsettings as A

DAY = dt.date(2024, 3, 5)  # a Tuesday


def dry_run(vault: Path, type_: str = "decision", **kw) -> dict:
    cfg = load_config(vault=vault, cache_dir=vault.parent / (vault.name + "-cache"))
    return write.remember(cfg, type_=type_, title=f"Zq check {type_}", summary=f"A {type_} to check where it lands.",
                          force=True, dry_run=True, today=DAY, **kw)


def jimbrig_like(root: Path) -> Path:
    """Obsidian, PARA folders, a new-note folder in app.json, capitalised keys, one Author, H1s."""
    v = root / "para"
    put(v, ".obsidian/app.json", json.dumps({"newFileLocation": "folder", "newFileFolderPath": "00 - INBOX"}))
    put(v, ".obsidian/daily-notes.json", json.dumps({"folder": "03 - AREAS/Journal/Daily", "format": "YYYY/MM-DD",
                                                     "template": "Templates/Daily"}))
    put(v, "Templates/Daily.md", '---\nDate: <% tp.date.now() %>\nAuthor: Me\nAlias: [ "<% tp.foo() %>" ]\n---\n'
                                 '# <% tp.date.now("dddd, MMMM D, YYYY") %>\n\n## Journal\n')
    for i in range(8):
        folder = ("00 - INBOX", "01 - SLIPBOX", "02 - PROJECTS", "03 - AREAS/Code")[i % 4]
        put(v, f"{folder}/Note {i}.md", f"---\nDate Created: 2023-01-0{i + 1}\nDate Modified: 2023-02-01\n"
                                         f"Author: Me <me@example.com>\nTags: [\"#Type/Note\"]\nAliases: []\n---\n\n"
                                         f"# Note {i}\n\nSome text {i}.\n")
    return v


def test_obsidian_settings_are_read_as_the_app_documents_them(tmp_path):
    v = jimbrig_like(tmp_path)
    d = A.daily_notes(str(v), "obsidian")
    assert d.rel(DAY) == "03 - AREAS/Journal/Daily/2024/03-05.md" and d.template == "Templates/Daily"
    assert A.new_note_folder(str(v), "obsidian") == "00 - INBOX"
    put(v, ".obsidian/templates.json", json.dumps({"folder": "Templates"}))
    assert A.templates_folder(str(v), "obsidian") == "Templates"
    # Periodic Notes, when enabled, takes the daily notes over
    put(v, ".obsidian/community-plugins.json", json.dumps(["periodic-notes"]))
    put(v, ".obsidian/plugins/periodic-notes/data.json",
        json.dumps({"daily": {"enabled": True, "folder": "Daily", "format": "YYYY-MM-DD ddd"}}))
    assert A.daily_notes(str(v), "obsidian").rel(DAY) == "Daily/2024-03-05 Tue.md"
    # no settings and the core plugin off: the owner keeps no daily notes
    bare = tmp_path / "bare"
    (bare / ".obsidian").mkdir(parents=True)
    assert A.daily_notes(str(bare), "obsidian") is None and A.new_note_folder(str(bare), "obsidian") is None


def test_date_formats_of_each_app():
    assert A.format_date(DAY, "YYYY/MMMM/YYYY-MMM-DD [week] WW, dddd Do", A.MOMENT) == \
        "2024/March/2024-Mar-05 week 10, Tuesday 5th"
    assert A.format_date(DAY, "yyyy_MM_dd EEE", A.LOGSEQ, ("'", "'")) == "2024_03_05 Tue"
    assert A.format_date(DAY, "'journal-'yyyy-mm-dd", A.DATEFORMAT, ("'", "'")) == "journal-2024-03-05"


def test_logseq_config_keys_are_read_and_comments_ignored(tmp_path):
    v = tmp_path / "ls"
    put(v, "logseq/config.edn", '{:meta/version 1\n ;; :journal/file-name-format "yyyy-MM-dd"\n'
                                ' :journals-directory "daily"\n :file/name-format :triple-lowbar}\n')
    assert A.logseq_config(str(v))[":file/name-format"] == ":triple-lowbar"
    assert A.daily_notes(str(v), "logseq").rel(DAY) == "daily/2024_03_05.md"
    assert A.new_note_folder(str(v), "logseq") == "pages"


def test_foam_daily_note_from_its_template_else_its_legacy_settings(tmp_path):
    v = tmp_path / "foam"
    put(v, ".foam/templates/new-note.md", "---\ntitle:\n---\n")
    assert A.daily_notes(str(v), "foam").rel(DAY) == "journal/2024-03-05.md"  # Foam's default
    put(v, ".vscode/settings.json", json.dumps({"foam.openDailyNote.filenameFormat": "'journal-'yyyy"}))
    assert A.daily_notes(str(v), "foam").rel(DAY) == "journal-2024.md"  # the root, as Foam did
    put(v, ".foam/templates/daily-note.md",
        '---\nfoam_template:\n  filepath: "days/${FOAM_DATE_YEAR}/${FOAM_DATE_MONTH}-${FOAM_DATE_DATE}.md"\n---\n')
    assert A.daily_notes(str(v), "foam").rel(DAY) == "days/2024/03-05.md"


def test_remember_files_in_the_new_note_folder_with_the_vaults_properties(tmp_path):
    v = jimbrig_like(tmp_path)
    d = dry_run(v)
    assert d["path"] == "00 - INBOX/Zq check decision.md"
    text = d["text"]
    for line in ("Tags: [decision]", "Date Created: 2024-03-05", "Date Modified: 2024-03-05",
                 'Author: "Me <me@example.com>"', "Aliases: []", "type: decision", "status: current"):
        assert f"\n{line}\n" in text, line
    assert "\n# Zq check decision\n" in text  # its notes open with an H1
    assert not os.path.exists(v / "00 - INBOX" / "Zq check decision.md")


def test_an_existing_type_folder_or_a_configured_one_still_wins(tmp_path):
    v = jimbrig_like(tmp_path)
    put(v, "Decisions/Old.md", "---\ntype: decision\n---\n# Old\n")
    assert dry_run(v)["path"] == "Decisions/Zq check decision.md"
    assert dry_run(v, "pitfall")["path"] == "00 - INBOX/Zq check pitfall.md"


def test_logseq_page_is_properties_and_bullets_in_pages(tmp_path):
    v = tmp_path / "ls"
    put(v, "logseq/config.edn", "{:meta/version 1}\n")
    for i in range(6):
        put(v, f"pages/Page {i}.md", f"- a thought about [[Page {i + 1}]]\n\t- more\n")
    put(v, "pages/Atlas.md", "- the Atlas project\n")
    put(v, "journals/2024_03_01.md", "- a day\n")
    d = dry_run(v, project="Atlas")
    assert d["path"] == "pages/Zq check decision.md"
    text = d["text"]
    assert not text.startswith("---") and "\n# " not in text and not text.startswith("# ")
    assert text.startswith("type:: decision\n") and "\nproject:: [[Atlas]]\n" in text
    assert text.rstrip().endswith("- A decision to check where it lands.")


def test_flat_foam_vault_gets_a_slug_at_the_root_with_title_and_no_h1(tmp_path):
    v = tmp_path / "foam"
    (v / ".foam").mkdir(parents=True)
    for i, name in enumerate(("api-tokens", "auto-https", "awesome-cli", "deno-tips", "rust-notes", "vim-keys")):
        put(v, f"{name}.md", f"---\ntitle: {name.replace('-', ' ').title()}\ntags:\n  - Tips\n---\n\nText {i}.\n")
    d = dry_run(v)
    assert d["path"] == "zq-check-decision.md"
    assert "\ntitle: Zq check decision\n" in d["text"] and "\ntags: [decision]\n" in d["text"]
    assert "\n# " not in d["text"]


def test_category_vault_links_the_kind_and_the_project(tmp_path):
    v = tmp_path / "cat"
    (v / ".obsidian").mkdir(parents=True)
    put(v, "Categories/Projects.md", "Projects\n")
    put(v, "Categories/Decisions.md", "Decisions\n")
    put(v, "Atlas.md", '---\ncategories:\n  - "[[Projects]]"\n---\nThe Atlas project.\n')
    for i in range(6):
        put(v, f"Notes/N{i}.md", f'---\ncategories:\n  - "[[Notes]]"\ncreated: 2024-01-0{i + 1}\n---\nText {i}.\n')
    d = dry_run(v, project="Atlas")
    text = d["text"]
    assert '\ncategories: ["[[Decisions]]"]\n' in text and "\ntags:" not in text
    assert '\nproject: "[[Atlas]]"\n' in text and "\n# " not in text


def test_the_category_notes_themselves_do_not_hide_the_category_convention(tmp_path):
    """kepano's template: every category note (`Categories/Movies`, tagged, no `categories:` of its
    own) outnumbers some categories' members; the members' shape is what a new note takes."""
    v = tmp_path / "cat"
    (v / ".obsidian").mkdir(parents=True)
    kinds = ("Movies", "Books", "People", "Places", "Posts", "Trips", "Recipes")
    for k in kinds:
        put(v, f"Categories/{k}.md", f"---\ntags:\n  - categories\n---\n![[{k}.base]]\n")
    for i, k in enumerate(kinds[:6]):
        put(v, f"References/R{i}.md", f'---\ncategories:\n  - "[[{k}]]"\ntags: []\n---\nText {i}.\n')
    d = dry_run(v)
    assert '\ncategories: ["[[Decisions]]"]\n' in d["text"] and "\ntags: [decision]" not in d["text"]


def test_a_project_is_named_as_the_vaults_notes_name_theirs(tmp_path):
    """Where the notes name their projects in a `projects:` list of links to notes that do not exist
    (repositories), a new note does too; where they write `project: name`, it does that."""
    v = tmp_path / "work"
    (v / ".obsidian").mkdir(parents=True)
    for i in range(6):
        put(v, f"Notes/T{i}.md", f'---\ntype: "[[Task]]"\nprojects:\n  - "[[aq-client]]"\n---\nTask {i}.\n')
    put(v, "Notes/Meeting.md", '---\nprojects: []\n---\nNo project.\n')
    text = dry_run(v, project="aq-client")["text"]
    assert '\nprojects: ["[[aq-client]]"]\n' in text and "\nproject:" not in text
    assert text.count("projects:") == 1
    p = tmp_path / "plain"
    for i in range(6):
        put(p, f"n{i}.md", f"---\nproject: harbor\n---\nText {i}.\n")
    text = dry_run(p, project="harbor")["text"]
    assert "\nproject: harbor\n" in text and "projects:" not in text


def test_a_vault_with_no_convention_keeps_the_plugins_layout(tmp_path):
    v = tmp_path / "plain"
    for i in range(2):  # too few notes to show a convention
        put(v, f"n{i}.md", f"Some text {i}.\n")
    d = dry_run(v)
    assert d["path"] == "Decisions/Zq check decision.md"
    assert d["text"].startswith("---\ntype: decision\nsummary:") and "\ntags: [decision]\ncreated: 2024-03-05\n" in d["text"]
    assert "\n# Zq check decision\n" in d["text"]


def test_journal_goes_to_the_daily_notes_folder_in_its_format(tmp_path):
    v = jimbrig_like(tmp_path)
    when = time.mktime(DAY.timetuple()) + 3600 * 12
    rel = journal.journal_rel("journal", when, str(v), "obsidian", user_set=False)
    assert rel == "03 - AREAS/Journal/Daily/2024/03-05.md"
    # a journal folder the user configured always wins
    assert journal.journal_rel("Log", when, str(v), "obsidian", user_set=True) == "Log/2024-03-05.md"
    head = journal.new_day_text(str(v), rel, when, "obsidian")
    # the template's properties and body with the day filled in; a property whose placeholder cannot
    # be filled is left out
    assert head == "---\ntype: journal\nDate: 2024-03-05\nAuthor: Me\n---\n# Tuesday, March 5, 2024\n\n## Journal\n\n"
    ls = tmp_path / "ls"
    put(ls, "logseq/config.edn", "{}\n")
    rel = journal.journal_rel("journal", when, str(ls), "logseq", user_set=False)
    assert rel == "journals/2024_03_05.md" and journal.new_day_text(str(ls), rel, when, "logseq") == ""


def test_session_end_appends_to_the_vaults_daily_note(tmp_path):
    v = jimbrig_like(tmp_path)
    r = run_cli("hook", "session-end", input=json.dumps({"session_id": "s1", "cwd": "/tmp/atlas", "reason": "other"}),
                env={"MEMORY_PLUGIN_VAULT": str(v)}, timeout=60)
    assert r.returncode == 0, r.stderr
    day = v / "03 - AREAS/Journal/Daily" / time.strftime("%Y/%m-%d.md")
    text = day.read_text(encoding="utf-8")
    assert text.startswith("---\ntype: journal\nDate: ") and "\nAuthor: Me\n" in text
    assert text.strip().splitlines()[-1].startswith("- ") and "session s1" in text
    assert not (v / "journal").exists()


def test_a_flat_vaults_daily_note_at_the_root_is_written(tmp_path):
    v = tmp_path / "foam"
    put(v, ".vscode/settings.json", json.dumps({"foam.openDailyNote.filenameFormat": "'journal-'yyyy"}))
    put(v, ".foam/templates/daily-note.md", "---\ntitle: ${CURRENT_YEAR} notes\ntags:\n  - Journal\n---\n\n## Reading\n")
    when = time.mktime(DAY.timetuple()) + 3600 * 12
    rel = journal.journal_rel("journal", when, str(v), "foam", user_set=False)
    assert rel == "journal-2024.md"
    cache = tmp_path / "cache"
    cache.mkdir()
    journal.append(str(v), str(cache), rel, "- 12:00 · a line", when, journal.new_day_text(str(v), rel, when, "foam"))
    assert (v / rel).read_text() == "---\ntype: journal\ntitle: 2024 notes\ntags:\n  - Journal\n---\n## Reading\n\n- 12:00 · a line\n"


def test_the_daily_notes_folder_of_a_vault_without_settings_is_the_one_its_notes_show(tmp_path):
    """kepano's template as published (no `.obsidian/`): `Daily/` holds notes named by the day, the
    templates folder a daily note template; the journal goes there, started from the template."""
    v = tmp_path / "kep"
    put(v, "Daily/2023-09-12.md", "---\ntags:\n  - daily\n---\n## Notes\n")
    put(v, "Daily/2023-09-30.md", "---\ntags:\n  - daily\n---\n## Notes\n")
    put(v, "Daily/Review.md", "A note beside them.\n")
    put(v, "Notes/2023-01-01 Kickoff.md", "Not a daily note.\n")
    put(v, "Templates/Daily Note Template.md", "---\ntags:\n  - daily\n---\n## Notes\n\n![[Daily.base]]\n")
    when = time.mktime(DAY.timetuple()) + 3600 * 12
    rel = journal.journal_rel("journal", when, str(v), "plain", user_set=False)
    assert rel == "Daily/2024-03-05.md"
    assert journal.new_day_text(str(v), rel, when, "plain") == \
        "---\ntype: journal\ntags:\n  - daily\n---\n## Notes\n\n![[Daily.base]]\n\n"
    assert A.is_daily_note("Daily/2023-09-12.md", A.daily_notes(str(v), "plain"), "plain")
    assert not A.is_daily_note("Daily/Review.md", A.daily_notes(str(v), "plain"), "plain")
    put(v, "Daily/Plan.md", "x\n")
    put(v, "Daily/Ideas.md", "x\n")  # now most of Daily/ is not dated: its name still says it
    assert journal.journal_rel("journal", when, str(v), "plain", user_set=False) == "Daily/2024-03-05.md"
    w = tmp_path / "plain"
    put(w, "Notes/2023-09-12.md", "x\n")
    put(w, "Notes/Idea.md", "x\n")
    put(w, "Notes/Other.md", "x\n")  # one dated note among others, in a folder not named for them
    assert journal.journal_rel("journal", when, str(w), "plain", user_set=False) == "journal/2024-03-05.md"
    put(w, "journal/2023-09-12.md", "---\ntype: journal\n---\n# 2023-09-12\n")
    put(w, "journal/2023-09-13.md", "---\ntype: journal\n---\n# 2023-09-13\n")
    # the plugin's own journal folder, no template: its notes start as the plugin starts them
    assert journal.new_day_text(str(w), "journal/2024-03-05.md", when, "plain").endswith("---\n# 2024-03-05\n\n")


def test_the_apps_daily_notes_are_journals(tmp_path):
    """A note the app made as a daily note (its folder and file-name format, Logseq's journals folder,
    Dendron's journal hierarchy) is a journal: never a hub, and its lines reach the brief's journal."""
    from memory_plugin.vault.notes import parse_note

    def types(vault: Path, rels: list[str]) -> dict[str, str]:
        cfg = load_config(vault=vault, cache_dir=tmp_path / (vault.name + "-cache"))
        return {r: parse_note(r, b"Some text.\n", cfg.values).type for r in rels}

    obs = tmp_path / "obs"
    put(obs, ".obsidian/daily-notes.json", json.dumps({"folder": "Daily", "format": "dddd, MMMM Do YYYY"}))
    assert types(obs, ["Daily/Tuesday, March 5th 2024.md", "Daily/Weekly review.md", "Notes/2024-03-05.md"]) == {
        "Daily/Tuesday, March 5th 2024.md": "journal", "Daily/Weekly review.md": "note", "Notes/2024-03-05.md": "note"}
    foam = tmp_path / "foam"
    put(foam, ".foam/templates/daily-note.md", '---\nfoam_template:\n  filepath: "journal-$FOAM_DATE_YEAR.md"\n---\n')
    assert types(foam, ["journal-2021.md", "journal.md", "notes-2021.md"]) == {
        "journal-2021.md": "journal", "journal.md": "note", "notes-2021.md": "note"}
    lsq = tmp_path / "lsq"
    put(lsq, "logseq/config.edn", '{:journals-directory "days"}\n')
    assert types(lsq, ["days/2024_03_05.md", "pages/days.md"]) == {"days/2024_03_05.md": "journal", "pages/days.md": "note"}
    den = tmp_path / "den"
    put(den, "dendron.yml", "version: 5\n")
    assert types(den, ["daily.journal.2024.03.05.md", "journal.md", "daily.md"]) == {
        "daily.journal.2024.03.05.md": "journal", "journal.md": "note", "daily.md": "note"}
    # an explicit type still wins
    cfg = load_config(vault=obs, cache_dir=tmp_path / "c2")
    assert parse_note("Daily/Tuesday, March 5th 2024.md", b"---\ntype: meeting\n---\nx\n", cfg.values).type == "meeting"


def test_the_general_notes_folder_and_the_properties_each_note_fills(tmp_path):
    """kepano's template: own notes in `Notes/`, `topics:` on most notes with values of their own. A new
    note goes to Notes/ and carries `topics: []` for the owner to fill. A plain folder with a `Notes/`
    keeps the plugin's layout (no app's convention says what that folder is)."""
    v = tmp_path / "kep"
    (v / ".obsidian").mkdir(parents=True)
    for i in range(3):
        put(v, f"Notes/Idea {i}.md", f'---\ntopics:\n  - "[[T{i}]]"\ncreated: 2024-01-0{i + 1}\n---\nIdea {i}.\n')
    for i in range(5):
        put(v, f"References/Ref {i}.md", f'---\ntopics:\n  - "[[R{i}]]"\n---\nRef {i}.\n')
    d = dry_run(v)
    assert d["path"] == "Notes/Zq check decision.md"
    assert "\ntopics: []\n" in d["text"]
    plain = tmp_path / "plain"
    for i in range(6):
        put(plain, f"Notes/n{i}.md", f"Some text {i}.\n")
    assert dry_run(plain)["path"] == "Decisions/Zq check decision.md"


def test_dendron_note_is_a_hierarchy_name_with_dendrons_frontmatter(tmp_path):
    import re

    v = tmp_path / "den"
    put(v, "dendron.yml", "version: 5\n")
    for i in range(6):
        put(v, f"vault/topic.n{i}.md", f"---\nid: abc{i}\ntitle: N{i}\ndesc: ''\nupdated: 1645185550463\n"
                                       f"created: 1645185550463\n---\nText {i}.\n")
    d = dry_run(v)
    assert d["path"] == "vault/decisions.zq-check-decision.md"
    text = d["text"]
    # an id that starts with a digit is written quoted (propedit.render): the same string read back
    assert re.match(r"---\nid: (\"?)[0-9A-Za-z]{21,}\1\ntitle: Zq check decision\ndesc: \"A decision to check where it "
                    r"lands.\"\nupdated: \d{13}\ncreated: \d{13}\n", text), text
    assert "\n# " not in text


def test_a_dendron_workspace_of_several_vaults_files_in_the_vault_its_owner_writes_in(tmp_path):
    """dendron.yml lists the vaults, each in its folder: a new note goes into one of them (the one
    holding the most notes), never beside them where Dendron would not see it; a self-contained
    vault keeps its notes in `notes/`."""
    v = tmp_path / "ws"
    put(v, "dendron.yml", "version: 5\nworkspace:\n  vaults:\n    - fsPath: predicates\n"
                          "    - fsPath: public-notes\n    - fsPath: ../elsewhere\n")
    for i in range(2):
        put(v, f"predicates/p.has{i}.md", f"---\nid: p{i}\ntitle: has{i}\ndesc: ''\n---\nA predicate.\n")
    for i in range(4):
        put(v, f"public-notes/t.cs.n{i}.md", f"---\nid: t{i}\ntitle: N{i}\ndesc: ''\n---\nText {i}.\n")
    assert dry_run(v)["path"] == "public-notes/decisions.zq-check-decision.md"
    sc = tmp_path / "sc"
    put(sc, "dendron.yml", "version: 5\nworkspace:\n  vaults:\n    - fsPath: .\n      selfContained: true\n")
    for i in range(2):
        put(sc, f"notes/t.n{i}.md", f"---\nid: t{i}\ntitle: N{i}\ndesc: ''\n---\nText {i}.\n")
    assert dry_run(sc)["path"] == "notes/decisions.zq-check-decision.md"


def test_a_plain_folder_whose_notes_link_each_other_files_in_its_general_notes_folder(tmp_path):
    """No app's settings, but notes written for a wiki-link app (kepano's template copied without its
    `.obsidian/`): the owner's `Notes/` is where a new note goes. The same folder whose notes neither
    link nor carry properties shows no convention: the plugin's layout."""
    v = tmp_path / "kep"
    for i in range(3):
        put(v, f"Notes/Idea {i}.md", f'---\ncategories:\n  - "[[Ideas]]"\n---\nIdea {i}, after [[Ref {i}]].\n')
    for i in range(5):
        put(v, f"References/Ref {i}.md", f"A reference {i}, see [[Idea {i % 3}]].\n")
    put(v, "Categories/Ideas.md", "Ideas.\n")
    assert dry_run(v)["path"] == "Notes/Zq check decision.md"
    assert dry_run(v, "pitfall")["path"] == "Notes/Zq check pitfall.md"
    bare = tmp_path / "bare"
    for i in range(3):
        put(bare, f"Notes/Idea {i}.md", f"Idea {i}.\n")
    for i in range(5):
        put(bare, f"References/Ref {i}.md", f"A reference {i}.\n")
    assert dry_run(bare)["path"] == "Decisions/Zq check decision.md"


def test_a_plain_folder_with_most_notes_in_one_folder_files_there(tmp_path):
    """A slipbox published from a plain folder (front matter on every note, markdown links between
    notes): three of every four notes sit in `permanent/`, the literature notes in `reference/`. A new
    note goes to `permanent/` with the vault's `title:` property, a slug name and no H1."""
    v = tmp_path / "slipbox"
    for i, name in enumerate(("unit-test-pillars", "cap-theorem", "spaced-repetition", "feynman-technique",
                              "zettel-ids", "atomic-notes")):
        put(v, f"permanent/{name}.md", f"---\ntitle: {name.replace('-', ' ').title()}\ndate: 2021-04-0{i + 1} 00:00\n"
                                      f"status: draft\n---\n\nText {i}, like [the other](atomic-notes.md).\n")
    for i, name in enumerate(("clean-code", "how-to-take-smart-notes")):
        put(v, f"reference/books/{name}.md", f"---\ntitle: {name.replace('-', ' ').title()}\n---\n\nA book {i}.\n")
    d = dry_run(v)
    assert d["path"] == "permanent/zq-check-decision.md"
    assert "\ntitle: Zq check decision\n" in d["text"] and "\n# " not in d["text"]


def test_a_plain_folder_in_the_plugins_layout_keeps_it(tmp_path):
    """Notes the plugin wrote (front matter, links) in its kind folders, most of them in `Inbox/`: the
    vault files by kind, so a kind with no folder yet gets its own (`Pitfalls/`), not the inbox."""
    v = tmp_path / "own"
    put(v, "Decisions/Use SQLite.md", "---\ntype: decision\nsummary: SQLite.\n---\n# Use SQLite\n\nSee [[Idea 0]].\n")
    for i in range(6):
        put(v, f"Inbox/Idea {i}.md", f"---\ntype: note\nsummary: Idea {i}.\n---\n# Idea {i}\n\nSee [[Use SQLite]].\n")
    assert dry_run(v)["path"] == "Decisions/Zq check decision.md"
    assert dry_run(v, "pitfall")["path"] == "Pitfalls/Zq check pitfall.md"


def test_sectioned_docs_with_no_notes_folder_get_the_apps_root_and_its_summary_spelling(tmp_path):
    """A help site kept as an Obsidian vault without its settings folder: pages in section folders
    that link each other, `description:` on most, no general-notes folder and no folder holding most
    of them. A new note goes where the app puts one by default, the root, with its summary under
    `description` (which the index reads as one); the product's own layout is not invented there."""
    v = tmp_path / "help"
    for i, section in enumerate(("Sync", "Publish", "Editing", "Plugins") * 2):
        put(v, f"{section}/Page {i}.md", f"---\ndescription: Page {i} of {section}.\npermalink: {section.lower()}/{i}\n"
                                         f"---\nSee [[Page {(i + 1) % 8}]].\n")
    d = dry_run(v)
    assert d["path"] == "Zq check decision.md"
    assert '\ndescription: "A decision to check where it lands."\n' in d["text"] and "\nsummary:" not in d["text"]
    cfg = load_config(vault=v, cache_dir=v.parent / "help-cache")
    w = write.remember(cfg, type_="decision", title="Keep pages short", summary="Short pages are read.", force=True)
    assert w["path"] == "Keep pages short.md"
    r = run_cli("--vault", str(v), "--cache-dir", str(v.parent / "help-cache"), "explain", w["path"], "--json")
    assert json.loads(r.stdout)["summary"] == "Short pages are read."  # read back from `description`


def test_a_property_each_note_carries_as_a_slug_of_its_name_is_written_for_the_new_note(tmp_path):
    """Obsidian Publish's `permalink:` (`status-bar` on `Status bar.md`, `sync/setup` on `Set up
    Sync.md`): a new note carries the slug of its title there. A property of per-note values not made
    of the file name's words (a random `uid`, a `source` address) does not get it."""
    v = tmp_path / "help"
    names = ["Status bar", "Set up Sync", "Drag and drop", "Pop-out windows", "Basic formatting syntax", "Tabs"]
    for i, name in enumerate(names):
        link = ("sync/faq", "syntax")[i % 2] if i in (1, 4) else name.lower().replace(" ", "-")
        put(v, f"Docs/{name}.md", f"---\npermalink: {link}\nuid: k{i}x9q2w{i}\nsource: https://example.com/{i}\n---\n"
                                  f"See [[{names[(i + 1) % len(names)]}]].\n")
    text = dry_run(v)["text"]
    assert "\npermalink: zq-check-decision\n" in text
    assert "uid: zq" not in text and "source: zq" not in text and text.count("zq-check-decision") == 1


def test_an_id_or_a_shared_word_from_the_file_name_is_not_a_slug_to_write(tmp_path):
    """A Zettelkasten id (`id: "202301011201"` on `202301011201 Topic 1 about gardens.md`) and a
    value many notes share (`topic: gardens`) are made of the file name's words too: neither is a
    slug of the note's name to write for a new one."""
    v = tmp_path / "zk"
    for i in range(8):
        stamp = f"2023010112{i:02d}"
        put(v, f"{stamp} Topic {i} about gardens.md", f"---\nid: \"{stamp}\"\ntopic: gardens\n---\nSee [[{stamp}]].\n")
    text = dry_run(v)["text"]
    assert "zq-check-decision" not in text
