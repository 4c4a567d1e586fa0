"""reorganize reads the vault as its app does: Dendron's hierarchy, templates and journals, embeds and
property links, Logseq's pages that exist by reference, and one proposal per cause."""
import json
import random

from conftest import reorganize_proposals, run_cli, write_file as _write


_proposals = reorganize_proposals


PROSE = ("Notes on the thing, written for a reader who comes back to them later: what it is, how it "
         "is set up, and why it was chosen over the two others that were tried first.\n")


def test_dendron_hierarchy_children_are_never_orphans(tmp_path):
    v = tmp_path / "vault"
    _write(v, "dendron.yml", "version: 5\n")
    _write(v, "root.md", "---\ntitle: Root\n---\nThe workspace.\n")
    _write(v, "pkg.md", "---\ntitle: Packages\n---\nEvery package we ship.\n")
    _write(v, "pkg.cli.md", "---\ntitle: CLI\n---\nThe command line package.\n")
    _write(v, "pkg.cli.flags.md", "---\ntitle: Flags\n---\nEvery flag of the command line.\n")
    _write(v, "area.tools.md", "---\ntitle: Tools\n---\nUnder a stub: `area.md` was never written.\n")
    _write(v, "lonely.md", "---\ntitle: Lonely\n---\nA root note with nothing below it and no link.\n")
    orphans = {p["notes"][0] for p in _proposals(v) if p["kind"] == "orphan"}
    assert "pkg.cli.flags.md" not in orphans and "pkg.cli.md" not in orphans and "pkg.md" not in orphans
    assert "area.tools.md" not in orphans  # a stub's child is in the tree Dendron shows
    # a top-level note hangs below `root.md` in Dendron's tree (it was an orphan here before: no longer)
    assert "lonely.md" not in orphans and "root.md" not in orphans


def test_templates_are_never_duplicates_orphans_or_summaries(tmp_path):
    v = tmp_path / "vault"
    _write(v, ".obsidian/templates.json", json.dumps({"folder": "Meta/Tpl"}))
    for name in ("Book", "Film", "Album"):
        _write(v, f"Meta/Tpl/{name}.md", "---\ntype: note\n---\n" + PROSE)
    _write(v, "Notes/Dune.md", "A book I read twice. See [[Film]].\n")
    props = _proposals(v)
    assert not [p for p in props if any(n.startswith("Meta/Tpl/") for n in p["notes"])], props


def test_embeds_and_attachments_count_as_links(tmp_path):
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Categories/Books.md", "![[Books.base]]\n\nThe Island book is not in it. " + PROSE)
    _write(v, "Categories/Books.base", "views:\n  - type: table\n")
    _write(v, "Island.md", PROSE)  # an orphan: Books.md names it (the place to link it from)
    orphans = {p["notes"][0] for p in _proposals(v) if p["kind"] == "orphan"}
    assert "Categories/Books.md" not in orphans
    assert "Island.md" in orphans


def test_empty_and_identical_notes_are_one_proposal_each(tmp_path):
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    for k in range(4):
        _write(v, f"Inbox/Untitled {k}.md", "")
    for name in ("IntelliJ", "Emacs", "Vim"):
        _write(v, f"Editors/{name}.md", "# VSCode\n" + PROSE)
    props = _proposals(v)
    dups = [p for p in props if p["kind"] == "duplicate"]
    assert len(dups) == 1 and sorted(dups[0]["notes"]) == ["Editors/Emacs.md", "Editors/IntelliJ.md", "Editors/Vim.md"]
    assert dups[0]["reasons"] == ["identical content"]
    empty = [p for p in props if p["kind"] == "empty"]
    assert len(empty) == 1 and len(empty[0]["notes"]) == 4
    assert not any(p["kind"] == "orphan" and p["notes"][0].startswith("Inbox/") for p in props)


def test_dangling_links_only_when_they_meant_a_note(tmp_path):
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Concepts/Write-ahead logging.md", PROSE)
    _write(v, "Concepts/Kubernetes.md", "---\naliases: [K8s]\n---\n" + PROSE)
    _write(v, "Areas/Ops.md", "Uses [[Write-ahead loging]] and [[K8s]]; later [[A note to write]], "
                              "[[2024-05-01]] and [[Old/Place/Kubernetes]].\n")
    props = [p for p in _proposals(v) if p["kind"] == "dangling"]
    by_target = {p["target"]: p for p in props}
    assert by_target["Write-ahead loging"]["intended"] == "Concepts/Write-ahead logging.md"
    assert by_target["K8s"]["intended"] == "Concepts/Kubernetes.md"
    assert by_target["Old/Place/Kubernetes"]["intended"] == "Concepts/Kubernetes.md"
    assert "A note to write" not in by_target and "2024-05-01" not in by_target  # notes to write, a day
    assert all(p["reasons"] for p in props)


def test_logseq_pages_exist_by_reference(tmp_path):
    v = tmp_path / "vault"
    _write(v, "logseq/config.edn", "{:journals-directory \"journals\"}\n")
    _write(v, "pages/3D Printing.md", "- " + PROSE)
    _write(v, "journals/2024_03_03.md", "-\n")
    _write(v, "journals/2024_03_04.md", "-\n")
    _write(v, "pages/Lab.md", "- Printing with [[3D-printing]] for [[Some Page]] on [[Mar 3rd, 2024]] #[[Another Page]]\n")
    props = _proposals(v)
    dangling = {p["target"] for p in props if p["kind"] == "dangling"}
    assert dangling == {"3D-printing"}
    assert not [p for p in props if any(n.startswith("journals/") for n in p["notes"])]


def test_no_hub_beside_a_category_note(vault):
    """Five notes linked in a ring in one folder: a hub is proposed for them, unless they share a
    category note (`categories: [[Clippings]]`, a note of that name existing)."""
    names = ["Clip one", "Clip two", "Clip three", "Clip four", "Clip five"]

    def lay(category):
        for k, n in enumerate(names):
            prop = "categories:\n  - \"[[Clippings]]\"\n" if category else "type: note\n"
            _write(vault, f"Clips/{n}.md", f"---\n{prop}---\n{n} is a clipping. See [[{names[(k + 1) % 5]}]].\n")
    lay(False)
    hubs = [p for p in _proposals(vault) if p["kind"] == "no-hub" and "Clips/Clip one.md" in p["notes"]]
    assert hubs and hubs[0]["reasons"]
    _write(vault, "Categories/Clippings.md", "![[Clippings.base]]\n")
    lay(True)
    assert not [p for p in _proposals(vault) if p["kind"] == "no-hub" and "Clips/Clip one.md" in p["notes"]]


def test_no_hub_for_notes_each_filed_under_its_own_category(vault):
    """A ring of notes in one folder, each filed under a category of its own (People, Albums, Books:
    kepano's References/): the category notes are their ways in, no MOC beside them."""
    names = ["Ref one", "Ref two", "Ref three", "Ref four", "Ref five"]
    cats = ["People", "Albums", "Books", "People", "Albums"]

    def lay(category):
        for k, n in enumerate(names):
            prop = f"categories:\n  - \"[[{cats[k]}]]\"\n" if category else "type: note\n"
            _write(vault, f"Refs/{n}.md", f"---\n{prop}---\n{n} is a reference. See [[{names[(k + 1) % 5]}]].\n")
    lay(False)
    assert [p for p in _proposals(vault) if p["kind"] == "no-hub" and "Refs/Ref one.md" in p["notes"]]
    for c in set(cats):
        _write(vault, f"Categories/{c}.md", f"![[{c}.base]]\n")
    lay(True)
    assert not [p for p in _proposals(vault) if p["kind"] == "no-hub" and "Refs/Ref one.md" in p["notes"]]


def test_no_hub_for_notes_the_vault_already_enters(vault):
    """A ring of overview pages in one folder, one of them listed by the home note: the vault's own
    way in to them (an entry point), no MOC beside it."""
    names = ["Ov one", "Ov two", "Ov three", "Ov four", "Ov five"]
    for k, n in enumerate(names):
        _write(vault, f"Overviews/{n}.md", f"---\ntype: note\n---\n{n} is an overview. See [[{names[(k + 1) % 5]}]].\n")
    assert [p for p in _proposals(vault) if p["kind"] == "no-hub" and "Overviews/Ov one.md" in p["notes"]]
    home = vault / "Home.md"
    home.write_text(home.read_text() + "\nThe overviews start at [[Ov one]].\n")
    assert not [p for p in _proposals(vault) if p["kind"] == "no-hub" and "Overviews/Ov one.md" in p["notes"]]


def test_a_duplicate_is_superseded_by_the_note_that_says_more(vault):
    """Two notes alike: the suggestion retires the one that says less for the fuller one, whichever
    is older (a stub kept beside the page it became; a clip beside its fuller copy)."""
    text = ("Workers wake on LISTEN and NOTIFY from the enqueue transaction, so no poller runs; the "
            "channel is named per queue and the payload carries the job id only.\n")
    extra = ("It also lists the three pollers the team tried, the week each was dropped, and the numbers "
             "from the load test that decided it.\n")
    _write(vault, "Notes/Queue wakeup.md", "---\ncreated: 2020-01-01\n---\n" + text + extra)
    _write(vault, "Notes/Queue wakeup draft.md", "---\ncreated: 2024-01-01\n---\n" + text)
    dup = [p for p in _proposals(vault) if p["kind"] == "duplicate" and "Notes/Queue wakeup.md" in p["notes"]]
    assert dup and "supersede 'Notes/Queue wakeup draft.md' 'Notes/Queue wakeup.md'" in dup[0]["suggestion"], dup


def test_a_note_of_properties_only_is_not_empty(tmp_path):
    """A property-first note (a book: author, year, isbn) holds its facts in properties: never an
    empty note; one with only a date and a category is."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    _write(v, "Books.md", "The books.\n")
    _write(v, "Reading.md", "I read [[Out of Control]] and [[Stub]].\n")
    _write(v, "Out of Control.md", '---\ncategories:\n  - "[[Books]]"\nauthor:\n  - "[[Kevin Kelly]]"\n'
                                   "year: 1992\ncreated: 2023-09-12\n---\n")
    _write(v, "Stub.md", '---\ncategories:\n  - "[[Books]]"\ncreated: 2023-09-12\n---\n')
    empty = {n for p in _proposals(v) if p["kind"] == "empty" for n in p["notes"]}
    assert "Stub.md" in empty and "Out of Control.md" not in empty


def test_logseq_links_find_pages_by_their_decoded_names_aliases_and_tags(tmp_path):
    """Logseq's page names: `x%3A y.md` holds page `x: y`, `a___b.md` page `a/b` (file name format
    :triple-lowbar); `alias::` names a page too; `#tag` and `#[[Multi Word]]` reference a page."""
    v = tmp_path / "vault"
    _write(v, "logseq/config.edn", "{:file/name-format :triple-lowbar}\n")
    _write(v, "pages/DARPA Dryer.md", "- Parts: [[DARPA Dryer: Break 1]] and [[Can we do it?]]\n- " + PROSE)
    _write(v, "pages/DARPA Dryer%3A Break 1.md", "- " + PROSE)
    _write(v, "pages/Can we do it%3F.md", "- " + PROSE)
    _write(v, "pages/lang___python.md", "- " + PROSE)
    _write(v, "pages/Electronix.md", "- " + PROSE)
    _write(v, "pages/Open Hardware.md", "- " + PROSE)
    _write(v, "pages/Kay Tools.md", "alias:: KT\n\n- " + PROSE)
    _write(v, "pages/Overview.md", "- [[lang/python]] and [[KT]]\n- Sorting parts #[[Open Hardware]] " + PROSE)
    _write(v, "journals/2023_04_26.md", "- Soldered the board #Electronix\n")
    _write(v, "pages/Kanboard.md", "- " + PROSE)
    _write(v, "pages/Boards.md", "- Kanboard was tried and dropped; [[Overview]] lists the rest. " + PROSE)
    props = _proposals(v)
    orphans = {p["notes"][0] for p in props if p["kind"] == "orphan"}
    assert orphans == {"pages/Kanboard.md"}, orphans  # named in Boards.md, linked nowhere
    assert not [p for p in props if p["kind"] == "dangling"], props
    assert "journals/2023_04_26.md" in _backlinks(v, "pages/Electronix.md")
    assert "pages/Overview.md" in _backlinks(v, "pages/Kay Tools.md")


def _backlinks(vault, path):
    r = run_cli("--vault", str(vault), "backlinks", path, "--json")
    assert r.returncode == 0, r.stderr
    return {b["src"] if isinstance(b, dict) else b for b in json.loads(r.stdout)["backlinks"]}


def test_logseq_link_to_a_page_made_later_resolves_on_sync(tmp_path):
    v = tmp_path / "vault"
    _write(v, "logseq/config.edn", "{}\n")
    _write(v, "pages/Plan.md", "- See [[Step: One]] and [[area/sub]] #Later\n- " + PROSE)
    _write(v, "pages/Other.md", "- " + PROSE + "\n- [[Plan]]\n")
    _proposals(v)
    _write(v, "pages/Step%3A One.md", "- " + PROSE)
    _write(v, "pages/area___sub.md", "- " + PROSE)
    _write(v, "pages/Later.md", "- " + PROSE)
    assert run_cli("--vault", str(v), "sync").returncode == 0
    r = run_cli("--vault", str(v), "reorganize", "--json", "--limit", "1000")
    orphans = {p["notes"][0] for p in json.loads(r.stdout)["proposals"] if p["kind"] == "orphan"}
    assert not orphans & {"pages/Step%3A One.md", "pages/area___sub.md", "pages/Later.md"}
    for page in ("pages/Step%3A One.md", "pages/area___sub.md", "pages/Later.md"):
        assert "pages/Plan.md" in _backlinks(v, page), page


def test_orphans_only_where_linking_is_the_vaults_norm(tmp_path):
    """A wiki organised by tags (most notes link nowhere): an unlinked note is its norm, no orphan."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Index.md", "The [[Jokes]] page.\n")
    _write(v, "Jokes.md", PROSE)
    for k, name in enumerate(("Trivia", "Quotes", "Music", "Stop", "Books", "Travel")):
        _write(v, f"{name}.md", f"---\ntags: [t{k}]\n---\n{PROSE}Mentions Satire quotes.\n")
    _write(v, "Satire quotes.md", PROSE)
    assert not [p for p in _proposals(v) if p["kind"] == "orphan"]


def test_orphans_only_where_another_note_names_them(tmp_path):
    """An unlinked note nothing names has no place to be linked from: it stands alone."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    for k in range(4):
        _write(v, f"Ring {k}.md", f"{PROSE}Next: [[Ring {(k + 1) % 4}]]. Tried Kanboard once.\n")
    _write(v, "Kanboard.md", PROSE)
    _write(v, "Dating profile.md", PROSE)
    orphans = [p for p in _proposals(v) if p["kind"] == "orphan"]
    assert [p["notes"][0] for p in orphans] == ["Kanboard.md"]
    assert "Ring 0.md" in orphans[0]["suggestion"]


def test_orphans_the_app_leaves_out_and_names_in_code_are_no_proposals(tmp_path):
    """A Foam workspace's settings leave its scratch buffer out of the orphans report
    (`foam.orphans.exclude`, in VS Code's settings.json with its comments and trailing commas); a name
    said only in code (`GET /links`) is an identifier, no place to link the note from."""
    v = tmp_path / "vault"
    _write(v, ".vscode/foam.json", "{}\n")
    _write(v, ".vscode/settings.json", '{\n  // where drafts wait\n  "foam.orphans.exclude": [\n    "buffer",\n  ],\n}\n')
    for k in range(4):
        _write(v, f"notes/Ring {k}.md", f"# Ring {k}\n{PROSE}Next: [[Ring {(k + 1) % 4}]]. Tried Kanboard and Wekan once.\n"
               "```\nGET /links HTTP/1.1\n```\n")
    _write(v, "notes/Kanboard.md", "# Kanboard\n" + PROSE)
    _write(v, "buffer/Wekan.md", "# Wekan\n" + PROSE)
    _write(v, "notes/Links.md", "# Links\n" + PROSE)
    assert [p["notes"][0] for p in _proposals(v) if p["kind"] == "orphan"] == ["notes/Kanboard.md"]
    _write(v, ".vscode/settings.json", "{}\n")
    assert [p["notes"][0] for p in _proposals(v) if p["kind"] == "orphan"] == ["buffer/Wekan.md", "notes/Kanboard.md"]


def test_a_logseq_pdf_highlights_page_is_the_apps_own_page(tmp_path):
    """Logseq's PDF reader keeps a PDF's highlights in a page of its own, `hls__<pdf name>`, beside the
    page the owner keeps about the paper: the app's page, never a duplicate, orphan or summary to write
    (in a Logseq graph only)."""
    from memory_plugin.core.config import load_config
    from memory_plugin.memory.reorganize import VaultShape

    notes = [{"path": p, "type": "note", "body": ""} for p in
             ("pages/hls__2001_Moss_Ring lattices.md", "pages/2001_Moss_Ring lattices.md")]
    for marker, made in (("logseq/config.edn", True), (".obsidian/app.json", False)):
        v = tmp_path / marker.split("/")[0]
        _write(v, marker, "{}\n")
        vs = VaultShape.read(load_config(vault=v, cache_dir=tmp_path / "cache"), notes)
        assert vs.app_made(notes[0]["path"]) is made and vs.machinery(notes[0]["path"]) is made
        assert not vs.app_made(notes[1]["path"]) and not vs.machinery(notes[1]["path"])
    # ... nor a place to link the paper's page from: its highlights page names the PDF, the paper's name
    g = tmp_path / "graph"
    _write(g, "logseq/config.edn", "{}\n")
    for k in range(4):
        _write(g, f"pages/Ring {k}.md", f"- {PROSE}- Next: [[Ring {(k + 1) % 4}]].\n")
    _write(g, "pages/Moss ring lattices.md", "- " + PROSE)
    _write(g, "pages/hls__Moss ring lattices.md", "file:: [Moss ring lattices.pdf](../assets/Moss ring lattices.pdf)\n"
           "file-path:: ../assets/Moss ring lattices.pdf\n\n- the Moss ring lattices quarter band\n  hl-page:: 2\n")
    assert not [p for p in _proposals(g) if p["kind"] == "orphan"]
    _write(g, "pages/Ring 0.md", f"- {PROSE}- Next: [[Ring 1]]. Read Moss ring lattices.\n")
    assert [p["notes"][0] for p in _proposals(g) if p["kind"] == "orphan"] == ["pages/Moss ring lattices.md"]


def test_a_logseq_block_reference_links_two_pages(tmp_path):
    """Logseq links a page that references another page's block (`((uuid))`, `{{embed ((uuid))}}`) to
    that page, the block's `id::` (also written as the block's first line, `- id:: …`) marking it: neither
    is an orphan; a page no reference reaches still is."""
    g = tmp_path / "graph"
    _write(g, "logseq/config.edn", "{}\n")
    uid, uid2 = "65430d84-a1db-400d-b05f-0578198574b5", "64565059-ba36-4bfd-8fa8-516fa601aab3"
    for k in range(4):
        _write(g, f"pages/Ring {k}.md", f"- {PROSE}- Next: [[Ring {(k + 1) % 4}]]. Gauge, Parity and Potts.\n")
    _write(g, "pages/Gauge.md", f"- {PROSE}- The connection is ((" + uid + ")).\n")
    _write(g, "pages/Parity.md", f"- {PROSE}\t- id:: {uid}\n\t  The parity operator.\n"
           "- {{embed ((" + uid2 + "))}}\n")
    _write(g, "pages/Potts.md", f"- {PROSE}- A block.\n  id:: {uid2}\n")
    _write(g, "pages/Lonely.md", f"- {PROSE}")
    _write(g, "pages/Ring 0.md", f"- {PROSE}- Next: [[Ring 1]]. Gauge, Parity, Potts and Lonely.\n")
    assert [p["notes"][0] for p in _proposals(g) if p["kind"] == "orphan"] == ["pages/Lonely.md"]


def test_summaries_only_where_the_vault_writes_them(tmp_path):
    """No vault note carries a summary property: none is missing one. Where they do, never for an empty
    note (the `empty` kind's, as a note others link to), a page that only gathers, or a hierarchy node."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Conventions/Tabs nowhere.md", "---\ntype: convention\n---\n# Tabs nowhere\nTabs: no.\n\n" + PROSE)
    _write(v, "Notes/Plain.md", PROSE + "[[Tabs nowhere]]\n")
    assert not [p for p in _proposals(v) if p["kind"] == "missing-summary"]
    for k in range(4):
        _write(v, f"Notes/Summed {k}.md", f"---\nsummary: Note {k} says what it is.\n---\n{PROSE}")
    _write(v, "Conventions/Empty rule.md", "---\ntype: convention\n---\n")
    _write(v, "Conventions/People.md", "---\ntype: convention\n---\n![[People.base]]\n- [[Plain]]\n")
    _write(v, "Notes/Linker.md", PROSE + "[[Empty rule]]\n")
    for k in range(2):
        _write(v, f"Conventions/Summed rule {k}.md", f"---\ntype: convention\nsummary: Rule {k} in a line.\n---\n{PROSE}")
    # too little prose to condense: a diagram under its heading, an image and its caption
    _write(v, "Conventions/Diagram.md", "---\ntype: convention\n---\n# Ethira diagram\n```mermaid\ngraph TD\n" +
           "".join(f"  node{k}[Service {k} calls the queue] --> node{k + 1}\n" for k in range(12)) + "```\n")
    _write(v, "Conventions/Shot.md", "---\ntype: convention\n---\n![[shot.png]]\nSecret vs tokens\n")
    # a kind of note the vault writes no summaries for (a folder none of whose notes has one)
    _write(v, "Rules/Tabs elsewhere.md", "---\ntype: convention\n---\nTabs: no.\n\n" + PROSE)
    props = _proposals(v)
    missing = [p for p in props if p["kind"] == "missing-summary"]
    assert [p["notes"][0] for p in missing] == ["Conventions/Tabs nowhere.md"], missing
    assert "`summary:`" in missing[0]["suggestion"]
    empty = [p for p in props if p["kind"] == "empty" and "Conventions/Empty rule.md" in p["notes"]]
    assert empty and "link to it" in " ".join(empty[0]["reasons"])


def test_dendron_stub_links_and_section_embeds(tmp_path):
    """`[[dendron]]` beside `dendron.learning.md` names Dendron's stub node, never another note; a note
    that embeds another's section is not its duplicate."""
    v = tmp_path / "vault"
    _write(v, "dendron.yml", "version: 5\n")
    _write(v, "root.md", "---\ntitle: Root\n---\nThe workspace.\n")
    _write(v, "dendron.learning.md", "---\ntitle: Learning\n---\nHow to learn the workspace.\n")
    _write(v, "vim.plugins.dendron.md", "---\ntitle: Dendron\n---\nThe Neovim plugin.\n")
    _write(v, "vscode.md", "---\ntitle: VS Code\n---\nUse [[dendron]] in it.\n")
    text = ("Two views registered under one name crash the app at start; rename the second view, rebuild "
            "the bundle, clear the packager cache and start again from a clean install of every module.\n")
    _write(v, "lang.js.picker.md", f"---\ntitle: Picker\n---\n## Two views\n\n{text}")
    _write(v, "lang.cljs.issues.two-views.md", f"---\ntitle: Two views\n---\n![[lang.js.picker#two-views]]\n\n{text}")
    props = _proposals(v)
    assert not [p for p in props if p["kind"] == "dangling"], props
    assert not [p for p in props if p["kind"] == "duplicate"], props


def test_dendron_links_by_a_notes_last_part_are_one_proposal_to_write_the_whole_name(tmp_path):
    """Dendron finds a note only by its whole dotted name: `[[hasComment]]` beside `p.hasComment.md`
    is a link to write whole (label first), never a new note `hasComment.md` (a hierarchy of its
    own); several such links are one habit, one proposal."""
    v = tmp_path / "vault"
    _write(v, "dendron.yml", "version: 5\n")
    _write(v, "p.hasComment.md", "---\ntitle: hasComment\n---\nA predicate for comments.\n")
    _write(v, "p.instanceOf.md", "---\ntitle: instanceOf\n---\nA predicate for classes.\n")
    _write(v, "soln.markdown.md", "---\ntitle: Markdown\n---\n- [[hasComment]] plain\n- [[instanceOf]] a format\n")
    props = [p for p in _proposals(v) if p["kind"] == "dangling"]
    assert len(props) == 1 and props[0]["action"] is None, props
    assert "[[hasComment|p.hasComment]]" in props[0]["suggestion"] and "[[instanceOf|p.instanceOf]]" in props[0]["suggestion"]


def test_a_label_does_not_repoint_a_name_the_vault_links_bare(tmp_path):
    """`[[Microsoft DOS|Windows Command Line]]` beside bare `[[Microsoft DOS]]` links: the name means a
    page of its own (to write), not the note named like the label."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Windows Command Line.md", PROSE)
    _write(v, "Batch.md", "[[Microsoft DOS]] and [[Microsoft DOS|Windows Command Line]] commands.\n- [[Microsoft DOS]]\n")
    _write(v, "Old.md", "See [[Gone/Place/Thing|Windows Command Line]].\n")
    dangling = {p["target"]: p for p in _proposals(v) if p["kind"] == "dangling"}
    assert "Microsoft DOS" not in dangling
    assert dangling["Gone/Place/Thing"]["intended"] == "Windows Command Line.md"  # a stale path still is


def test_links_that_mean_no_note_of_the_vault_are_not_repointed(tmp_path):
    """A label with no word of its target's is what the link says (`[[Citation needed|Original
    research]]` is no label-first link to the note `Original research`); a relative path above the
    vault's root names a file of the repository around it; a web address in `[[ ]]` is proposed as a
    web link, never pointed at the note named like its last part."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Categories/Original research.md", PROSE)
    _write(v, "README.md", PROSE)
    _write(v, "Timnit Gebru.md", PROSE)
    _write(v, "Decisions/Use SQLite for local state.md", PROSE)
    _write(v, "Frameworks/React.js.md", PROSE)
    _write(v, "Definitions/DRD.md", PROSE)
    _write(v, "Tools.md", PROSE + "[[Reactjs|React.js]] and the [[Data Requirement Document|DRD]].\n")
    _write(v, "Essay.md", PROSE + "[[Citation needed|Original research]]. [[../../README]] is the index.\n"
           "[[Timnit Gebru]] said it[[https://en.wikipedia.org/wiki/Timnit_Gebru]].\n"
           "It is [[https://schema.org/isSimilarTo|similar to]] the other.\n"  # a notation of the owner's
           "[[the SQLite decision|Use SQLite for local state]]\n")
    dangling = {p["target"]: p for p in _proposals(v) if p["kind"] == "dangling"}
    assert "Citation needed" not in dangling and "../../README" not in dangling
    assert not [p for p in dangling.values() if "https://schema.org/isSimilarTo" in p.get("targets", [p["target"]])]
    url = dangling["https://en.wikipedia.org/wiki/Timnit_Gebru"]
    assert url["intended"] != "Timnit Gebru.md" and "web link" in url["suggestion"] and url["action"] is None
    # written label-first, both halves name one thing: still read as the note it meant
    assert dangling["the SQLite decision"]["intended"] == "Decisions/Use SQLite for local state.md"
    # ... as are one word written apart and together, and a name and its initials
    assert dangling["Reactjs"]["intended"] == "Frameworks/React.js.md"
    assert dangling["Data Requirement Document"]["intended"] == "Definitions/DRD.md"
    _write(v, "Sub/Doc.md", PROSE + "[[../Gone/Timnit Gebru]]\n")  # one folder up from one down: in the vault
    moved = {p["target"]: p for p in _proposals(v) if p["kind"] == "dangling"}
    assert moved["../Gone/Timnit Gebru"]["intended"] == "Timnit Gebru.md"


def test_two_generated_listings_of_the_vault_are_no_duplicates(tmp_path):
    """`System/New files` and `System/Recently edited`: one table of the vault's notes in two orders,
    regenerated by a template. Two indexes, not one note written twice; an identical copy still is."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    names = [f"Page {w}" for w in ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel")]
    for n in names:
        _write(v, f"Pages/{n}.md", PROSE + n + "\n")
    head = "%% update via the publish template %%\n\n| File | Name | Date |\n| --- | --- | --- |\n"
    _write(v, "System/New files.md", head + "".join(
        f"| [[Pages/{n}.md\\|{n}]] | {n} of the wiki about the topic | 2024-0{k + 1}-01 |\n" for k, n in enumerate(names)))
    _write(v, "System/Recently edited.md", head + "".join(
        f"| [[Pages/{n}.md\\|{n}]] | {n} of the wiki about the topic | 2025-0{k + 1}-02 |\n"
        for k, n in enumerate(reversed(names))))
    dup = [p for p in _proposals(v) if p["kind"] == "duplicate"]
    assert not [p for p in dup if any(n.startswith("System/") for n in p["notes"])], dup
    # two lists of web bookmarks are no index of the vault: compared by what they hold
    links = "".join(f"- [{n} docs](https://docs.example.org/{k}) on {n}, the manual and its guide\n" for k, n in enumerate(names))
    _write(v, "Sources/Wiki tools.md", "# Wiki tools\n" + links)
    _write(v, "Sources/Wiki.md", "# Wiki\n" + links + "- [Extra](https://extra.example.org)\n")
    assert any({"Sources/Wiki tools.md", "Sources/Wiki.md"} <= set(p["notes"])
               for p in _proposals(v) if p["kind"] == "duplicate")
    _write(v, "System/New files copy.md", (v / "System/New files.md").read_text())
    dup = [p for p in _proposals(v) if p["kind"] == "duplicate"]
    assert any({"System/New files.md", "System/New files copy.md"} <= set(p["notes"]) for p in dup), dup


def test_an_alias_link_is_repointed_not_given_a_redirect_note(tmp_path):
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Concepts/Kubernetes.md", "---\naliases: [K8s]\n---\n" + PROSE)
    _write(v, "Ops.md", "Runs on [[K8s]].\n")
    p = next(p for p in _proposals(v) if p["kind"] == "dangling" and p["target"] == "K8s")
    assert p["action"] is None and "[[Kubernetes|K8s]]" in p["suggestion"]


def test_pairs_the_author_made_and_pages_the_app_made_are_no_proposals(tmp_path):
    """A guide that links its reference note is a pair its author made, not a duplicate; Logseq's own
    pages (Contents, a task marker's page) and Dendron's empty notes made by following a link are the
    app's; a link is never pointed at the note that holds it."""
    v = tmp_path / "obs"
    _write(v, ".obsidian/app.json", "{}")
    text = ("Sparse checkout fetches only the folders you name. Run git sparse-checkout init with cone mode, "
            "then git sparse-checkout set with the folders; git read-tree updates the working tree. Disable "
            "it again with git sparse-checkout disable when the whole repository is needed once more.\n")
    _write(v, "Git - Sparse Checkout.md", text)
    _write(v, "Guide - Sparse Checkout.md", text + "See [[Git - Sparse Checkout]].\n")
    _write(v, "Cloud Service Providers.md", PROSE + "[[Cloud Service Provider]]\n")
    props = _proposals(v)
    assert not [p for p in props if p["kind"] == "duplicate"]
    assert not [p for p in props if p["kind"] == "dangling"]
    lsq = tmp_path / "lsq"
    _write(lsq, "logseq/config.edn", "{}\n")
    _write(lsq, "pages/contents.md", "")
    _write(lsq, "pages/TODO.md", "")
    _write(lsq, "pages/Garden.md", "- " + PROSE)
    assert not [p for p in _proposals(lsq) if p["kind"] == "empty"]
    den = tmp_path / "den"
    _write(den, "dendron.yml", "version: 5\n")
    _write(den, "topic.md", "---\nid: t\ntitle: Topic\n---\n")
    _write(den, "notes.md", "---\nid: n\ntitle: Notes\n---\n" + PROSE + "See [[topic]].\n")
    assert not [p for p in _proposals(den) if p["kind"] == "empty"]


def test_an_orphan_named_only_in_links_urls_or_headings_is_not_mentioned(tmp_path):
    """A name inside another link (`[[Kanboard Setup]]`), a URL or a heading is no place to link from."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    for k in range(4):
        _write(v, f"Ring {k}.md", f"{PROSE}Next: [[Ring {(k + 1) % 4}]]. See [[Kanboard Setup]] and "
                                  f"https://example.com/kanboard.\n- ## Kanboard\n")
    _write(v, "Kanboard Setup.md", PROSE)
    _write(v, "Kanboard.md", PROSE)
    assert not [p for p in _proposals(v) if p["kind"] == "orphan"]


SPARSE = ("Sparse checkout fetches only the folders you name. Run git sparse-checkout init with cone mode, "
          "then git sparse-checkout set with the folders; git read-tree updates the working tree. Disable "
          "it again with git sparse-checkout disable when the whole repository is needed once more.\n")


def test_drafts_vocabularies_and_files_named_without_their_extension(tmp_path):
    """A `status: draft` note is empty on purpose; `type: "[[Task]]"` in many notes is the vault's
    vocabulary, not a slip for `Tasks`; `[[Bases/Tasks]]` meant the file Bases/Tasks.base."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Categories/Tasks.md", PROSE)
    _write(v, "Bases/Tasks.base", "views:\n  - type: table\n")
    for k in range(3):
        _write(v, f"Notes/Task {k}.md", '---\ntype: "[[Task]]"\ncategories: ["[[Tasks]]"]\n---\n' + PROSE)
    _write(v, "Notes/Home.md", "Open [[Bases/Tasks]] for the board. " + PROSE)
    _write(v, "Bases/Games.base", "filters: categories.contains(link(\"Games\"))\n")
    _write(v, "Notes/Zelda.md", '---\ncategories: ["[[Games]]"]\n---\n' + PROSE)  # a category note to write
    _write(v, "Notes/Wasm.md", "---\nstatus: draft\n---\n")
    _write(v, "Notes/Rust.md", "---\nstatus: draft\n---\n")
    _write(v, "Notes/Plan.md", PROSE + "Next: [[Wasm]].\n")
    props = _proposals(v)
    dangling = {p["target"]: p for p in props if p["kind"] == "dangling"}
    assert "Task" not in dangling, dangling
    assert dangling["Bases/Tasks"]["intended"] == "Bases/Tasks.base"
    assert "Games" not in {t for p in dangling.values() for t in p.get("targets", [p["target"]])}, dangling
    assert not [p for p in props if p["kind"] == "empty"], props


def test_dendron_duplicates_are_what_notes_say_not_their_template_links_or_tree(tmp_path):
    """Siblings made from one template, cards of links and URLs, a parent and its child, and notes named
    for two cases of one topic (siblings, or one aspect of two things) are no duplicates; three drafts
    of one plan are one proposal."""
    v = tmp_path / "vault"
    _write(v, "dendron.yml", "version: 5\n")
    tpl = ("## What the article claims\n\nThe main claim of the piece in a sentence or two, and the evidence "
           "the author gives for it, with the page numbers.\n\n## Why it matters to me\n\nHow it changes what I "
           "think or do about the subject, and which of my projects it touches.\n")
    _write(v, "templates.article.md", "---\nid: t\ntitle: Article\n---\n" + tpl)
    _write(v, "ar.rust.md", "---\nid: r\ntitle: Rust in production\n---\n" + tpl + "Borrow checker wins.\n")
    _write(v, "ar.zig.md", "---\nid: z\ntitle: Zig comptime\n---\n" + tpl + "Comptime generics.\n")
    card = "- [[p.hasURL]] https://example.com/{}\n- [[p.hasCreator]] @maggie-appleton\n" \
           "- [[p.isRelated]] [[t.km.digital-gardening]] [[t.km.evergreen-notes]]\n"
    _write(v, "ar.garden-history.md", "---\nid: g\ntitle: Garden history\n---\n" + card.format("history"))
    _write(v, "ar.evergreens.md", "---\nid: e\ntitle: Evergreens\n---\n" + card.format("evergreens"))
    _write(v, "git.sparse.md", "---\nid: s\ntitle: Sparse checkout\n---\n" + SPARSE)
    _write(v, "git.sparse.cone.md", "---\nid: c\ntitle: Cone mode\n---\n" + SPARSE + "Cone mode is faster.\n")
    for k, extra in enumerate(("", "Second draft.", "Third draft, final.")):
        _write(v, f"proj.offline.plan{k or ''}.md", f"---\nid: p{k}\ntitle: plan{k}\n---\n" + PROSE + SPARSE + extra)
    db = ("Register the context in Program.cs with the connection string from appsettings.json, add the "
          "provider's package, run dotnet ef migrations add Initial and dotnet ef database update, then "
          "inject the context into the controllers that need it.\n")
    for name, extra in (("mysql", "UseMySql with ServerVersion.AutoDetect."), ("sqlite", "UseSqlite with a file.")):
        _write(v, f"dotnet.efcore.using.{name}.md", f"---\nid: {name}\ntitle: {name}\n---\n{db}{extra}\n")
    sig = ("Node descriptor: logical type router, complex descriptor available false, user descriptor "
           "available false, frequency band 2.4 GHz, MAC capability flags allocate address true, alternate "
           "PAN coordinator false, device type full function device, power source mains, receiver on when idle.\n")
    for name, extra in (("switch", "Endpoint 1 on/off cluster."), ("sensor", "Endpoint 1 occupancy cluster.")):
        _write(v, f"zb.{name}.device-signature.md", f"---\nid: s{name}\ntitle: Device signature\n---\n{sig}{extra}\n")
    dups = [p for p in _proposals(v) if p["kind"] == "duplicate"]
    assert [p["notes"] for p in dups] == [["proj.offline.plan.md", "proj.offline.plan1.md", "proj.offline.plan2.md"]], dups


def test_a_note_and_its_source_filed_apart_are_proposed_for_a_link(tmp_path):
    """A slip-box's permanent note and the reference note it was written from (`category:` apart) say
    the same on purpose: link them, do not merge them."""
    v = tmp_path / "vault"
    _write(v, "permanent/sparse-checkout.md", "---\ncategory: note\n---\n" + SPARSE)
    _write(v, "reference/sparse-checkout.md", "---\ncategory: reference/articles\n---\nFrom the git docs. " + SPARSE)
    dup = next(p for p in _proposals(v) if p["kind"] == "duplicate")
    assert dup["suggestion"].startswith("link one from the other") and "category" in dup["reasons"][0]


def test_a_one_word_name_in_another_sense_is_no_mention(tmp_path):
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "Agents.md", "Agents combine a language model with tools: the model plans each step, the tools "
                           "act, and a loop feeds every result back to the model until the task is done.\n")
    _write(v, "Skincare.md", "The skin keeps external agents out and moisture in; a cream with ceramides "
                             "repairs the barrier. See [[Planner]].\n")
    _write(v, "Planner.md", "Our planner runs agents: the language model plans each step and the tools act "
                            "on it. See [[Skincare]].\n")
    orphan = next(p for p in _proposals(v) if p["kind"] == "orphan")
    assert orphan["notes"] == ["Agents.md"] and "Planner.md" in orphan["reasons"][2]
    assert "Skincare.md" not in orphan["reasons"][2]


def test_two_works_by_their_identifiers_are_no_duplicates(tmp_path):
    """Two literature pages of one template and one author (Logseq's Zotero pages) name two works by
    their `doi::`: alike in words, not one note written twice."""
    v = tmp_path / "vault"
    _write(v, "logseq/config.edn", "{}\n")
    for name, doi in (("A", "10.1149/ma2021-01521"), ("B", "10.1149/ma2021-02522"), ("A again", "10.1149/ma2021-01521")):
        _write(v, f"pages/@Sparse checkout {name}.md", f"doi:: {doi}\n\n- {SPARSE}")
    dups = [sorted(p["notes"]) for p in _proposals(v) if p["kind"] == "duplicate"]
    assert dups == [["pages/@Sparse checkout A again.md", "pages/@Sparse checkout A.md"]], dups


def test_twins_of_one_shape_are_one_proposal_listing_the_pairs(tmp_path):
    """Each article clipped twice, at the root and in `Clippings/` (two importers): one proposal that
    says so and lists every pair; two such pairs alone stay two proposals."""
    topics = ["sourdough starters", "bicycle gears", "tide tables", "violin strings", "glacier melt"]

    def vault(root, n):
        _write(root, ".obsidian/app.json", "{}")
        rnd = random.Random(1)
        vocab = ("ledger harbour cobalt meadow quartz lantern orchard falcon ember saffron pylon thimble gravel "
                 "junction walnut prism anchor velvet cactus tundra basalt mosaic pepper canyon kettle").split()
        for t in topics[:n]:
            own = " ".join(rnd.choice(vocab) for _ in range(60))
            text = f"An article on {t}, clipped for later. {own}.\n"
            _write(root, f"{t.title()}.md", text)
            _write(root, f"Clippings/{t.title()}.md", text + "Saved from the reader app.\n")
        return [p for p in _proposals(root) if p["kind"] == "duplicate"]

    dups = vault(tmp_path / "a", 5)
    assert len(dups) == 1 and len(dups[0]["pairs"]) == 5, dups
    assert "have a twin in" in dups[0]["title"] and "Clippings/" in dups[0]["title"]
    assert {frozenset(p) for p in dups[0]["pairs"]} == {frozenset((f"{t.title()}.md", f"Clippings/{t.title()}.md"))
                                                       for t in topics}
    assert len(vault(tmp_path / "b", 2)) == 2


def test_twins_are_named_alike_but_for_a_copys_mark_or_a_clippers_cut():
    from memory_plugin.memory.reorganize import _twins

    assert _twins("Pi Coding Agent 1.md", "Pi Coding Agent.md")
    assert _twins("Clippings/Fastlagsvägen 61.md", "Fastlagsvagen 61 (01kdq9sw1e6j9ztd7qdh707eq4).md")
    assert _twins("What's Your Current Best Stack? (01knc82b).md", "Clippings/Whats Your Current Best Stack.md")
    assert _twins("Experimental Drug Can Reverse Osteoarthritis in Weeks, Animal Research… (01kq).md",
                  "Clippings/Experimental Drug Can Reverse Osteoarthritis in Weeks, Animal Research Shows.md")
    assert _twins("F/Databases with R Resources.md (1).md", "F/Databases with R Resources.md.md")
    for a, b in (("Docker", "Docker Best Practices"), ("Windows Registry", "Windows Registry Hacks"),
                 ("Chapter 1", "Chapter 2"), ("Windows 10", "Windows 11"), ("Week 12", "Week 13"),
                 ("Python (programming language)", "Python (snake)"), ("Mercury [planet]", "Mercury [element]"),
                 ("2023-01", "2023-02"), ("Meeting 2024-03-01", "Meeting 2024-03-02"), ("A…", "Apple pie")):
        assert not _twins(f"Notes/{a}.md", f"Notes/{b}.md"), (a, b)
