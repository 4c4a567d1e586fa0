"""project.py: the one current-project matcher (working folder, git top-level, git remote) over
fixtures/devvault, whose hubs go by other names than their repositories."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from memory_plugin.index import project as P

DEVVAULT = ROOT / "fixtures" / "devvault"


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    """fixtures/devvault copied and built once for the module: (vault, cache, env)."""
    base = tmp_path_factory.mktemp("dev")
    vault, cache = base / "devvault", base / "cache"
    shutil.copytree(DEVVAULT, vault)
    env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return vault, cache, env


@pytest.fixture
def catalog(dev):
    conn = sqlite3.connect(dev[1] / "index.sqlite")
    try:
        return P.catalog(conn)
    finally:
        conn.close()


def _repo(tmp_path: Path, folder: str, remote: str | None = None, worktree: bool = False) -> Path:
    top = tmp_path / folder
    (top / "src" / "pkg").mkdir(parents=True)
    git = top / ".git"
    if worktree:  # a `git worktree`: .git is a file, the config lives in the common dir
        common = tmp_path / "main-checkout.git"
        wt = common / "worktrees" / folder
        wt.mkdir(parents=True)
        (wt / "commondir").write_text("../..\n")
        git.write_text(f"gitdir: {wt}\n")
        cfg_dir = common
    else:
        git.mkdir()
        cfg_dir = git
    text = "[core]\n\tbare = false\n"
    if remote:
        text += '[remote "upstream"]\n\turl = git@example.org:someone/else.git\n'
        text += f'[remote "origin"]\n\turl = {remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
    (cfg_dir / "config").write_text(text)
    return top


def test_key_ignores_case_dashes_underscores_spaces():
    assert P.key("Tollgate-API") == P.key("tollgate_api") == P.key("Tollgate API") == "tollgateapi"


@pytest.mark.parametrize("url,name", [
    ("git@github.com:acme/tollgate-api.git", "tollgate-api"),
    ("https://github.com/acme/lighthouse-dashboard", "lighthouse-dashboard"),
    ("https://github.com/acme/beacon-worker.git/", "beacon-worker"),
    ("ssh://git@host:2222/team/x.git", "x"),
    ("/srv/git/quarry.git", "quarry"),
])
def test_repo_name_from_remote_urls(url, name):
    assert P.repo_name(url) == name


def test_catalog_merges_every_name_of_a_project(catalog):
    by = {p["title"]: p for p in catalog}
    assert set(by) == {"Tollgate", "Lighthouse", "Beacon"}
    assert {"tollgate", "tollgateapi"} <= set(by["Tollgate"]["keys"])  # hub title, alias, repo, plain value
    assert {"lighthouse", "lighthousedashboard", "lh"} <= set(by["Lighthouse"]["keys"])
    assert "beaconworker" in by["Beacon"]["keys"]  # from `repository: https://.../beacon-worker.git`
    assert by["Tollgate"]["hub"] == "projects/tollgate.md"
    assert sorted(by["Tollgate"]["values"]) == ["tollgate", "tollgate-api"]


@pytest.mark.parametrize("folder,title", [("tollgate-api", "Tollgate"), ("Lighthouse_Dashboard", "Lighthouse"),
                                          ("beacon", "Beacon"), ("LH", "Lighthouse")])
def test_working_folder_named_like_the_repository(catalog, tmp_path, folder, title):
    d = tmp_path / folder
    d.mkdir()
    m = P.detect(catalog, str(d))
    assert m.project and m.project["title"] == title, m.describe()
    assert folder in m.via


def test_git_top_level_name_from_a_subfolder(catalog, tmp_path):
    top = _repo(tmp_path, "tollgate-api")
    m = P.detect(catalog, str(top / "src" / "pkg"))
    assert m.project["title"] == "Tollgate" and "git top-level" in m.via


@pytest.mark.parametrize("worktree", [False, True])
def test_git_remote_repository_name(catalog, tmp_path, worktree):
    top = _repo(tmp_path, "checkout-7", remote="git@github.com:acme/beacon-worker.git", worktree=worktree)
    m = P.detect(catalog, str(top / "src"))
    assert m.project and m.project["title"] == "Beacon", m.describe()
    assert "git remote origin" in m.via


def test_no_match_names_what_was_tried(catalog, tmp_path):
    d = tmp_path / "unrelated-thing"
    d.mkdir()
    m = P.detect(catalog, str(d))
    assert m.project is None and not m.ambiguous and "unrelated-thing" in m.tried
    assert "unrelated-thing" in m.describe()


def test_ambiguous_names_every_candidate():
    cat = [{"name": "api", "title": "API (billing)", "keys": ["api", "billingapi"]},
           {"name": "api-v2", "title": "API (search)", "keys": ["searchapi", "api"]}]
    m = P.detect(cat, name="API")
    assert m.project is None and m.ambiguous == ["api", "api-v2"]
    assert "api, api-v2" in m.describe()


def test_name_given_is_resolved_like_a_folder(catalog):
    assert P.detect(catalog, name="tollgate-api").project["title"] == "Tollgate"
    assert P.detect(catalog, name="nope").project is None


def test_query_ranks_the_projects_notes_first_from_a_repo_named_folder(dev, tmp_path):
    vault, cache, env = dev
    d = tmp_path / "tollgate-api"
    d.mkdir()
    r = run_cli("query", "pitfalls", "--json", env={**env, "CLAUDE_PROJECT_DIR": str(d)})
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)["items"]
    tollgate = {"pitfalls/redis-cluster-multikey-lua.md", "pitfalls/webhook-retry-storm.md",
                "pitfalls/clock-skew-in-token-expiry.md"}
    assert {i["path"] for i in items[:3]} == tollgate, [i["path"] for i in items[:4]]


def test_query_project_option_takes_any_of_the_projects_names(dev):
    r = run_cli("query", "pitfalls", "--project", "lighthouse-dashboard", "--json", env=dev[2])
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)["items"]
    assert {i["path"] for i in items[:2]} == {"pitfalls/timezone-in-chart-axes.md",
                                              "pitfalls/stale-bundle-after-deploy.md"}, [i["path"] for i in items[:3]]
