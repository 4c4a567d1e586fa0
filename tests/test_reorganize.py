"""reorganize: proposals over the fixture vault, and applying only safe, chosen ones."""
import json

import pytest

from conftest import hash_tree, reorganize_proposals, run_cli


@pytest.fixture
def built(vault):
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    return vault


def proposals(vault):
    r = run_cli("--vault", str(vault), "reorganize", "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["proposals"]


def test_lists_numbered_proposals_without_writing(built):
    before = hash_tree(built)
    r = run_cli("--vault", str(built), "reorganize")
    assert r.returncode == 0 and "[1]" in r.stdout and "--apply" in r.stdout
    props = proposals(built)
    assert [p["id"] for p in props] == list(range(1, len(props) + 1))
    kinds = {p["kind"] for p in props}
    assert {"dangling"} <= kinds
    wal = next(p for p in props if p["kind"] == "dangling" and p["target"] == "WAL")
    # an alias link: the fix is the link (Obsidian does not follow aliases), not a redirect note
    assert wal["intended"] == "Concepts/Write-ahead logging.md" and wal["action"] is None
    assert "[[Write-ahead logging|WAL]]" in wal["suggestion"]
    label_first = next(p for p in props if p["kind"] == "dangling" and p["target"] == "the SQLite decision")
    assert label_first["intended"] == "Decisions/Use SQLite for local state.md"
    assert all("Personal/" not in json.dumps(p) for p in props)
    assert hash_tree(built) == before


def test_duplicates_stale_contradiction_superseded_linked(built):
    (built / "Learnings/Atomic writes via rename.md").write_text(
        "---\ntype: pattern\nsummary: Write to a temp file in the same directory, fsync, then os.replace onto the target.\n---\n"
        "Readers see either the old file or the new one, never half of it. The temp file must be on the same "
        "file system as the target.\n")
    (built / "Learnings/Old memory.md").write_text(
        "---\ntype: learning\nsummary: Something from long ago.\nconfidence: 0.3\ncreated: 2020-01-01\n---\nOld.\n")
    (built / "Decisions/Hub link.md").write_text("---\ntype: decision\nsummary: s\n---\nWe use [[Use Redis for job queue]].\n")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    assert run_cli("--vault", str(built), "contradicts", "Adopt ruff over flake8", "Type hints on public functions").returncode == 0
    props = proposals(built)
    dup = [p for p in props if p["kind"] == "duplicate"]
    assert any(set(p["notes"]) == {"Learnings/Atomic writes via rename.md", "Patterns/Atomic write via rename.md"}
               for p in dup)
    assert all(p["score"] > 0 and p["reasons"] for p in dup)
    assert not any(set(p["notes"]) == {"Projects/atlas/README.md", "Projects/beacon/README.md"} for p in dup)
    stale = [p for p in props if p["kind"] == "stale"]
    assert [p["notes"][0] for p in stale] == ["Learnings/Old memory.md"]
    assert any(p["kind"] == "contradiction" for p in props)
    sl = [p for p in props if p["kind"] == "superseded-linked"]
    assert sl and "Decisions/Hub link.md" in sl[0]["notes"]
    assert "Projects/atlas/Atlas.md" not in sl[0]["notes"]  # listed there as "(superseded)"


def test_apply_only_chosen_safe_proposals(built):
    (built / "Learnings/Old memory.md").write_text(
        "---\ntype: learning\nsummary: Something from long ago.\nconfidence: 0.3\ncreated: 2020-01-01\n---\nOld.\n")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    props = proposals(built)
    # (the stub for a link that meant a note: the label-first link; an alias link's fix is the link itself)
    wal = next(p for p in props if p["kind"] == "dangling" and p["target"] == "the SQLite decision")
    stale = next(p for p in props if p["kind"] == "stale" and p["action"])
    manual = next(p for p in props if not p["action"])
    note = built / stale["notes"][0]
    body_before = note.read_text().split("---\n", 2)[2]
    dry = run_cli("--vault", str(built), "reorganize", "--apply", str(wal["id"]), "--dry-run")
    assert dry.returncode == 0 and "+See [[Use SQLite for local state]]." in dry.stdout
    assert not (built / "Decisions/the SQLite decision.md").exists()
    before = hash_tree(built)
    r = run_cli("--vault", str(built), "reorganize", "--apply", f"{wal['id']},{stale['id']}", "--apply", str(manual["id"]))
    assert r.returncode == 0, r.stderr
    assert "creating Decisions/the SQLite decision.md" in r.stdout and "skipped" in r.stdout
    assert hash_tree(built) != before
    assert (built / "Decisions/the SQLite decision.md").exists()
    assert note.read_text().split("---\n", 2)[2] == body_before
    assert "status: stale" in note.read_text()
    dangling = json.loads(run_cli("--vault", str(built), "dangling", "--json").stdout)
    assert "the SQLite decision" not in [d["target"] for d in dangling]


def test_apply_unknown_id_writes_nothing(built):
    before = hash_tree(built)
    for ids in ("9999", "x", "1,9999"):
        r = run_cli("--vault", str(built), "reorganize", "--apply", ids)
        assert r.returncode == 2 and r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1
    assert hash_tree(built) == before


def _write(vault, rel, text):
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, encoding="utf-8")


def _community(vault):
    """Ten linked notes, five in project tollgate and five in project zephyr, one link between them."""
    names = {"tollgate": ["Ledger entries", "Payout batches", "Refund flow", "Chargeback desk", "Fee schedule"],
             "zephyr": ["Sensor uplink", "Firmware channel", "Battery budget", "Antenna tuning", "Flash layout"]}
    for project, ns in names.items():
        for k, n in enumerate(ns):
            links = [ns[(k + 1) % len(ns)]]
            if project == "tollgate" and k == 3:
                links.append("Sensor uplink")
            _write(vault, f"Projects/{project}/{n}.md",
                   f"---\ntype: note\nproject: {project}\ntags: [{project}]\n---\n{n} of {project}. See "
                   + " ".join(f"[[{o}]]" for o in links) + ".\n")
    assert run_cli("--vault", str(vault), "sync").returncode == 0
    return names


def test_create_hub_for_community(built):
    names = _community(built)
    hubs_proposed = [p for p in proposals(built) if p["kind"] == "no-hub"]
    assert hubs_proposed
    for p in hubs_proposed:  # each within one project, in the vault's hub folder (Maps/)
        projects = {n.split("/")[1] if n.startswith("Projects/") else "" for n in p["notes"]}
        assert len(projects) == 1, p["notes"]
        assert p["action"]["path"].startswith("Maps/"), p["action"]
    hub = next(p for p in hubs_proposed if "Projects/tollgate/Ledger entries.md" in p["notes"])
    r = run_cli("--vault", str(built), "reorganize", "--apply", str(hub["id"]))
    assert r.returncode == 0, r.stderr
    path = hub["action"]["path"]
    text = (built / path).read_text()
    assert text.startswith("---\ntype: hub\n") and all(f"[[" in l for l in text.splitlines() if l.startswith("- "))
    hubs = json.loads(run_cli("--vault", str(built), "hubs", "--json", "-n", "50").stdout)
    assert path in [h["path"] for h in hubs]
    # the new hub is not proposed again, and no other proposal duplicates it
    again = [p for p in proposals(built) if p["kind"] == "no-hub"]
    assert not any(set(p["notes"]) & set(hub["notes"]) for p in again), again
    assert all(p["action"]["path"] != path for p in again)
    assert names


def test_no_summary_only_for_briefed_notes_without_a_first_paragraph(built):
    # a first paragraph too short to stand for the note, above prose a summary would condense
    _write(built, "Conventions/Tabs nowhere.md", "---\ntype: convention\n---\n# Tabs nowhere\nTabs: no.\n\n"
           "Every file we write is indented with spaces, in every language, because reviews show tabs as a "
           "different width in each tool and the diffs then mislead whoever reads them.\n")
    _write(built, "Conventions/Heading only.md", "---\ntype: convention\n---\n# Heading only\n")  # nothing to condense
    _write(built, "Conventions/Spaces everywhere.md",
           "---\ntype: convention\n---\n# Spaces everywhere\n\nIndent with four spaces in every language we write.\n")
    _write(built, "Concepts/Bare concept.md", "---\ntype: concept\n---\n# Bare concept\n")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    missing = [p["notes"][0] for p in proposals(built) if p["kind"] == "missing-summary"]
    assert missing == ["Conventions/Tabs nowhere.md"], missing


def test_stale_only_for_memories_or_stored_confidence_never_superseded(built):
    old = "created: 2019-01-01\n"
    _write(built, "Concepts/Old concept.md", f"---\ntype: concept\n{old}---\nA concept from long ago.\n")
    _write(built, "Conventions/Old convention.md", f"---\ntype: convention\n{old}---\nStill how we work.\n")
    _write(built, "Projects/atlas/Old atlas note.md", f"---\nproject: atlas\n{old}---\nAtlas history.\n")
    _write(built, "Decisions/Old decision without confidence.md", f"---\ntype: decision\n{old}---\nWe chose X.\n")
    _write(built, "Decisions/Old superseded decision.md",
           f"---\ntype: decision\nstatus: superseded\nconfidence: 0.3\n{old}---\nWe chose Y.\n")
    _write(built, "Decisions/Old retracted decision.md",
           f"---\ntype: decision\nstatus: retracted\nconfidence: 0.3\n{old}---\nWe chose Z.\n")
    _write(built, "Learnings/Old memory.md", f"---\ntype: learning\nconfidence: 0.3\n{old}---\nOld.\n")
    _write(built, "Concepts/Old confident concept.md", f"---\ntype: concept\nconfidence: 0.3\n{old}---\nOld too.\n")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    stale = sorted(p["notes"][0] for p in proposals(built) if p["kind"] == "stale")
    assert stale == ["Concepts/Old confident concept.md", "Learnings/Old memory.md"], stale
    conf = json.loads(run_cli("--vault", str(built), "explain", "Old atlas note", "--json").stdout)["confidence"]
    assert conf["effective"] == conf["stored"] == 0.7, conf  # a default it never stored does not decay


def test_a_convention_never_goes_stale(built):
    """A convention is a rule its owner set, not an observation: an old one with a low stored
    confidence (a convention by its tag or by its type, as the index classifies notes) is not
    proposed as stale, and its confidence does not decay."""
    old = "confidence: 0.3\ncreated: 2019-01-01\n"
    _write(built, "Conventions/Old rule.md", f"---\ntags: [convention/style]\n{old}---\nWe indent with four spaces.\n")
    _write(built, "Learnings/Typed rule.md", f"---\ntype: convention\n{old}---\nBranch names start with a ticket.\n")
    _write(built, "Learnings/Old memory.md", f"---\ntype: learning\n{old}---\nOld.\n")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    stale = sorted(p["notes"][0] for p in proposals(built) if p["kind"] == "stale")
    assert stale == ["Learnings/Old memory.md"], stale
    for title in ("Old rule", "Typed rule"):
        conf = json.loads(run_cli("--vault", str(built), "explain", title, "--json").stdout)["confidence"]
        assert conf["effective"] == conf["stored"] == 0.3 and conf["age_days"] > 365, conf


def test_a_dangling_uri_link_gets_no_stub(built):
    """[[dendron://vault/Write-ahead logging]] (a cross-vault URI, dangling in Obsidian's reading) is
    reported with the note it means, but no stub is proposed at a path with a colon."""
    _write(built, "Concepts/Cross vault.md", "---\ntype: note\n---\nSee [[dendron://other/Write-ahead logging]].\n")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    p = next(p for p in proposals(built) if p["kind"] == "dangling" and p["target"].startswith("dendron:"))
    assert p["action"] is None and "by hand" in p["suggestion"]


# ---------------------------------------------------------------- what a user would accept (issue 28)

PROSE = ("Notes on the thing, written for a reader who comes back to them later: what it is, how it "
         "is set up, and why it was chosen over the two others that were tried first.\n")
AUTHOR_TEMPLATE = """---
aliases:
-
publish: true
---

# {{title}}

<!-- - GitHub: [{{title}}](https://github.com/{{title}}/) ^github-->
<!-- - Website: <https://> ^website-->

%% Feel free to add a bio below this comment, in a sentence or two about who they are %%

## Author of

%% Begin Hub: Released contributions %%

<!--
### Plugins
-->

%% End Hub: Released contributions %%

%% Add links to any plugins, themes or other notes that the author has created but are not (yet) included in the releases repo %%

<!--
## Sponsor this author
-->

<!-- - [[GitHub sponsors]]: [Sponsor @{{title}} on GitHub Sponsors](https://github.com/sponsors/{{title}}) ^github-sponsor-->
"""


def _card(handle: str, site: str, plugins: list[str]) -> str:
    """A person card as the author template makes it: a handle, an address and links, nothing else."""
    text = AUTHOR_TEMPLATE.replace("{{title}}", handle).replace("<!-- - GitHub", "- GitHub", 1)
    text = text.replace("<!-- - Website: <https://> ^website-->", f"- Website: <{site}> ^website")
    return text.replace("%% End Hub", "### Plugins\n" + "".join(f"- [[{p}]]\n" for p in plugins) + "\n%% End Hub")


_reorganize = reorganize_proposals


def test_a_numbered_templates_folder_below_the_top_holds_templates(tmp_path):
    """No `.obsidian/` names the templates folder: `00 - Contribute/01 Templates/` is one by its name.
    Its notes are alike by design (never duplicates) and their placeholder links are never dangling."""
    v = tmp_path / "vault"
    _write(v, "Video Channels/YouTube.md", PROSE)
    for name in ("T - How to", "T - New Concept", "T - New Note"):
        _write(v, f"00 - Contribute/01 Templates/{name}.md", "# {{title}}\n\n" + PROSE)
    _write(v, "00 - Contribute/01 Templates/T - YouTube Channel.md",
           "# {{title}}\n\n- Channel: [[placeholder/link|YouTube]]\n\n" + PROSE.replace("thing", "channel"))
    _write(v, "00 - Contribute/How to contribute.md", "Copy a template from [[T - New Note]]. " + PROSE)
    props = _reorganize(v)
    assert not [p for p in props if any("01 Templates/" in n for n in p["notes"])], props
    assert not [p for p in props if p["kind"] == "dangling" and "placeholder" in p["target"]], props


def test_text_from_the_vaults_template_is_no_overlap(tmp_path):
    """Person cards made from one author template say a handle, an address and links: two of them that
    share an address and a plugin are not one note twice. Two notes that share their own prose are."""
    v = tmp_path / "vault"
    _write(v, "Meta/01 Templates/T - Author.md", AUTHOR_TEMPLATE)
    _write(v, "People/deathau.md", _card("deathau", "https://github.com/deathau",
                                         ["cooklang-obsidian|CookLang Editor", "csv-obsidian|CSV Editor",
                                          "ini-obsidian|ini Editor"]))
    _write(v, "People/cooklang.md", _card("cooklang", "https://github.com/deathau",
                                          ["cooklang-obsidian|CookLang Editor"]))
    _write(v, "People/valentine195.md", _card("valentine195", "https://github.com/valentine195",
                                              ["obsidian-dice-roller|Dice Roller", "initiative-tracker|Initiative Tracker"]))
    copied = ("The dice roller plugin rolls any dice formula written inline, keeps a history of the rolls "
              "of the session, and renders tables of random encounters for game masters.\n")
    _write(v, "Plugins/Dice roller.md", copied + PROSE)
    _write(v, "Inbox/Dice roller plugin.md", copied + PROSE)
    dups = [sorted(p["notes"]) for p in _reorganize(v) if p["kind"] == "duplicate"]
    assert not [d for d in dups if any(n.startswith("People/") for n in d)], dups
    assert ["Inbox/Dice roller plugin.md", "Plugins/Dice roller.md"] in dups, dups


FILLER = ["Sourdough needs a starter fed twice a day and a long cold proof overnight.",
          "The bike chain wants cleaning after rain, then a drop of oil on every link.",
          "Tomatoes ripen on the windowsill faster beside a banana in a paper bag.",
          "The tax return is due in April; receipts live in the blue folder.",
          "Our cat sleeps on the radiator shelf from October to March.",
          "Bouldering grades differ between gyms; the Font scale is the common one.",
          "A sharp chisel is safer than a dull one because it needs less force.",
          "The train to the coast leaves hourly, the slow one stops at every village."]


def test_notes_of_a_series_are_no_duplicates(tmp_path):
    """`Content Plugins` and `Content Themes` beside `Content Lists` and `Content Comments`: one topic
    split into its cases, written alike on purpose. The same two notes alone in a folder are proposed."""
    v = tmp_path / "vault"
    text = ("# Content: {x}\n\n## Change the {x} template to simplify manual intervention\n\n"
            "Apply the conventions proposed in the comments note to this file when running "
            "update-releases.py, and replace the old badge comments with the new convention everywhere "
            "they appear, so that nobody has to edit the generated sections by hand again.\n")
    for x in ("Comments", "Lists", "Plugins", "Themes"):
        body = text.format(x=x.lower()) if x in ("Plugins", "Themes") else f"# Content: {x}\n\n" + PROSE
        _write(v, f"Design/Content {x}.md", body)
    for k, topic in enumerate(FILLER):  # a vault around them, so that their shared words are rare
        _write(v, f"Notes/Note {k}.md", topic + "\n")
    dups = [sorted(p["notes"]) for p in _reorganize(v) if p["kind"] == "duplicate"]
    assert ["Design/Content Plugins.md", "Design/Content Themes.md"] not in dups, dups
    for x in ("Comments", "Lists"):
        (v / f"Design/Content {x}.md").unlink()
    dups = [sorted(p["notes"]) for p in _reorganize(v) if p["kind"] == "duplicate"]
    assert ["Design/Content Plugins.md", "Design/Content Themes.md"] in dups, dups


def test_spelled_another_way_only_for_a_slip_of_the_whole_name(tmp_path):
    """`[[writing]]` is no slip for waiting0324.md (shown as `Waiting`), nor `[[Emacs]]` a plural of the
    person `emac`: the vault writes both as words. `[[mehrmaid]]` (a name written nowhere else) is one
    letter off Mermaid, and `[[Shells]]` the plural of Shell, a word the vault writes; `[[friction]]`, one
    letter off Fiction.md, is a word the vault writes."""
    v = tmp_path / "vault"
    _write(v, ".obsidian/app.json", "{}")
    _write(v, "People/waiting0324.md", "---\naliases: [Waiting]\n---\n# Waiting\n\n- GitHub: [waiting0324](https://github.com/waiting0324)\n")
    _write(v, "People/emac.md", "# Emac Shen\n\n- GitHub: [emac](https://github.com/emac)\n")
    _write(v, "Concepts/Mermaid.md", "Diagrams as text. " + PROSE)
    _write(v, "Concepts/Shell.md", "The command line. " + PROSE)
    _write(v, "Concepts/Fiction.md", "Stories. " + PROSE)
    _write(v, "Essays/On writing.md", "Writing every day in Emacs, the shell open beside it, no friction. " + PROSE)
    _write(v, "Essays/Tools.md", "Emacs for writing, a shell for the rest: tools without friction. " + PROSE)
    _write(v, "Roundup.md", "Links: [[writing]], [[Emacs]], [[mehrmaid]], [[Shells]], [[friction]], [[emac]], "
                            "[[waiting0324]], [[Mermaid]], [[Shell]], [[Fiction]], [[On writing]], [[Tools]].\n")
    by_target = {p["target"]: p for p in _reorganize(v) if p["kind"] == "dangling"}
    assert "writing" not in by_target and "Emacs" not in by_target, by_target
    assert "friction" not in by_target, by_target  # one letter off Fiction.md, but a word the vault writes
    assert by_target["mehrmaid"]["intended"] == "Concepts/Mermaid.md"
    assert "one letter off" in by_target["mehrmaid"]["reasons"][0]
    assert by_target["Shells"]["intended"] == "Concepts/Shell.md"
