"""What is current is read one way (index.lifecycle): a note with any spelling of `superseded_by`
(or named by another's `supersedes`) is superseded alike in the brief, in `query` and in
`reorganize`; and the hooks name the session's project with project.py's walk."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import run_cli
from memory_plugin.index import lifecycle as L

PKG = Path(__file__).resolve().parent.parent / "memory_plugin"
OLD, NEW = "Ship logs with Fluentd", "Ship logs with Vector"


def _write(vault: Path, rel: str, text: str) -> None:
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _open(vault: Path):
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index

    cfg = load_config(vault=vault)
    return cfg, open_index(cfg)


@pytest.fixture
def replaced(vault):
    """The fixture vault with an atlas decision that says `replaced_by:` (and no status), its
    successor, and a runbook that still links the old decision as current."""
    _write(vault, f"Projects/atlas/decisions/{OLD}.md",
           f"---\ntype: decision\nproject: atlas\nsummary: Atlas hosts ship their logs with Fluentd.\n"
           f"confidence: 0.2\ncreated: 2019-01-01\nreplaced_by: \"[[{NEW}]]\"\n---\n# {OLD}\n"
           "Every atlas host ships its logs with a Fluentd agent.\n")
    _write(vault, f"Projects/atlas/decisions/{NEW}.md",
           f"---\ntype: decision\nproject: atlas\nsummary: Atlas hosts ship their logs with Vector.\n"
           f"created: 2026-01-01\n---\n# {NEW}\nEvery atlas host ships its logs with a Vector agent.\n")
    _write(vault, "Projects/atlas/runbooks/Log shipping runbook.md",
           f"---\ntype: sop\nproject: atlas\n---\n# Log shipping runbook\nLogs leave each host through [[{OLD}]].\n")
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    return vault


def test_replaced_by_is_superseded_in_the_brief_query_and_reorganize(replaced):
    from memory_plugin.outputs import brief

    old_path, new_path = f"Projects/atlas/decisions/{OLD}.md", f"Projects/atlas/decisions/{NEW}.md"
    cfg, conn = _open(replaced)
    try:
        collected = brief.collect(cfg, conn)
    finally:
        conn.close()
    decisions = [d["path"] for d in collected["projects"]["atlas"]["decisions"]]
    assert new_path in decisions and old_path not in decisions

    r = run_cli("--vault", str(replaced), "query", "how do atlas hosts ship logs", "--json")
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)["items"]
    paths = [i["path"] for i in items]
    assert paths.index(new_path) < paths.index(old_path), paths
    assert f"superseded by [[{NEW}]]" in next(i for i in items if i["path"] == old_path)["why"]

    r = run_cli("--vault", str(replaced), "reorganize", "--json")
    assert r.returncode == 0, r.stderr
    props = json.loads(r.stdout)["proposals"]
    assert not [p for p in props if p["kind"] == "stale" and old_path in p["notes"]]  # superseded, not stale
    linked = [p for p in props if p["kind"] == "superseded-linked" and p["notes"][0] == old_path]
    assert linked and f"[[{NEW}]]" in linked[0]["suggestion"]


def test_every_spelling_names_a_successor_and_a_private_one_none(vault):
    for i, key in enumerate(L.SUPERSEDED_BY):
        _write(vault, f"Decisions/Old {i}.md", f"---\ntype: decision\n{key}: \"[[New {i}]]\"\n---\nOld.\n")
        _write(vault, f"Decisions/New {i}.md", "---\ntype: decision\n---\nNew.\n")
    _write(vault, "Decisions/Newest.md", "---\ntype: decision\nsupersedes: \"[[New 0]]\"\n---\nNewer still.\n")
    _write(vault, "Decisions/Inline.md", "---\ntype: decision\n---\nReplaced-By:: [[New 1]]\n")
    _write(vault, "Decisions/Itself.md", "---\ntype: decision\nsuperseded_by: \"[[Itself]]\"\n---\nMe.\n")
    _write(vault, "Decisions/Before the secret.md", "---\ntype: decision\n---\nPublic.\n")
    _write(vault, "Decisions/Secret successor.md",
           "---\ntype: decision\nprivate: true\nsupersedes: \"[[Before the secret]]\"\n---\nHidden.\n")
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    cfg, conn = _open(vault)
    try:
        succ = L.successors(conn)
        titles = L.successor_titles(conn)
        some = L.successors(conn, ["Decisions/New 0.md"])
    finally:
        conn.close()
    for i, _ in enumerate(L.SUPERSEDED_BY):
        assert succ[f"Decisions/Old {i}.md"] == [f"Decisions/New {i}.md"]
        assert titles[f"Decisions/Old {i}.md"] == f"New {i}"
    assert succ["Decisions/New 0.md"] == ["Decisions/Newest.md"]
    assert succ["Decisions/Inline.md"] == ["Decisions/New 1.md"]  # a Dataview field, its key lowercased
    assert "Decisions/Itself.md" not in succ
    assert "Decisions/Before the secret.md" not in succ
    assert some == {"Decisions/Old 0.md": ["Decisions/New 0.md"], "Decisions/New 0.md": ["Decisions/Newest.md"]}


def test_readers_share_one_list_of_supersession_keys():
    """No module but lifecycle spells a supersession key inside SQL: each reads L.SUPERSESSION_SQL."""
    keys = "|".join(map(re.escape, L.SUPERSESSION))
    literal = re.compile(rf"(?<!\[)'({keys})'")  # a literal, not a key read from a dict (it['superseded_by'])
    spelled = [f"{p.relative_to(PKG)}:{n}" for p in sorted(PKG.rglob("*.py")) if p.name != "lifecycle.py"
               for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if literal.search(line)]
    assert spelled == [], spelled
    assert L.SUPERSESSION_SQL == "(" + ", ".join(f"'{k}'" for k in L.SUPERSESSION) + ")"


@pytest.mark.parametrize("status, superseded, historical, current, open_pitfall, shown", [
    (None, False, False, True, True, None),
    ("current", True, True, False, False, "superseded"),
    ("retracted", True, True, False, False, "retracted"),
    ("archived", False, True, True, True, "archived"),   # the brief still tells what was decided
    ("rejected", False, False, False, True, "rejected"),
    ("fixed", False, False, True, False, "fixed"),
])
def test_status_readings(status, superseded, historical, current, open_pitfall, shown):
    assert L.historical(status, superseded) is historical
    assert L.current(status, superseded) is current
    assert L.open_pitfall(status, superseded) is open_pitfall
    assert L.shown_status(status, superseded) == shown


def test_the_journal_names_the_project_as_project_py_walks(tmp_path, monkeypatch):
    from memory_plugin.claude.hooks import project_name

    repo = tmp_path / "tollgate-api"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    wt = tmp_path / "wt-feature"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {repo / '.git' / 'worktrees' / 'wt-feature'}\n")
    plain = tmp_path / "scratch" / "notes"
    plain.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo))
    assert project_name(str(repo / "src" / "deep")) == "tollgate-api"
    assert project_name(str(wt)) == "wt-feature"
    assert project_name(str(plain)) == "notes"  # $CLAUDE_PROJECT_DIR's checkout is not this folder's
    assert project_name(None) == "tollgate-api"  # no cwd: the folder the session started in
