"""reorganize reads the vault as its app does: Dendron's hierarchy, templates and journals, embeds and
property links, Logseq's pages that exist by reference, and one proposal per cause."""
import json

from conftest import run_cli


def _write(vault, rel, text=""):
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, encoding="utf-8")


def _proposals(vault):
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    r = run_cli("--vault", str(vault), "reorganize", "--json", "--limit", "1000")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["proposals"]


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
    assert "lonely.md" in orphans


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
    _write(v, "Categories/Books.md", "![[Books.base]]\n")
    _write(v, "Categories/Books.base", "views:\n  - type: table\n")
    _write(v, "Island.md", PROSE)
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
