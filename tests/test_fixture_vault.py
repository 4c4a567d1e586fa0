"""The hand-written hard cases of fixtures/vault, checked against fixtures/expected_links.yaml."""
import json
import sqlite3
from collections import Counter
from urllib.parse import unquote

import pytest
import yaml

from memory_plugin.index import store as I
from memory_plugin.core.config import load_config
from memory_plugin.vault.links import split_wikilink

from conftest import ROOT

EXPECTED = yaml.safe_load((ROOT / "fixtures" / "expected_links.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    import shutil

    base = tmp_path_factory.mktemp("fx")
    shutil.copytree(ROOT / "fixtures" / "vault", base / "vault")
    cfg = load_config(vault=base / "vault", cache_dir=base / "cache")
    I.rebuild(cfg)
    c = sqlite3.connect(base / "cache" / "index.sqlite")
    yield c
    c.close()


def _linkpath(e):
    raw = e["raw"]
    if e["kind"] == "mdlink":
        raw = unquote(raw.strip("<>")).split("#")[0]
        return raw
    return split_wikilink(raw)[0]


@pytest.mark.parametrize("e", EXPECTED["links"], ids=lambda e: f"{e['src']}:{e['raw']}")
def test_expected_link(conn, e):
    rows = conn.execute("SELECT kind, prop, target FROM links WHERE src=? AND linkpath=?",
                        (e["src"], _linkpath(e))).fetchall()
    if conn.execute("SELECT private FROM notes WHERE path=?", (e["src"],)).fetchone()[0]:
        assert not rows, "a private note's links are not kept"  # privacy.py: only its path is
        return
    assert rows, f"no link {e['raw']!r} from {e['src']}"
    want_kind = "property" if e.get("prop") else e["kind"]
    got = [(k, p, t) for k, p, t in rows if k == want_kind and (p or None) == e.get("prop")]
    assert got, rows
    assert any(t == e["target"] for _, _, t in got), (e, rows)


def test_decoys_are_not_links(conn):
    for d in EXPECTED["not_links"]:
        text = d["text"].replace("\\[\\[", "[[").replace("\\]\\]", "]]")
        name = split_wikilink(text.strip("[]"))[0]
        assert not conn.execute("SELECT 1 FROM links WHERE src=? AND linkpath=?", (d["src"], name)).fetchone(), d


def test_tags(conn):
    for path, tags in EXPECTED["tags"].items():
        got = [r[0] for r in conn.execute("SELECT tag FROM tags WHERE path=?", (path,))]
        assert Counter(t.lower() for t in got) == Counter(t.lower() for t in tags), path
    for d in EXPECTED["not_tags"]:
        assert not conn.execute("SELECT 1 FROM tags WHERE path=? AND tag_lc=?",
                                (d["src"], d["text"].lstrip("#").lower())).fetchone(), d


def test_ambiguous_links_reported(conn):
    for a in EXPECTED["ambiguous"]:
        row = conn.execute("SELECT target, ambiguous FROM links WHERE src=? AND linkpath=?",
                           (a["src"], a["raw"])).fetchone()
        assert row == (a["chosen"], 1)
    assert conn.execute("SELECT count(*) FROM links WHERE ambiguous=1").fetchone()[0] == len(EXPECTED["ambiguous"])


def test_titles_private_and_broken_yaml(conn):
    props = EXPECTED["properties"]
    def note(path):
        return conn.execute("SELECT display_title, private, warnings, status, type FROM notes WHERE path=?",
                            (path,)).fetchone()
    assert note("Decisions/Adopt ruff over flake8.md")[0] == props["Decisions/Adopt ruff over flake8.md"]["title"]
    # a plain folder: a file name written as a name is the title (an H1 is body text, found as an alias)
    assert note("Patterns/Repository pattern.md")[0] == "Repository pattern"
    assert props["Patterns/Repository pattern.md"]["h1"] in json.loads(conn.execute(
        "SELECT aliases FROM notes WHERE path = 'Patterns/Repository pattern.md'").fetchone()[0])
    assert note("Personal/Salary negotiation.md")[1] == 1
    assert "invalid YAML" in note("Inbox/Standup 2026-11-26.md")[2]
    assert note("Inbox/Weekly review.md")[2] == "[]"
    assert note("Projects/atlas/decisions/Use Redis for job queue.md")[3:] == ("superseded", "decision")
    secret = props["Personal/Salary negotiation.md"]["secret_in_body"]
    assert not conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (f'"{secret}"',)).fetchone()[0]


def test_excluded_folders_are_link_targets_but_never_sources(conn):
    """Templates/ (excluded by default) holds no notes of the graph, yet links to its files resolve."""
    assert not conn.execute("SELECT count(*) FROM links WHERE src LIKE 'Templates/%'").fetchone()[0]
    assert not conn.execute("SELECT count(*) FROM notes WHERE path LIKE 'Templates/%'").fetchone()[0]
    assert conn.execute("SELECT is_note FROM files WHERE path = 'Templates/Weekly review template.md'").fetchone() == (0,)
    assert conn.execute("SELECT target FROM links WHERE src = 'Maps/Books.md' AND linkpath = 'Books.base'").fetchone() \
        == ("Templates/Bases/Books.base",)
    assert not conn.execute("SELECT count(*) FROM links WHERE target IS NULL AND linkpath IN "
                            "('Books.base', 'Template only target')").fetchone()[0]


def test_excluded_folders_stay_out_of_hubs_orphans_brief_and_reorganize(vault, cache_dir):
    import json

    from conftest import run_cli

    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    for args in (["hubs", "-n", "100", "--json"], ["orphans", "--json"], ["dangling", "--json"],
                 ["reorganize", "--json"]):
        out = run_cli(*args, env=env)
        assert out.returncode == 0, out.stderr
        assert "Templates/" not in out.stdout and "Template only target" not in out.stdout, args
    brief = (cache_dir / "brief.md").read_text(encoding="utf-8")
    assert "Templates/" not in brief
    # a file appearing in an excluded folder later becomes a target on the next sync
    (vault / "Templates" / "Late.md").write_text("# Late\n[[Home]]\n", encoding="utf-8")
    (vault / "Inbox" / "Points late.md").write_text("See [[Late]].\n", encoding="utf-8")
    assert run_cli("sync", env=env).returncode == 0
    c = sqlite3.connect(cache_dir / "index.sqlite")
    assert c.execute("SELECT target FROM links WHERE src = 'Inbox/Points late.md'").fetchone() == ("Templates/Late.md",)
    assert not c.execute("SELECT count(*) FROM links WHERE src = 'Templates/Late.md'").fetchone()[0]
    c.close()
