"""The blind evaluation data under bench/eval/ and bench/dev/ stays consistent with the vaults it points into.

These files are hand-written; nothing regenerates them. When a note of fixtures/vault is renamed or
removed, or a pair/prompt is added with a typo, these tests name the entry instead of letting an
eval silently score against a path that no longer exists.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "bench" / "eval"
DEV = ROOT / "bench" / "dev"
# Vaults fetched for evaluation are laid out (never committed) under $MEMORY_PLUGIN_EVALDATA/<set>/vault
# (bench/lay_evaldata.py; each bench/dev/<set>/fetch.sh says how to lay one). Path checks skip when the
# variable is unset or a vault is absent.
EVALDATA = Path(os.environ["MEMORY_PLUGIN_EVALDATA"]) if os.environ.get("MEMORY_PLUGIN_EVALDATA") else None
FIXTURE_VAULT = ROOT / "fixtures" / "vault"
DENDRON_VAULT = ROOT.parent / "shared" / "eval" / "dendron" / "vault"
QUESTION_KINDS = {"paraphrase", "keyword", "alias", "bridge", "negative"}
PROMPT_KINDS = {"answerable", "negative", "ordinary", "capture", "near-miss"}
MEMORY_TYPES = {"decision", "pitfall", "pattern", "learning", "convention", "note"}  # remember --type
FIXTURE_PROJECTS = {"atlas", "beacon", "memory-plugin"}
CATEGORIES = {"reworded-duplicate", "same-topic", "similar-title", "unrelated"}


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _vault_dir(name: str) -> Path:
    vault = {"fixture": FIXTURE_VAULT, "dendron": DENDRON_VAULT}[name]
    if not vault.is_dir():
        pytest.skip(f"{vault} is not laid out on this machine")
    return vault


QUESTION_SETS = sorted(EVAL.glob("*/questions.yaml"))


@pytest.mark.parametrize("path", QUESTION_SETS, ids=lambda p: p.parent.name)
def test_question_set_format(path):
    questions = _load(path)["questions"]
    ids = [q["id"] for q in questions]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for q in questions:
        assert set(q) == {"id", "kind", "question", "expected", "why"}, q["id"]
        assert q["kind"] in QUESTION_KINDS, q["id"]
        assert (q["kind"] == "negative") == (q["expected"] == []), q["id"]
        assert all(isinstance(p, str) and not p.startswith("/") for p in q["expected"]), q["id"]


@pytest.mark.parametrize("path", QUESTION_SETS, ids=lambda p: p.parent.name)
def test_held_out_question_set_points_at_existing_notes(path):
    vault = _evaldata_vault(path.parent.name)
    for q in _load(path)["questions"]:
        for rel in q["expected"]:
            assert (vault / rel).is_file(), f"{q['id']}: {rel} not in {vault}"


def test_held_out_sets_total_about_110_questions():
    assert len(QUESTION_SETS) >= 2
    total = sum(len(_load(p)["questions"]) for p in QUESTION_SETS)
    assert total >= 100


def _check_pair(p: dict, projects) -> None:
    """One labelled pair's fields: a known category, `duplicate` agreeing with it, a reason, and a
    `new` memory with a title, summary and memory type (and a project of its vault, if any)."""
    assert p["category"] in CATEGORIES, p["id"]
    assert p["duplicate"] is (p["category"] == "reworded-duplicate"), p["id"]
    assert p["why"].strip(), p["id"]
    if "new" in p:
        new = p["new"]
        assert set(new) <= {"title", "type", "project", "summary", "body"}, p["id"]
        assert new["title"].strip() and new["summary"].strip(), p["id"]
        assert new["type"] in MEMORY_TYPES, p["id"]
        if "project" in new:
            assert new["project"] in projects, p["id"]


@pytest.mark.parametrize("name", ["duplicates.yaml", "duplicates-2.yaml"])
def test_duplicate_pairs_point_at_existing_notes(name):
    pairs = _load(EVAL / name)["pairs"]
    assert len(pairs) >= 60
    ids = [p["id"] for p in pairs]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for p in pairs:
        vault = _vault_dir(p["vault"])
        assert ("b" in p) != ("new" in p), p["id"]
        for key in ("a", "b"):
            if key in p:
                assert (vault / p[key]).is_file(), f"{p['id']}: {p[key]} not in the {p['vault']} vault"
        _check_pair(p, FIXTURE_PROJECTS)


@pytest.mark.parametrize("name", ["prompts-fixture.yaml", "prompts-dendron.yaml", "capture-test.yaml", "capture-test-2.yaml",
                                  "prompts-sourcegraph-handbook.yaml", "prompts-dnd-srd.yaml",
                                  "prompts-quickadd-docs.yaml", "prompts-dwarves-brain.yaml",
                                  "../dev/prompts-silverbullet.yaml", "../dev/prompts-logseq.yaml",
                                  "../dev/prompts-dvogt23-notes.yaml"])
def test_prompt_sets_point_at_existing_notes(name):
    data = _load(EVAL / name)
    if "vault" in data:  # the sets over the repository's own vaults name them
        vault = (ROOT / data["vault"]).resolve()
    else:  # the others run over EVALDATA/<set>/vault (bench/lay_evaldata.py)
        laid = os.environ.get("MEMORY_PLUGIN_EVALDATA", "")
        vault = Path(laid, Path(name).stem.removeprefix("prompts-"), "vault") if laid else ROOT / "no-evaldata"
    if not vault.is_dir():
        pytest.skip(f"{vault} is not laid out on this machine")
    ids = [p["id"] for p in data["prompts"]]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for p in data["prompts"]:
        assert p["kind"] in PROMPT_KINDS, p["id"]
        assert p["prompt"].strip(), p["id"]
        assert p["capture"] is (p["kind"] == "capture"), p["id"]
        assert ("correction" in p) == (p["kind"] == "capture"), p["id"]
        if p["kind"] in ("negative", "near-miss"):
            assert p["expected"] == [], p["id"]
        if p["kind"] == "answerable":
            assert p["expected"], p["id"]
        for rel in p["expected"]:
            assert (vault / rel).is_file(), f"{p['id']}: {rel} not in {vault}"


def test_prompt_sets_cover_issue_13_minimums():
    prompts = [p for name in ("prompts-fixture.yaml", "prompts-dendron.yaml")
               for p in _load(EVAL / name)["prompts"]]
    kinds = [p["kind"] for p in prompts]
    assert len(prompts) >= 150
    fixture_ordinary = [p for p in _load(EVAL / "prompts-fixture.yaml")["prompts"] if p["kind"] == "ordinary"]
    assert len(fixture_ordinary) >= 80
    assert kinds.count("capture") >= 20 and kinds.count("near-miss") >= 20


# ---------------- development sets (bench/dev/): constants may be set on these ----------------

# Dev question sets written by the evalsets helper (the til set predates this format check: no `why`).
# dvogt23-notes and ajhalili-garden are small personal vaults; arkam-kb and astr0n0mer-garden Logseq
# graphs with many daily journals.
DEV_QUESTION_SETS = [DEV / name / "questions.yaml" for name in ("silverbullet", "logseq", "dvogt23-notes", "ajhalili-garden",
                                                                 "arkam-kb", "astr0n0mer-garden")]


def _laid_out(name: str) -> bool:
    return EVALDATA is not None and (EVALDATA / name / "vault").is_dir()


def _evaldata_vault(name: str) -> Path:
    if EVALDATA is None:
        pytest.skip("MEMORY_PLUGIN_EVALDATA is not set (the folder bench/lay_evaldata.py lays the vaults in)")
    vault = EVALDATA / name / "vault"
    if not vault.is_dir():
        pytest.skip(f"{vault} is not laid out on this machine (see bench/dev/{name}/fetch.sh or bench/eval/README.md)")
    return vault


@pytest.mark.parametrize("path", DEV_QUESTION_SETS, ids=lambda p: p.parent.name)
def test_dev_question_set_format_and_minimums(path):
    questions = _load(path)["questions"]
    ids = [q["id"] for q in questions]
    assert len(ids) == len(set(ids)), "duplicate ids"
    kinds = [q["kind"] for q in questions]
    for q in questions:
        assert set(q) == {"id", "kind", "question", "expected", "why"}, q["id"]
        assert q["kind"] in QUESTION_KINDS, q["id"]
        assert (q["kind"] == "negative") == (q["expected"] == []), q["id"]
        assert q["question"].strip() and q["why"].strip(), q["id"]
        assert len(q["expected"]) == len(set(q["expected"])), q["id"]
    assert len(questions) >= 30
    assert kinds.count("negative") >= 8
    assert (path.parent / "fetch.sh").is_file(), "a dev set says how its vault is laid out"


@pytest.mark.parametrize("path", DEV_QUESTION_SETS, ids=lambda p: p.parent.name)
def test_dev_question_set_points_at_existing_notes(path):
    vault = _evaldata_vault(path.parent.name)
    for q in _load(path)["questions"]:
        for rel in q["expected"]:
            assert not rel.startswith("/"), q["id"]
            assert (vault / rel).is_file(), f"{q['id']}: {rel} not in {vault}"


# Dev sets written before that format, without `why` (the abstention sets: at least 25 questions, 6 negatives).
SHORT_DEV_QUESTION_SETS = [DEV / name / "questions.yaml" for name in ("mdbook-guide", "dataview-docs")]


@pytest.mark.parametrize("path", SHORT_DEV_QUESTION_SETS, ids=lambda p: p.parent.name)
def test_short_dev_question_sets_format_and_notes(path):
    qs = _load(path)["questions"]
    assert len({q["id"] for q in qs}) == len(qs) >= 25
    assert sum(q["kind"] == "negative" for q in qs) >= 6
    assert all((q["kind"] == "negative") == (q["expected"] == []) for q in qs)
    assert (path.parent / "fetch.sh").is_file(), "a dev set says how its vault is laid out"
    vault = _evaldata_vault(path.parent.name)
    for q in qs:
        for rel in q["expected"]:
            assert (vault / rel).is_file(), f"{q['id']}: {rel} not in {vault}"


DEVVAULT = ROOT / "fixtures" / "devvault"
DEVVAULT_PROJECTS = {"tollgate", "lighthouse", "beacon"}  # hub notes projects/<name>.md


def _dev_pair_vault(name: str) -> Path:
    if name == "devvault":
        return DEVVAULT
    assert name in {"silverbullet", "logseq"}, f"unknown vault {name!r} in duplicates-dev.yaml"
    return _evaldata_vault(name)


def test_dev_duplicate_pairs_format_and_minimums():
    pairs = _load(DEV / "duplicates-dev.yaml")["pairs"]
    assert len(pairs) >= 50
    ids = [p["id"] for p in pairs]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for p in pairs:
        assert p["vault"] in {"devvault", "silverbullet", "logseq"}, p["id"]
        assert ("b" in p) != ("new" in p), p["id"]
        _check_pair(p, DEVVAULT_PROJECTS if p["vault"] == "devvault" else ())
    categories = [p["category"] for p in pairs]
    assert all(categories.count(c) >= 5 for c in CATEGORIES)


def test_dev_duplicate_pairs_point_at_existing_notes():
    for project in DEVVAULT_PROJECTS:
        assert (DEVVAULT / "projects" / f"{project}.md").is_file(), project
    for p in _load(DEV / "duplicates-dev.yaml")["pairs"]:
        if p["vault"] != "devvault" and not _laid_out(p["vault"]):
            continue  # checked where the fetched vault is laid out
        vault = _dev_pair_vault(p["vault"])
        for key in ("a", "b"):
            if key in p:
                assert (vault / p[key]).is_file(), f"{p['id']}: {p[key]} not in the {p['vault']} vault"


def test_dev2_duplicate_pairs_format_and_notes():
    """duplicates-dev2.yaml: the same format, plus `supersession` (a new decision that
    replaces the note's: not a duplicate); ids unique across the three dev pair sets."""
    pairs = _load(DEV / "duplicates-dev2.yaml")["pairs"]
    others = [q["id"] for f in ("duplicates-dev.yaml", "duplicates-i12.yaml") for q in _load(DEV / f)["pairs"]]
    ids = [p["id"] for p in pairs]
    assert len(ids) == len(set(ids)) and not set(ids) & set(others), "duplicate ids"
    for p in pairs:
        assert "new" in p and "b" not in p, p["id"]
        assert p["category"] in CATEGORIES | {"supersession"}, p["id"]
        if p["category"] == "supersession":
            assert p["duplicate"] is False and p["new"]["type"] == "decision", p["id"]
            p = {**p, "category": "same-topic"}
        _check_pair(p, DEVVAULT_PROJECTS if p["vault"] == "devvault" else ())
        if p["vault"] == "devvault" or _laid_out(p["vault"]):
            vault = _dev_pair_vault(p["vault"])
            assert (vault / p["a"]).is_file(), f"{p['id']}: {p['a']} not in the {p['vault']} vault"


@pytest.mark.parametrize("name", ["capture-test.yaml", "capture-test-2.yaml"])
def test_capture_test_set_minimums(name):
    prompts = _load(EVAL / name)["prompts"]
    kinds = [p["kind"] for p in prompts]
    assert set(kinds) == {"capture", "near-miss", "ordinary"}
    captures = [p for p in prompts if p["kind"] == "capture"]
    assert len(captures) >= 45 and kinds.count("near-miss") >= 45 and kinds.count("ordinary") >= 30
    corrections = [p for p in captures if p["correction"]]
    assert len(corrections) >= 15
    # only a correction names the note it contradicts; other captures expect nothing
    assert all(p["expected"] == [] for p in captures if not p["correction"])


@pytest.mark.parametrize("name", ["prompts-silverbullet.yaml", "prompts-logseq.yaml"])
def test_dev_prompt_set_minimums(name):
    prompts = _load(DEV / name)["prompts"]
    kinds = [p["kind"] for p in prompts]
    assert len(prompts) >= 60
    assert kinds.count("ordinary") >= 25 and kinds.count("negative") >= 8 and kinds.count("answerable") >= 25
    assert all(p["expected"] == [] for p in prompts if p["kind"] == "ordinary")
