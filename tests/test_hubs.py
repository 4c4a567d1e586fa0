"""Hubs are the notes a vault uses to enter itself (index/graph.py, entry_points): home notes, the
app's favorites, authored hubs, category notes, folder notes and hierarchy roots; link degree last.
A person, a daily note, a template or a tag-like target is never a hub for being much linked.

Each vault here is written from the apps' documented conventions, small, in a temporary folder."""
from __future__ import annotations

from pathlib import Path

from memory_plugin.core.config import load_config
from memory_plugin.index import graph as G
from memory_plugin.index import store as I


def build(root: Path, files: dict[str, str]) -> list[dict]:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    cfg = load_config(vault=root, cache_dir=root.parent / (root.name + "-cache"))
    I.rebuild(cfg)
    conn = I.open_index(cfg)
    try:
        return G.hubs(conn, cfg.hub_count)
    finally:
        conn.close()


def paths(rows: list[dict]) -> list[str]:
    return [r["path"] for r in rows]


def test_category_notes_are_hubs_and_people_dates_values_and_templates_are_not(tmp_path):
    """kepano-style: every note names its category in `categories:`; people, genres and daily notes
    are linked by many notes and are no way in."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    files = {"Categories/Books.md": "![[Books.base]]\n", "Categories/Movies.md": "![[Movies.base]]\n",
             "Categories/People.md": "![[People.base]]\n",
             "Templates/Book Template.md": '---\ncategories:\n  - "[[Books]]"\nauthor: \ngenre: \n---\n{{title}}\n',
             "References/Ada Writer.md": '---\ncategories:\n  - "[[People]]"\n---\n',
             "References/Sci-fi.md": "A genre.\n"}
    for i in range(6):
        files[f"References/Book {i}.md"] = (f'---\ncategories:\n  - "[[Books]]"\nauthor:\n  - "[[Ada Writer]]"\n'
                                            f'genre:\n  - "[[Sci-fi]]"\n---\nRead in [[2024-01-0{i + 1}]].\n')
        files[f"References/Movie {i}.md"] = (f'---\ncategories:\n  - "[[Movies]]"\ngenre:\n  - "[[Sci-fi]]"\n'
                                             f'cast:\n  - "[[Ada Writer]]"\n---\n')
        files[f"Daily/2024-01-0{i + 1}.md"] = "".join(f"- [[Book {j}]] [[Movie {j}]] [[Ada Writer]]\n" for j in range(6))
    hubs = build(v, files)
    got = paths(hubs)
    assert got[:2] == ["Categories/Books.md", "Categories/Movies.md"]
    assert {r["entry"] for r in hubs[:2]} == {"category"}
    for never in ("References/Ada Writer.md", "References/Sci-fi.md", "Templates/Book Template.md"):
        assert never not in got
    assert not [p for p in got if p.startswith("Daily/")]


def test_every_category_the_vault_files_notes_in_is_a_hub_before_link_degree(tmp_path):
    """Once `categories:` is the vault's category system (a category shared by several notes), a
    category the owner has filed one note in so far is a way in too, ahead of any note that is only
    much linked; categories come by their members, then by the notes linking to them."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    files = {f"Categories/{c}.md": f"![[{c}.base]]\n" for c in ("Books", "Movies", "Recipes", "Places")}
    for i in range(3):
        files[f"References/Book {i}.md"] = '---\ncategories:\n  - "[[Books]]"\n---\n'
    files["References/Soup.md"] = '---\ncategories:\n  - "[[Recipes]]"\n---\n'
    files["References/Rome.md"] = '---\ncategories: "[[Places]]"\n---\n'
    files["Notes/Trip.md"] = "Went to [[Rome]], one of the [[Places]].\n"
    files["References/Dune (film).md"] = '---\ncategories: "[[Movies]]"\n---\n'
    for i in range(6):  # an evergreen note that many notes link to, leading to two
        files[f"Notes/idea {i}.md"] = "Builds on [[Buy wisely]].\n"
    files["Notes/Buy wisely.md"] = "See [[idea 0]] and [[idea 1]].\n"
    hubs = build(v, files)
    got = paths(hubs)
    assert got[:4] == ["Categories/Books.md", "Categories/Places.md", "Categories/Movies.md",
                       "Categories/Recipes.md"]
    assert {r["entry"] for r in hubs[:4]} == {"category"}
    assert got.index("Notes/Buy wisely.md") > 3 and hubs[got.index("Notes/Buy wisely.md")]["entry"] == "links"


def test_a_property_no_note_shares_is_no_category_system(tmp_path):
    """`type:` naming a different note from each note classifies nothing: its targets are no hubs."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    files = {f"n{i}.md": f'---\ntype: "[[t{i}]]"\n---\n' for i in range(4)}
    files.update({f"t{i}.md": "A thing.\n" for i in range(4)})
    assert not [r for r in build(v, files) if r["entry"] == "category"]


def test_home_first_then_what_it_lists_and_folder_notes_by_depth(tmp_path):
    """A README at the root opens the vault; the notes it lists come next in its order; a folder's
    README heads that folder, less so the deeper it sits."""
    v = tmp_path / "vault"
    files = {"README.md": "# My wiki\n\n- [[books]]\n- [[tools]]\n",
             "books.md": "Books I read.\n", "tools.md": "Tools I use.\n",
             "Areas/_README.md": "The areas.\n",
             "Areas/Code/Lang/Deep/_README.md": "A corner.\n",
             "Areas/Code/Lang/Deep/a.md": "a\n", "Areas/Code/Lang/Deep/b.md": "b\n",
             # much linked, from notes of no consequence: a note by link degree alone
             "Ada.md": "A person I know.\n"}
    for i in range(12):
        files[f"Areas/n{i}.md"] = "[[Ada]] said so.\n"
    got = paths(build(v, files))
    assert got[0] == "README.md"
    assert got.index("books.md") < got.index("tools.md")
    assert got.index("Areas/_README.md") < got.index("Areas/Code/Lang/Deep/_README.md")
    assert "Ada.md" not in got  # linked to, linking nowhere: not a way in


def test_dendron_hierarchy_roots_are_hubs_and_its_tags_are_not(tmp_path):
    v = tmp_path / "vault"
    files = {"dendron.yml": "version: 5\n", "root.md": "---\ntitle: Root\n---\n",
             "garden.md": "---\ntitle: Garden\n---\n", "tags.md": "---\ntitle: Tags\n---\n",
             "templates.md": "---\ntitle: Templates\n---\n"}
    for leaf in ("tomato", "bean", "pea", "kale"):
        files[f"garden.{leaf}.md"] = f"---\ntitle: {leaf}\n---\nSee [[tags.green]].\n"
        files[f"templates.{leaf}.md"] = "---\ntitle: t\n---\n{{fm.title}}\n"
    files.update({"tags.green.md": "---\ntitle: Green\n---\n", "tags.red.md": "---\ntitle: Red\n---\n",
                  "tags.blue.md": "---\ntitle: Blue\n---\n"})
    hubs = build(v, files)
    got = paths(hubs)
    assert got[:2] == ["root.md", "garden.md"]
    assert hubs[1]["entry"] == "hierarchy root"
    assert not [p for p in got if p.startswith(("tags", "templates"))]


def test_a_dendron_node_over_many_notes_comes_before_a_root_over_few(tmp_path):
    """Every Dendron note sits at some depth of the hierarchy: `vim.plugins` over eight notes is a
    bigger way in than `emacs` over two, one level up."""
    v = tmp_path / "vault"
    files = {"dendron.yml": "version: 5\n", "root.md": "---\ntitle: Root\n---\n",
             "vim.md": "---\ntitle: Vim\n---\n", "vim.plugins.md": "---\ntitle: Plugins\n---\n",
             "emacs.md": "---\ntitle: Emacs\n---\n", "emacs.org.md": "---\ntitle: Org\n---\n",
             "emacs.magit.md": "---\ntitle: Magit\n---\n"}
    files.update({f"vim.plugins.p{i}.md": f"---\ntitle: p{i}\n---\n" for i in range(8)})
    got = paths(build(v, files))
    assert got[:2] == ["root.md", "vim.md"]
    assert got.index("vim.plugins.md") < got.index("emacs.md")


def test_a_site_kept_in_folders_opens_on_its_one_home_note_a_folder_down(tmp_path):
    """No home note at the root: the one index/home note one folder down (`pages/index.md`) is the
    vault's home; folders each with their own index are no home."""
    v = tmp_path / "vault"
    files = {"pages/index.md": "---\ntitle: Notes by Ada\n---\nWelcome.\n", "pages/about.md": "Me.\n"}
    files.update({f"permanent/n{i}.md": f"See [[n{(i + 1) % 6}]].\n" for i in range(6)})
    hubs = build(v, files)
    assert hubs[0]["path"] == "pages/index.md" and hubs[0]["entry"] == "home"
    w = tmp_path / "vault2"
    files.update({"permanent/index.md": "The slipbox: [[n0]], [[n1]].\n"})
    assert [r for r in build(w, files) if r["entry"] == "home"] == []


def test_a_dendron_workspace_vault_in_a_folder_opens_on_its_root(tmp_path):
    """A Dendron vault's folder is storage, not structure: a note named Index in it is a note like
    any other, not the folder's note."""
    v = tmp_path / "ws"
    files = {"dendron.yml": "version: 5\nworkspace:\n  vaults:\n    - fsPath: notes\n",
             "notes/root.md": "---\ntitle: Root\n---\n", "notes/ee.md": "---\ntitle: EE\n---\n",
             "notes/ee.hw.md": "---\ntitle: HW\n---\n", "notes/ee.zb.md": "---\ntitle: ZB\n---\n",
             "notes/Index.md": "---\ntitle: Index\n---\nA snippet.\n"}
    hubs = build(v, files)
    assert paths(hubs)[:2] == ["notes/root.md", "notes/ee.md"] and hubs[0]["entry"] == "home"
    assert "notes/Index.md" not in paths(hubs)


def test_a_published_dendron_workspace_opens_on_its_site_index(tmp_path):
    """Dendron publishes `publishing.siteIndex`, by default the first of `siteHierarchies`, as the
    site's home page: the workspace's welcome note, entered before the hierarchies it names."""
    conf = ("version: 5\nworkspace:\n  vaults:\n    - fsPath: .\n      selfContained: true\n"
            "publishing:\n  siteHierarchies:\n    - home\n    - dev\n")
    files = {"dendron.yml": conf, "notes/root.md": "---\ntitle: Docs\n---\n",
             "notes/home.md": "---\ntitle: Developer Docs\n---\nStart with [[dev]].\n",
             "notes/dev.md": "---\ntitle: Dev\n---\nDevelopment.\n",
             **{f"notes/dev.{k}.md": f"---\ntitle: {k}\n---\nA page.\n" for k in ("a", "b", "c")},
             # titled like the index's name: the setting names a note by its name, as Dendron does
             "notes/ext.repo.home.md": "---\ntitle: Home\n---\nThe repository of [[home]].\n"}
    hubs = build(tmp_path / "ws", files)
    assert {"notes/home.md", "notes/root.md"} == {r["path"] for r in hubs if r["entry"] == "home"}
    files["dendron.yml"] = conf.replace("publishing:", "publishing:\n  siteIndex: dev")
    hubs = build(tmp_path / "ws2", files)
    assert {"notes/dev.md", "notes/root.md"} == {r["path"] for r in hubs if r["entry"] == "home"}


def test_logseq_favorites_are_hubs_and_journals_never(tmp_path):
    v = tmp_path / "vault"
    files = {"logseq/config.edn": '{:meta/version 1\n ;; :favorites ["commented out"]\n'
                                  ' :favorites ["projects" "reading list"]}\n',
             "pages/Projects.md": "- [[Boat]]\n", "pages/Reading List.md": "- [[Dune]]\n",
             "pages/Boat.md": "- a boat\n", "pages/Dune.md": "- a book\n"}
    for d in range(1, 8):  # journals linking everywhere
        files[f"journals/2024_01_0{d}.md"] = "- [[Boat]] [[Dune]] [[Projects]] [[Reading List]]\n"
    got = paths(build(v, files))
    assert got[:2] == ["pages/Projects.md", "pages/Reading List.md"] or \
        got[:2] == ["pages/Reading List.md", "pages/Projects.md"]
    assert not [p for p in got if p.startswith("journals/")]


def test_obsidian_bookmarks_are_hubs(tmp_path):
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    (v / ".obsidian" / "bookmarks.json").write_text(
        '{"items": [{"type": "group", "title": "Start", "items": [{"type": "file", "path": "Notes/Start.md"}]}]}')
    files = {"Notes/Start.md": "Where I begin: [[a]], [[b]].\n", "Notes/a.md": "a\n", "Notes/b.md": "b [[a]]\n"}
    hubs = build(v, files)
    assert hubs[0]["path"] == "Notes/Start.md" and hubs[0]["entry"] == "favorite"


def test_link_degree_is_the_last_resort_without_tag_like_targets(tmp_path):
    """A vault that declares nothing: the notes that lead to many notes, not a value many notes name."""
    v = tmp_path / "vault"
    files = {"Reading.md": "".join(f"- [[r{i}]]\n" for i in range(5)), "Fantasy.md": "A genre: [[r0]], [[r1]], [[r2]].\n"}
    for i in range(5):
        files[f"r{i}.md"] = f'---\ngenre: "[[Fantasy]]"\n---\nSee [[r{(i + 1) % 5}]] and [[Fantasy]].\n'
    hubs = build(v, files)
    assert hubs[0]["path"] == "Reading.md" and hubs[0]["entry"] == "links"
    assert "Fantasy.md" not in paths(hubs)


def test_the_brief_lists_hubs_in_their_order_with_a_short_summary():
    from memory_plugin.outputs import brief

    long = "A way into the vault that says at length what it leads to. " * 6
    hubs = [{"title": t, "path": f"{t}.md", "type": "note", "status": None, "summary": long}
            for t in ("Home", "Books", "Projects")]
    data = {"vault": "/v", "notes": 3, "built_at": 1.0, "changed_at": 1.0, "conventions": [], "hubs": hubs,
            "journal": {}, "projects": {}}
    text = brief.compose(data, brief_chars=6000, now=2.0)
    lines = [l for l in text.split("## Hub notes\n", 1)[1].split("\n") if l.startswith("- ")]
    assert [l.split(" (", 1)[0] for l in lines] == ["- Home", "- Books", "- Projects"]
    for l in lines:
        assert len(l.split("): ", 1)[1]) <= brief.HUB_SUMMARY


def test_a_convention_the_home_note_lists_is_briefed_once(tmp_path):
    from memory_plugin.outputs import brief

    v = tmp_path / "vault"
    build(v, {"README.md": "Start: [[books]], [[style]].\n", "books.md": "Books.\n",
              "style.md": "---\ntype: convention\nsummary: Tabs.\n---\n"})
    cfg = load_config(vault=v, cache_dir=tmp_path / "vault-cache")
    conn = I.open_index(cfg)
    try:
        assert "style.md" in paths(G.hubs(conn, 10))
        data = brief.collect(cfg, conn)
    finally:
        conn.close()
    assert [c["path"] for c in data["conventions"]] == ["style.md"]
    assert [h["path"] for h in data["hubs"]] == ["README.md", "books.md"]


def test_a_numbered_home_note_what_it_embeds_and_emoji_folder_notes(tmp_path):
    """Obsidian Hub style: `00 - Start here` is the home (the number only orders it), the `🗂️ hub`
    map it embeds is shown as part of it, and `🗂️ 01 - Community` is its folder's note."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    files = {"00 - Start here.md": "# 00 - Start here\n\nWelcome.\n\n![[🗂️ hub#MOC]]\n",
             "🗂️ hub.md": "## MOC\n- [[01 - Community/🗂️ 01 - Community|🗂️ 01 - Community]]\n"
                          "- [[02 - Guides/🗂️ 02 - Guides|🗂️ 02 - Guides]]\n",
             "01 - Community/🗂️ 01 - Community.md": "- [[Events]]\n- [[Forum]]\n",
             "02 - Guides/🗂️ 02 - Guides.md": "- [[Guide 0]]\n",
             "01 - Community/Events.md": "Meetups.\n", "01 - Community/Forum.md": "The forum.\n",
             "Ada.md": "A person many guides thank.\n"}
    for i in range(4):
        files[f"02 - Guides/Guide {i}.md"] = "Thanks to [[Ada]].\n"
    hubs = build(v, files)
    got = paths(hubs)
    assert got[0] == "00 - Start here.md" and hubs[0]["entry"] == "home"
    assert hubs[1]["path"] == "🗂️ hub.md" and hubs[1]["entry"] == "in home"
    entry = {r["path"]: r["entry"] for r in hubs}
    assert entry["01 - Community/🗂️ 01 - Community.md"] == "folder note"
    assert entry["02 - Guides/🗂️ 02 - Guides.md"] == "folder note"
    assert "Ada.md" not in got


def test_a_section_is_entered_by_the_note_named_for_it_that_lists_it(tmp_path):
    """Obsidian Help style: a folder with no folder note by name is entered by the note named for
    it that links to most of it (`Bases/Introduction to Bases`); a note named for it that lists
    little, or a much-linked page not named for it, is no folder note."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    pages = ("Create a base", "Views", "Functions", "Formulas")
    files = {"Bases/Introduction to Bases.md": "".join(f"- [[{p}]]\n" for p in pages),
             "Bases/Bases syntax.md": "Used in [[Formulas]].\n",
             "User interface/Settings.md": "- [[Ribbon]]\n- [[Tabs]]\n",
             "User interface/Ribbon.md": "Open [[Settings]].\n", "User interface/Tabs.md": "Open [[Settings]].\n",
             "User interface/Sidebar.md": "Open [[Settings]].\n"}
    files.update({f"Bases/{p}.md": "Open [[Settings]].\n" for p in pages})
    hubs = build(v, files)
    entry = {r["path"]: r["entry"] for r in hubs}
    assert hubs[0]["path"] == "Bases/Introduction to Bases.md" and hubs[0]["entry"] == "folder note"
    assert entry.get("Bases/Bases syntax.md") != "folder note"
    assert entry.get("User interface/Settings.md") != "folder note"


def test_a_published_address_heads_the_pages_under_it(tmp_path):
    """`permalink: sync` heads `sync/faq` and `sync/plans` (Obsidian Publish): a hierarchy root
    wherever its file sits; the site options' indexFile is the home page."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    (v / "site-options.json").write_text('{"indexFile": "Welcome to the docs", "siteName": "Docs"}')
    files = {"Welcome to the docs.md": "---\npermalink: /\n---\nStart with [[Sync notes]].\n",
             "Getting started/Sync notes.md": "---\npermalink: sync-notes\n---\nHow to sync.\n",
             "Services/About Sync.md": "---\npermalink: sync\n---\nThe service.\n",
             "Services/Sync FAQ.md": "---\npermalink: sync/faq\n---\nQuestions.\n",
             "Services/Sync plans.md": "---\npermalink: sync/plans\n---\nPlans.\n",
             "Services/Sync history.md": "---\npermalink: sync/history\n---\nHistory.\n"}
    hubs = build(v, files)
    assert hubs[0]["path"] == "Welcome to the docs.md" and hubs[0]["entry"] == "home"
    entry = {r["path"]: r["entry"] for r in hubs}
    assert entry["Services/About Sync.md"] == "hierarchy root"
    assert entry.get("Services/Sync FAQ.md") != "hierarchy root"


def test_the_map_the_owners_maps_point_up_to_is_a_hub(tmp_path):
    """Maps tagged moc name their parent map in a property (`topics: [[AI]]`): that note is a map of
    maps, though `topics:` describes notes and a topic other notes name is no hub."""
    v = tmp_path / "vault"
    (v / ".obsidian").mkdir(parents=True)
    files = {"References/AI.md": "![[AI.base#MOC]]\n", "References/Cooking.md": "A topic.\n"}
    for m in ("LLM", "Agents", "Safety"):
        files[f"References/{m}.md"] = f'---\ntopics:\n  - "[[AI]]"\ntags:\n  - moc\n---\n![[AI.base#{m}]]\n'
    for i in range(5):
        files[f"Clippings/c{i}.md"] = '---\ntopics:\n  - "[[AI]]"\n  - "[[Cooking]]"\n---\nRead.\n'
    hubs = build(v, files)
    entry = {r["path"]: r["entry"] for r in hubs}
    assert entry["References/AI.md"] == "map of maps"
    assert "References/Cooking.md" not in entry


def test_a_dendron_workspace_of_several_vaults_opens_on_each_vaults_readme_and_root(tmp_path):
    """Each vault of a multi-vault workspace (dendron.yml) sits in its own folder, often its own
    repository: its README (the repository's front page) and its root note are homes; a README in a
    folder that is no vault, and an Index note in one, are notes like any other."""
    v = tmp_path / "ws"
    files = {"dendron.yml": "version: 5\nworkspace:\n  vaults:\n    - fsPath: pub\n    - fsPath: cls\n",
             "pub/root.md": "---\ntitle: Root\n---\n", "cls/root.md": "---\ntitle: Root\n---\n",
             "pub/README.md": "---\ntitle: README\n---\nMy notes: [[t.cs]], [[t.km]].\n",
             "cls/README.md": "---\ntitle: README\n---\nClasses: [[c.agent]].\n",
             "pub/t.cs.md": "---\ntitle: CS\n---\n", "pub/t.km.md": "---\ntitle: KM\n---\n",
             "pub/Index.md": "---\ntitle: Index\n---\nA snippet.\n", "cls/c.agent.md": "---\ntitle: Agent\n---\n",
             "other/README.md": "---\ntitle: README\n---\nNot a vault: [[t.cs]].\n"}
    homes = {r["path"] for r in build(v, files) if r["entry"] == "home"}
    assert homes == {"pub/root.md", "cls/root.md", "pub/README.md", "cls/README.md"}


def test_a_category_note_that_is_empty_is_no_way_in(tmp_path):
    """An empty note many notes name through `type:` is the file a click on a link leaves behind:
    never a hub; the category notes that show their members (a Base embed) are."""
    v = tmp_path / "vault"
    files = {"Categories/Books.md": "![[Books.base]]\n", "Categories/Movies.md": "![[Movies.base]]\n",
             "Authors.md": ""}
    files.update({f"b{i}.md": f"---\ncategories: [\"[[Books]]\"]\ntype: [\"[[Authors]]\"]\n---\nA book.\n"
                  for i in range(6)})
    files.update({f"m{i}.md": "---\ncategories: [\"[[Movies]]\"]\n---\nA film.\n" for i in range(3)})
    hubs = paths(build(v, files))
    assert hubs[:2] == ["Categories/Books.md", "Categories/Movies.md"] and "Authors.md" not in hubs


def test_the_categories_folder_makes_its_notes_categories_whatever_property_names_them(tmp_path):
    """A folder where the vault's category notes live (kepano's `Categories/`) is its categories
    folder: a note there that notes name through `topics:` (a describing property) is a category
    too; the same note outside that folder is a topic value, no hub."""
    def vault(where: str) -> dict:
        files = {f"Categories/{c}.md": f"![[{c}.base]]\n" for c in ("Books", "Movies", "People")}
        files[f"{where}Writing.md"] = "![[Zettelkasten.base]]\n"
        for i in range(9):
            c = ("Books", "Movies", "People")[i % 3]
            files[f"n{i}.md"] = f"---\ncategories: [\"[[{c}]]\"]\ntopics: [\"[[Writing]]\"]\n---\nA note.\n"
        return files
    assert "Categories/Writing.md" in paths(build(tmp_path / "a", vault("Categories/")))
    assert "Topics/Writing.md" not in paths(build(tmp_path / "b", vault("Topics/")))


def test_a_folder_named_categories_holds_categories_joined_by_any_link(tmp_path):
    """A wiki kept as a vault: its category pages sit, empty, in `Categories/` and pages join one by a
    closing `Categories: [[Categories/X|X]]` line. Each category is a hub with its members as reach,
    before a generated table that links every page (link degree); one no page joins is not listed;
    the same empty notes in another folder are no hubs."""
    def vault(folder: str) -> dict:
        files = {f"{folder}/{c}.md": "---\ncreated: 2024-08-31\n---\n" for c in ("Ideologies", "People", "Unused")}
        files["System/New files.md"] = "| page |\n|---|\n" + "".join(f"| [[Pages/p{i}]] |\n" for i in range(12))
        for i in range(12):
            c = "Ideologies" if i < 8 else "People"
            files[f"Pages/p{i}.md"] = f"Article {i}.\n\n> [!abstract] Categories\n> [[{folder}/{c}|{c}]]\n"
        return files
    hubs = build(tmp_path / "a", vault("Categories"))
    assert paths(hubs)[:2] == ["Categories/Ideologies.md", "Categories/People.md"]
    assert hubs[0]["entry"] == "category" and "Categories/Unused.md" not in paths(hubs)
    assert not {"Topics/Ideologies.md", "Topics/People.md"} & set(paths(build(tmp_path / "b", vault("Topics"))))


def test_a_readme_that_leads_into_no_note_is_no_home(tmp_path):
    """kepano's template ships a Readme.md that links only to websites: the repository's page for a
    code host, not the vault's home; a README that links the notes is one, and Home.md is by its name."""
    files = {f"Categories/{c}.md": f"![[{c}.base]]\n" for c in ("Books", "Movies")}
    files.update({f"n{i}.md": f"---\ncategories: [\"[[{('Books', 'Movies')[i % 2]}]]\"]\n---\nA note.\n"
                  for i in range(6)})
    web = dict(files, **{"Readme.md": "My vault. Theme: [Minimal](https://github.com/kepano/obsidian-minimal).\n"})
    assert "Readme.md" not in paths(build(tmp_path / "a", web))
    linked = dict(files, **{"Readme.md": "My vault. Start with [[Books]] and [[Movies]].\n"})
    assert paths(build(tmp_path / "b", linked))[0] == "Readme.md"
    home = dict(files, **{"Home.md": "Nothing linked yet.\n"})
    assert paths(build(tmp_path / "c", home))[0] == "Home.md"


def test_a_dendron_levels_front_page_is_its_entry(tmp_path):
    """Imported docs in Dendron: `docs.languages` has no note of its own, and its `overview` child is
    the section's front page (a folder's `index.md`, one level down the dot hierarchy): a hub before
    the much-linked settings page; a leaf named `overview` over one note is none."""
    v = tmp_path / "vault"
    files = {"dendron.yml": "version: 5\nworkspace:\n  vaults:\n    - fsPath: .\n",
             "root.md": "---\ntitle: Root\n---\nThe docs.\n",
             "docs.languages.overview.md": "---\ntitle: Programming Languages\n---\n"
                                           + "".join(f"[[docs.languages.l{i}]] " for i in range(6)) + "\n",
             "docs.single.overview.md": "---\ntitle: One\n---\nOne page: [[docs.single.only]].\n",
             "docs.single.only.md": "---\ntitle: Only\n---\nText.\n",
             "docs.settings.md": "---\ntitle: Settings\n---\nEvery setting. [[docs.languages.l0]] [[docs.languages.l1]]\n"}
    for i in range(6):
        files[f"docs.languages.l{i}.md"] = f"---\ntitle: Language {i}\n---\nSee [[docs.settings]] to configure it.\n"
    rows = build(v, files)
    kind = {r["path"]: r["entry"] for r in rows}
    assert kind.get("docs.languages.overview.md") == "hierarchy root", kind
    assert kind.get("docs.single.overview.md") != "hierarchy root"
    hubs = paths(rows)
    assert "docs.settings.md" not in hubs or hubs.index("docs.languages.overview.md") < hubs.index("docs.settings.md")
