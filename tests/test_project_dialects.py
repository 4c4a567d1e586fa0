"""Projects as the vault marks them (fixtures/projects/, one vault per convention): the SessionStart
brief of a working folder shows that project's note, and a folder the vault holds no project for
shows none. Also the name rules of project.py: words of a title, repository addresses, kind values."""
from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from conftest import ROOT, run_cli
from memory_plugin.index import project as P

PROJECTS = ROOT / "fixtures" / "projects"

CASES = [  # (vault, working folder, the note the brief's project section shows, or None)
    # PARA: each note directly in `1 Projects/` is a project; a repository's name is a run of words of
    # its title after the area (`PowerShell - `); a subfolder is a project, its folder note its note
    ("para", "PSProfileTools", "1 Projects/PowerShell - PSProfileTools Module.md"),
    ("para", "ps-profile-tools", "1 Projects/PowerShell - PSProfileTools Module.md"),
    ("para", "dotfiles", "1 Projects/Development - dotfiles.md"),
    ("para", "website-relaunch", "1 Projects/Website Relaunch/Website Relaunch.md"),
    ("para", "python", None),       # the area a title starts with, not a project's name
    ("para", "powershell", None),   # an area note, not a project
    ("para", "tools", None),        # part of a word
    ("para", "kubernetes-operator", None),
    # ... with the area's word around it; the area's word with a word no project has is none
    ("para", "powershell-psprofiletools", "1 Projects/PowerShell - PSProfileTools Module.md"),
    ("para", "powershell-yaml", None),
    # kepano-style properties: categories, type, tags, a capitalised `Tags` with `#Type/Project`
    ("categories", "minimal-theme", "Notes/Minimal Theme.md"),
    ("categories", "minimal", "Notes/Minimal Theme.md"),
    ("categories", "obsidian-clipper", "Notes/Web Clipper.md"),  # `github:` holds the repository
    ("categories", "garden-site", "Notes/Garden Site.md"),
    ("categories", "profile-tools", "Notes/Profile Tools.md"),
    ("categories", "flexoki", None),
    # the words of a property link (`org: "[[Acme]]"`) beside a run of the title's
    ("categories", "acme-garden", "Notes/Garden Site.md"),
    ("categories", "garden-acme", "Notes/Garden Site.md"),
    ("categories", "acme-docs", None),     # the organisation's word with one no project has
    ("categories", "acme", None),          # the organisation's alone
    ("categories", "kubernetes-operator", None),  # an article's `source:` address names no repository
    ("categories", "projects", None),   # the category note itself
    # Dendron: project.<name>, with or without a note for the hierarchy's top
    ("dendron", "tollgate", "project.tollgate.md"),
    ("dendron", "beacon-worker", "project.beacon-worker.queue.md"),
    ("dendron", "zigbee-lamp", "proj.zigbee-lamp.md"),  # the usual abbreviation
    ("dendron", "field-wiki", "ext.repo.wiki.md"),  # a proxy note's `uri:`: the repository's address
    ("dendron", "trial-ws", "ext.repo.trial.md"),   # ... over ssh
    ("dendron", "kubernetes-operator", None),
    # Logseq: a `type::` page property; the `Project` column of a table (not its `Type` column)
    ("logseq", "SnapTessSCAD", "pages/SnapTessSCAD.md"),
    ("logseq", "ChainMeshSCAD", "pages/ChainMeshSCAD.md"),
    ("logseq", "garden-planner", "pages/Garden Planner.md"),
    ("logseq", "software-project", None),
    ("logseq", "kubernetes-operator", None),
    # a note listing its owner's projects as web addresses is their note
    ("lists", "denoflow", "projects.md"),
    ("lists", "gatsby-theme-primer-wiki", "projects.md"),
    ("lists", "deno", None),         # a link inside an item's description
    ("lists", "kubebuilder", None),  # a repository linked from a note that lists no projects
    ("lists", "kubernetes-operator", None),
    # `projects:` / `project:` properties, any case, a list of links to notes that do not exist or text:
    # the notes naming a project are its notes; a repository they cite names it too
    ("properties", "tollgate-api", "Notes/Fix login redirect.md"),
    ("properties", "TOLLGATE-API", "Notes/Fix login redirect.md"),
    ("properties", "beacon-worker", "Notes/Sprint review.md"),   # the second value of `Projects:`
    ("properties", "harbor-cli", "Notes/Cache warmup.md"),       # `project:` as text
    ("properties", "gateway", "Notes/Webhook retries.md"),       # github acme-corp/gateway, cited by its notes
    ("properties", "harbor-mirror", "Work/Projects/Harbor/Harbor.md"),  # a projects folder below another
    ("properties", "sample-controller", None),  # cited by a note of no project (`projects: []`)
    ("properties", "tasks", None),
    # the organisation most of a project's notes link (`organization: "[[Acme]]"`), beside its words
    ("properties", "acme-tollgate", "Notes/Fix login redirect.md"),
    ("properties", "acme-beacon", None),   # beacon-worker's one note names no organisation
    ("properties", "kubernetes-operator", None),
    # a Dendron `projects` level below the root; the repositories its notes cite
    ("hierarchy", "tollgate", "work.projects.tollgate.md"),
    ("hierarchy", "tollgate-api", "work.projects.tollgate.md"),      # the repository its notes cite most
    ("hierarchy", "tollgate-cli", "work.projects.tollgate.cli.md"),  # cited by one branch's notes: that branch
    ("hierarchy", "beacon", "work.projects.beacon.md"),
    ("hierarchy", "shared-kit", None),   # cited by both projects: no project, the notes citing it (below)
    ("hierarchy", "regex", None),        # cited once in passing
    ("hierarchy", "oauth", None),        # github.com/login/oauth: the host's page, no repository
    ("hierarchy", "goal", None),         # the heading both project notes open with
    ("hierarchy", "sample-controller", None),  # cited by a note of no project
    ("hierarchy", "kubernetes-operator", None),
    # a part of the project's hierarchy (`work.projects.tollgate.limits`) beside its name
    ("hierarchy", "tollgate-limits", "work.projects.tollgate.md"),
    ("hierarchy", "beacon-limits", None),  # a part of another project
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Each vault of fixtures/projects copied and built once: {vault name: (env, cache)}."""
    out = {}
    base = tmp_path_factory.mktemp("projects")
    for name in sorted({c[0] for c in CASES}):
        vault, cache = base / name, base / f"{name}-cache"
        shutil.copytree(PROJECTS / name, vault)
        env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cache),
               "MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}
        r = run_cli("rebuild", env=env)
        assert r.returncode == 0, r.stderr
        out[name] = (env, cache)
    return out


def project_section(env: dict, cwd) -> str:
    r = run_cli("hook", "session-start", input=json.dumps({"cwd": str(cwd), "source": "startup"}), env=env,
                timeout=60)
    assert r.returncode == 0, r.stderr
    text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    return text.split("\n## Project", 1)[1].split("\n## ", 1)[0] if "\n## Project" in text else ""


@pytest.mark.parametrize("vault,folder,note", CASES, ids=[f"{v}-{f}" for v, f, _ in CASES])
def test_the_brief_shows_the_project_the_vault_marks(built, tmp_path, vault, folder, note):
    cwd = tmp_path / "work" / folder
    cwd.mkdir(parents=True)
    sec = project_section(built[vault][0], cwd)
    if note is None and (vault, folder) == ("hierarchy", "shared-kit"):
        assert sec.startswith(" `shared-kit` (the working folder): no project of the vault goes by that name"), sec
        assert "(work.projects.beacon.md)" in sec and "(work.projects.tollgate.ops.md)" in sec
    elif note is None:
        assert sec == "", sec
    else:
        assert f"({note})" in sec, sec


def test_a_listed_project_does_not_take_its_list_notes_links(built):
    conn = sqlite3.connect(built["lists"][1] / "index.sqlite")
    try:
        cat = {p["name"]: p for p in P.catalog(conn)}
    finally:
        conn.close()
    assert cat["Denoflow"]["hub"] == "projects.md" and cat["Denoflow"]["list"]
    assert "denoflow" in cat["Denoflow"]["keys"]
    assert "Deno" not in cat and "About" not in cat and "Projects" not in cat


def test_a_branch_named_by_its_repository_is_briefed_without_the_rest_of_its_project(built, tmp_path):
    """A working folder named like the repository one branch of a project cites is briefed with that
    branch (`work.projects.tollgate.cli` and its children, and the notes whose `project:` names it),
    not with every note of the project."""
    cwd = tmp_path / "work" / "tollgate-cli"
    cwd.mkdir(parents=True)
    sec = project_section(built["hierarchy"][0], cwd)
    assert "(work.projects.tollgate.cli.flags.md)" in sec, sec
    assert "(work.projects.tollgate.design.md)" not in sec and "(work.projects.tollgate.md)" not in sec, sec
    # a note whose `project:` is the branch's name (as `remember` from that folder writes it) is its note
    assert "(work.decisions.replay-format.md)" in sec, sec


def test_the_catalog_reads_each_marking(built):
    """Which project each marking makes, and by which names: property values (a dangling link, text,
    the second of a list, a key in capitals), a projects level at any depth of a hierarchy, the
    repository its notes cite most, a branch's repository; the heading two project notes open with
    joins nothing."""
    def cat(name):
        conn = sqlite3.connect(built[name][1] / "index.sqlite")
        try:
            return {p["name"]: p for p in P._catalog(conn)}
        finally:
            conn.close()

    conn = sqlite3.connect(built["properties"][1] / "index.sqlite")
    try:
        values = P.project_values(conn)[0]
    finally:
        conn.close()
    assert values["Notes/Sprint review.md"] == ["tollgate-api", "beacon-worker"]  # `Projects:`, a list of two
    assert values["Notes/Cache warmup.md"] == ["harbor-cli"]
    assert values["Notes/Pull-through cache.md"] == ["harbor-cli"]  # unquoted `[[…]]`: a list in a list to YAML
    assert "Notes/Reading list.md" not in values  # `projects: []`
    props = cat("properties")
    assert props["tollgate-api"]["values"] == ["tollgate-api"] and props["tollgate-api"]["hub"] is None
    assert "gateway" in props["tollgate-api"]["keys"] and "sample-controller" not in str(props)
    assert props["beacon-worker"]["values"] == ["beacon-worker"]
    assert props["harbor-cli"]["values"] == ["harbor-cli"]
    assert props["Harbor"]["folders"] == ["Work/Projects/Harbor"] and "harbormirror" in props["Harbor"]["keys"]
    dendron = cat("hierarchy")
    assert sorted(dendron) == ["beacon", "cli", "tollgate"], sorted(dendron)
    assert dendron["tollgate"]["prefixes"] == ["work.projects.tollgate."]
    assert "tollgateapi" in dendron["tollgate"]["keys"] and "regex" not in dendron["tollgate"]["keys"]
    assert "sharedkit" not in dendron["tollgate"]["keys"] + dendron["beacon"]["keys"]
    assert dendron["cli"]["keys"] == ["cli", "tollgatecli"] and dendron["cli"]["hub"] == "work.projects.tollgate.cli.md"
    assert dendron["cli"]["values"] == ["cli"]
    assert dendron["cli"]["prefixes"] == ["work.projects.tollgate.cli."]


@pytest.mark.parametrize("text,repos", [
    ("see https://github.com/acme/tollgate/issues/17.", [("github.com", "acme", "tollgate")]),
    ("<https://github.com/acme/TollgateCLI</RepositoryUrl>", [("github.com", "acme", "TollgateCLI")]),
    ("https://gitlab.com/acme/harbor-mirror/-/issues/1 and https://codeberg.org/a/b.git",
     [("gitlab.com", "acme", "harbor-mirror"), ("codeberg.org", "a", "b")]),
    ("https://github.com/login/oauth https://github.com/settings/tokens", []),  # the host's own pages
    ("https://example.com/acme/tollgate https://github.com/acme", []),
])
def test_a_text_cites_repositories_by_their_address_on_a_code_host(text, repos):
    assert P.cited_repos(text) == repos


@pytest.mark.parametrize("title,name,inside", [
    ("PowerShell - PSProfileTools Module", "PSProfileTools", True),
    ("PowerShell - PSProfileTools Module", "ps_profile_tools", True),
    ("PowerShell - PSProfileTools Module", "PSProfileTools-Module", True),
    ("PowerShell - PSProfileTools Module", "PowerShell", False),  # the area
    ("PowerShell - PSProfileTools Module", "profile", False),     # part of a word
    ("Client: Website Relaunch", "website", True),
    ("Minimal Theme", "minimal", True),
    ("Python - Flask Web App", "app", False),                     # shorter than MIN_CONTAINED
    ("Kubernetes", "kubernetes-operator", False),
])
def test_a_name_inside_a_title_is_a_run_of_its_words(title, name, inside):
    assert P.contains(title, name) is inside


@pytest.mark.parametrize("title,areas,name", [
    ("PowerShell - PSProfileTools Module", set(), ["psprofiletools", "module"]),
    ("Title As Link Text: automatic note titles", set(), ["title", "as", "link", "text", "automatic", "note",
                                                          "titles"]),  # a subtitle: all of it is the name
    ("Client: Website Relaunch", {"client"}, ["website", "relaunch"]),  # other titles start "Client: "
    ("Client: Website Relaunch", None, ["website", "relaunch"]),        # no areas known: as before
])
def test_a_title_s_name_part_is_after_its_area(title, areas, name):
    assert P.name_words(title, areas) == name


@pytest.mark.parametrize("words,context,yes", [
    (["obsidian", "minimal"], ["obsidian"], True),
    (["minimal", "obsidian"], ["obsidian"], True),
    (["obsidian", "git"], ["obsidian"], False),        # the rest is no name of the project
    (["obsidian"], ["obsidian", "minimal"], False),    # context alone
    (["minimal", "theme"], [], False),                 # no context: the earlier passes' job
    (["acme", "the"], ["acme"], False),                # the project's part is too short
])
def test_a_folder_name_is_the_project_s_words_with_its_context_around_them(words, context, yes):
    p = {"keys": ["minimaltheme"], "words": [["minimal", "theme"]], "context": context}
    assert P.with_context(words, p) is yes


@pytest.mark.parametrize("value,name", [
    ("https://github.com/denoflow/denoflow", "denoflow"),
    ("https://gitlab.com/acme/tollgate-api/", "tollgate-api"),
    ("git@example.org:acme/beacon-worker.git", "beacon-worker"),
    ("https://minimal.guide", None),
    ("https://example.com/kubernetes/kubernetes-operator", None),  # a page, not a code host's repository
    ("https://github.com/denoflow", None),
])
def test_a_web_address_names_a_repository_only_on_a_code_host(value, name):
    assert P.repo_url(value) == name


@pytest.mark.parametrize("value,yes", [
    ("project", True), (["[[Projects]]"], True), ("#Type/Project", True), ("Projects, web", True),
    ("[[Categories/Projects|Projects]]", True), (["[[Ideas]]"], False), ("project/active", False),
    ("projection", False),
])
def test_a_kind_value_names_the_project_category(value, yes):
    assert P.says_project(value) is yes


@pytest.mark.parametrize("folder,yes", [("Projects", True), ("1 Projects", True), ("02 - PROJECTS", True),
                                        ("1-Projects", True), ("1. Projects", True), ("Personal Projects", False),
                                        ("Project Templates", False)])
def test_a_projects_folder_by_its_name_without_its_number(folder, yes):
    assert P.is_projects_folder(folder) is yes


def test_the_catalog_is_kept_beside_the_index_for_its_state_only(built):
    """projects.json holds the catalog of one index state: read while the index is that state, made
    again (and rewritten) once the index changes."""
    from memory_plugin.core.config import load_config
    from memory_plugin.index import derived, project as P
    from memory_plugin.index.store import open_index

    env, cache = built["dendron"]
    cfg = load_config(vault=env["MEMORY_PLUGIN_VAULT"], cache_dir=cache)
    conn = open_index(cfg)
    try:
        derived._MEMO.clear()
        names = sorted(p["name"] for p in P.catalog(conn))
        saved = json.loads((cache / P.CATALOG_FILE).read_text(encoding="utf-8"))
        assert sorted(p["name"] for p in saved["value"]) == names
        # the same state: what the file says is the catalog (no note is read again)
        saved["value"] = [dict(saved["value"][0], name="Zq from the file")]
        (cache / P.CATALOG_FILE).write_text(json.dumps(saved), encoding="utf-8")
        derived._MEMO.clear()
        assert [p["name"] for p in P.catalog(conn)] == ["Zq from the file"]
        # another state: made again
        saved["state"] = ["changed"] + saved["state"][1:]
        (cache / P.CATALOG_FILE).write_text(json.dumps(saved), encoding="utf-8")
        derived._MEMO.clear()
        assert sorted(p["name"] for p in P.catalog(conn)) == names
    finally:
        conn.close()


def test_query_and_explain_read_every_project_a_note_names(built, tmp_path):
    """`Projects: ["[[tollgate-api]]", "[[beacon-worker]]"]`: the note is beacon-worker's as much as
    tollgate-api's: from beacon-worker's folder, `query` counts it as the current project's and `explain`
    names both projects, beacon-worker as the current one."""
    env = built["properties"][0]
    cwd = tmp_path / "work" / "beacon-worker"
    cwd.mkdir(parents=True)
    import subprocess
    import sys as _sys

    def cli(*a):
        r = subprocess.run([_sys.executable, "-m", "memory_plugin", *a], cwd=cwd, capture_output=True, text=True,
                           env={**__import__("os").environ, **env}, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout

    got = json.loads(cli("query", "webhook replays worker queue", "--json"))
    item = next(it for it in got["items"] if it["path"] == "Notes/Sprint review.md")
    assert any("project beacon-worker" in w for w in item["why"]), item
    info = json.loads(cli("explain", "Notes/Sprint review.md", "--json"))
    assert info["projects"] == ["tollgate-api", "beacon-worker"] and info["current_project"] is True
    line = next(x for x in cli("explain", "Notes/Sprint review.md").splitlines() if x.startswith("type:"))
    assert "tollgate-api (project tollgate-api)" in line and "beacon-worker (project beacon-worker, the current project)" in line
