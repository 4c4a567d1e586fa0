"""reorganize: proposals over the fixture vault, and applying only safe, chosen ones."""
import json

import pytest

from conftest import hash_tree, run_cli


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
    _write(built, "Conventions/Tabs nowhere.md", "---\ntype: convention\n---\n# Tabs nowhere\n")
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
