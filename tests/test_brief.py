"""The SessionStart brief on fixtures/devvault: true (no superseded or retracted note shown as
current), current (every write command refreshes it), shared fairly (conventions, hubs and the
project each keep a share; what is cut is counted) and cut at sentence or word boundaries."""
from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from conftest import ROOT, run_cli
from memory_plugin.outputs import brief

DEVVAULT = ROOT / "fixtures" / "devvault"


@pytest.fixture
def dev(tmp_path, cache_dir):
    vault = tmp_path / "devvault"
    shutil.copytree(DEVVAULT, vault)
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return vault, env


def session_brief(env, cwd, extra=None) -> str:
    r = run_cli("hook", "session-start", input=json.dumps({"cwd": str(cwd), "source": "startup"}),
                env={**env, **(extra or {})}, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


def section(text: str, title: str) -> list[str]:
    part = next((s for s in text.split("\n## ") if s.startswith(title)), "")
    return [l for l in part.splitlines() if l.startswith("- ")]


def folder(tmp_path, name):
    d = tmp_path / "work" / name
    d.mkdir(parents=True, exist_ok=True)
    return d


def test_project_from_a_folder_named_like_its_repository(dev, tmp_path):
    text = session_brief(dev[1], folder(tmp_path, "tollgate-api"))
    assert "## Project Tollgate (the current project: `tollgate-api`" in text
    lines = section(text, "Project Tollgate")
    assert any("Redis Cluster rejects multi-key Lua [open pitfall]" in l for l in lines)
    assert any("Rotate partner API keys [sop]" in l for l in lines)  # `project: tollgate-api`, a plain alias
    assert not any("Charts with visx" in l for l in lines)  # another project's
    assert section(text, "Conventions") and section(text, "Hub notes")
    assert "1:1 with Dana" not in text and "salary" not in text.lower()  # the private note


def test_superseded_and_retracted_decisions_are_never_current(dev, tmp_path):
    text = session_brief(dev[1], folder(tmp_path, "tollgate-api"))
    decisions = [l for l in section(text, "Project Tollgate") if "[current decision]" in l]
    assert any("Token buckets in Redis for rate limits" in l for l in decisions)
    assert not any("Count rate limits in Postgres" in l for l in decisions)  # superseded (by `supersedes:`)
    assert "gRPC between services" not in text  # retracted
    text = session_brief(dev[1], folder(tmp_path, "beacon-worker"))
    decisions = [l for l in section(text, "Project Beacon") if "[current decision]" in l]
    assert any("Idempotency keys for sends" in l for l in decisions)
    assert not any("At-least-once sends" in l for l in decisions)


def test_a_superseded_note_shown_elsewhere_names_its_successor(dev, tmp_path):
    vault, env = dev
    (vault / "conventions" / "tabs.md").write_text("---\ntype: convention\nsummary: Indent with tabs.\n---\n")
    (vault / "conventions" / "spaces.md").write_text(
        "---\ntype: convention\nsummary: Indent with four spaces.\nsupersedes: \"[[tabs]]\"\n---\n# Indent with spaces\n")
    assert run_cli("sync", env=env).returncode == 0
    lines = section(session_brief(env, tmp_path), "Conventions")
    assert [l for l in lines if l.startswith("- tabs")] == \
        ["- tabs [superseded by Indent with spaces] (conventions/tabs.md): Indent with tabs."]


@pytest.mark.parametrize("chars", [1800, 2500, 4000])
def test_every_part_keeps_a_share_and_cuts_are_counted(dev, tmp_path, chars):
    vault, env = dev
    for i in range(30):  # many long project notes: they must not crowd out conventions and hubs
        (vault / "pitfalls" / f"p{i:02}.md").write_text(
            f"---\ntype: pitfall\nproject: \"[[tollgate]]\"\nsummary: Pitfall number {i} of the gateway, "
            + "described at length with many words " * 5 + ".\n---\n")
    assert run_cli("sync", env=env).returncode == 0
    cfgf = tmp_path / "c.yaml"
    cfgf.write_text(f"brief_chars: {chars}\n")
    text = session_brief(env, folder(tmp_path, "tollgate-api"), {"MEMORY_PLUGIN_CONFIG": str(cfgf)})
    assert len(text) <= chars
    proj, conv, hubs = (section(text, t) for t in ("Project Tollgate", "Conventions", "Hub notes"))
    assert proj and conv and hubs, text
    data = _brief_json(env)
    p = data["projects"]["tollgate"]
    total = {"project": len(p["hubs"]) + len(p["pitfalls"]) + len(p["decisions"]) + len(p["notes"]),
             "conventions": len(data["conventions"]),
             "hubs": len([h for h in data["hubs"] if h["path"] not in {x["path"] for x in p["hubs"]}])}
    shown = {"project": len(proj), "conventions": len(conv), "hubs": len(hubs)}
    m = re.search(r"\((\d+) more items left out to keep this brief short: ([^;]*);", text)
    assert m, text
    counts = dict((v, int(n)) for n, v in re.findall(r"(\d+) (project notes|conventions|hub notes|journal lines)",
                                                      m.group(2)))
    left = {"project": counts.get("project notes", 0), "conventions": counts.get("conventions", 0),
            "hubs": counts.get("hub notes", 0)}
    for k in total:
        assert shown[k] + left[k] == total[k], (k, shown, left, total)
    assert int(m.group(1)) == sum(counts.values())


def _brief_json(env):
    import os

    return brief.load(os.environ["MEMORY_PLUGIN_CACHE_DIR"])


@pytest.mark.parametrize("s,limit,out", [
    ("One. Two three four five six seven.", 20, "One. Two three four…"),
    ("First sentence is here. Second one runs on and on", 30, "First sentence is here."),
    ("averyveryverylongwordwithoutanybreaks", 10, "averyvery…"),
    ("short", 10, "short"),
])
def test_summaries_end_at_a_sentence_or_a_word(s, limit, out):
    assert brief.summary(s, limit) == out


def test_brief_summaries_never_end_inside_a_word(dev, tmp_path):
    import os
    import sqlite3

    text = session_brief(dev[1], folder(tmp_path, "tollgate-api"))
    conn = sqlite3.connect(os.path.join(os.environ["MEMORY_PLUGIN_CACHE_DIR"], "index.sqlite"))
    full = dict(conn.execute("SELECT path, summary FROM notes"))
    cut = 0
    for line in text.splitlines():
        m = re.match(r"- .*? \(([^()]+\.md)\): (.*)$", line)
        if not m:
            continue
        shown, whole = m.group(2), " ".join(full[m.group(1)].split())
        if shown == whole:
            continue
        cut += 1
        if shown.endswith("…"):  # a word boundary: the whole summary goes on with a space there
            assert whole.startswith(shown[:-1]) and whole[len(shown) - 1] == " ", (shown, whole)
        else:  # a sentence boundary
            assert whole.startswith(shown) and shown[-1] in ".!?", (shown, whole)
    assert cut >= 1  # long first paragraphs (the parser already ends most at a sentence within SUMMARY_CHARS)


WRITES = [
    ("remember", lambda v: ["remember", "--type", "decision", "--title", "Retry webhooks from a queue",
                            "--summary", "Webhook retries run from a Redis stream, not in the request.",
                            "--project", "tollgate-api"], "Retry webhooks from a queue"),
    ("supersede", lambda v: ["supersede", "jwt-validation-at-edge", "webhook-signing-with-hmac"], None),
    ("retract", lambda v: ["retract", "server-side-pagination"], None),
    ("validate", lambda v: ["validate", "sigterm-during-job"], None),
    ("contradicts", lambda v: ["contradicts", "charts-with-visx", "server-side-pagination"], None),
]


@pytest.mark.parametrize("name,args,expect", WRITES, ids=[w[0] for w in WRITES])
def test_every_write_command_refreshes_the_brief(dev, name, args, expect):
    vault, env = dev
    before = _brief_json(env)
    r = run_cli(*args(vault), env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    after = _brief_json(env)
    assert after["changed_at"] > before["changed_at"] or after != before
    if expect:
        assert expect in json.dumps(after)
    if name == "supersede":  # the old decision is no longer current
        assert "decisions/jwt-validation-at-edge.md" not in json.dumps(after["projects"]["tollgate"]["decisions"])
    if name == "retract":
        assert "decisions/server-side-pagination.md" not in json.dumps(after["projects"]["lighthouse"]["decisions"])


def test_reindex_and_sync_refresh_the_brief(dev):
    vault, env = dev
    (vault / "conventions" / "python-style.md").write_text(
        "---\ntype: convention\nsummary: uv for environments, ruff for lint.\n---\n")
    assert run_cli("reindex", str(vault / "conventions" / "python-style.md"), env=env).returncode == 0
    assert "uv for environments" in json.dumps(_brief_json(env)["conventions"])
    (vault / "conventions" / "new-rule.md").write_text("---\ntype: convention\nsummary: Every PR has a changelog line.\n---\n")
    assert run_cli("sync", env=env).returncode == 0
    assert "changelog line" in json.dumps(_brief_json(env)["conventions"])


def test_reorganize_apply_refreshes_the_brief(dev):
    vault, env = dev
    note = vault / "decisions" / "jobs-with-skip-locked.md"  # a memory whose confidence has decayed
    note.write_text(note.read_text().replace("created: 2024-09-20\n", "created: 2024-09-20\nconfidence: 0.5\n"))
    assert run_cli("sync", env=env).returncode == 0
    props = json.loads(run_cli("reorganize", "--json", env=env).stdout)["proposals"]
    stale = next(p for p in props if p["kind"] == "stale" and p["notes"] == ["decisions/jobs-with-skip-locked.md"])
    assert "decisions/jobs-with-skip-locked.md" in json.dumps(_brief_json(env)["projects"]["beacon"]["decisions"])
    r = run_cli("reorganize", "--apply", str(stale["id"]), env=env)
    assert r.returncode == 0, r.stderr
    assert "decisions/jobs-with-skip-locked.md" not in json.dumps(_brief_json(env)["projects"]["beacon"]["decisions"])


def test_an_ambiguous_folder_says_which_projects_match(tmp_path):
    data = {"vault": "/v", "notes": 3, "built_at": 1.0, "changed_at": 1.0, "conventions": [], "hubs": [],
            "journal": {}, "projects": {
                "billing": {"name": "billing", "title": "Billing API", "keys": ["billing", "api"], "count": 1,
                            "hubs": [], "pitfalls": [], "decisions": [], "notes": []},
                "search": {"name": "search", "title": "Search API", "keys": ["search", "api"], "count": 1,
                           "hubs": [], "pitfalls": [], "decisions": [], "notes": []}}}
    d = tmp_path / "api"
    d.mkdir()
    from memory_plugin.index import project as P

    text = brief.compose(data, brief_chars=3000, match=P.detect(brief.catalog_of(data), str(d)), now=2.0)
    assert "Several projects in the vault match the working folder: billing, search" in text
    assert "## Project" not in text


# ---------------------------------------------------------------- the session's cut (brief-start.jsonl)

CUT_VAULTS = [DEVVAULT, ROOT / "fixtures" / "vault"] + sorted(p for p in (ROOT / "fixtures" / "projects").iterdir()
                                                             if p.is_dir())


def _built(src, tmp_path):
    from memory_plugin.core.config import load_config
    from memory_plugin.outputs import pipeline

    vault = tmp_path / "vault"
    shutil.copytree(src, vault, symlinks=True)
    cfg = load_config(vault=vault)
    pipeline.rebuild(cfg)
    return cfg


@pytest.mark.parametrize("src", CUT_VAULTS, ids=lambda p: p.name)
def test_the_session_cut_composes_the_brief_the_whole_brief_json_does(src, tmp_path, cache_dir):
    """For every project's folder (by each name it goes by), a folder no project has and the
    filesystem root; fresh and stale; with an error to surface and code flagged changed: the brief
    and the notes recorded as shown are the same from brief-start.jsonl as from brief.json whole."""
    import sqlite3
    import time

    from memory_plugin.claude import hooks, session
    from memory_plugin.index import project as P

    cfg = _built(src, tmp_path)
    cache = str(cfg.cache_dir)
    full = brief.load(cache)
    names = {n for p in brief.catalog_of(full) for n in [p["name"], *p["keys"]]} | {"kubernetes-operator"}
    cwds = [str(folder(tmp_path, n.replace("/", "-"))) for n in sorted(names)] + ["/"]
    assert len(cwds) > 2 or src.name == "vault"
    flagged = {p: "changed" for p in session._brief_paths(cache, full)[::3]}
    now = time.time()
    runs = [dict(now=now), dict(now=now + 3 * 86400, error="post-tool-use hook at 2026-01-02 10:00: OSError: boom",
                                code_states=flagged, syncing="a background sync has started")]
    projects = 0
    for cwd in cwds:
        cut, match = brief.for_session(cache, cwd)
        assert match == P.detect(brief.catalog_of(full), cwd=cwd)
        assert len(cut["projects"]) <= 1
        projects += len(cut["projects"])
        for kw in runs:
            text = brief.compose(full, brief_chars=cfg.brief_chars, match=match, **kw)
            assert brief.compose(cut, brief_chars=cfg.brief_chars, match=match, **kw) == text
            # the same notes (brief.json whole lists a note once per part it is in)
            assert set(hooks._shown(session._brief_paths(cache, cut), text)) == \
                set(hooks._shown(session._brief_paths(cache, full), text))
    assert projects or not full["projects"]
    conn = sqlite3.connect(cfg.path("index.sqlite"))
    private = [p for (p,) in conn.execute("SELECT path FROM notes WHERE private = 1")]
    conn.close()
    cut_text = (cfg.cache_dir / brief.BRIEF_START).read_text(encoding="utf-8")
    assert all(json.dumps(p)[1:-1] not in cut_text for p in private)
    assert src.name != "devvault" or private  # the check sees private notes


def test_the_session_cut_is_read_only_while_it_matches_brief_json(dev, tmp_path):
    from memory_plugin.core.fsutil import atomic_write

    vault, env = dev
    cache = os.environ["MEMORY_PLUGIN_CACHE_DIR"]
    cwd = folder(tmp_path, "tollgate-api")
    assert brief.for_session(cache, str(cwd)) is not None
    before = session_brief(env, cwd)
    # brief.json rewritten by something that leaves the cut as it was (an older version): the truth
    data = brief.load(cache)
    data["conventions"][0]["summary"] = "Rewritten since the cut was made."
    atomic_write(os.path.join(cache, brief.BRIEF_JSON), json.dumps(data))
    assert brief.for_session(cache, str(cwd)) is None
    assert "Rewritten since the cut was made." in session_brief(env, cwd)
    # the next sync writes both again
    assert run_cli("sync", env=env).returncode == 0
    assert brief.for_session(cache, str(cwd)) is not None and session_brief(env, cwd) == before
    # a cut lost or cut short: brief.json whole, the same brief; the next sync writes it again
    start = os.path.join(cache, brief.BRIEF_START)
    with open(start, "rb+") as f:
        f.truncate(os.path.getsize(start) - 10)
    assert brief.for_session(cache, str(cwd)) is None and session_brief(env, cwd) == before
    os.unlink(start)
    assert brief.for_session(cache, str(cwd)) is None and session_brief(env, cwd) == before
    assert run_cli("sync", env=env).returncode == 0
    assert brief.for_session(cache, str(cwd)) is not None


def test_plain_text_is_its_own_escape():
    """escape_vault_text returns a plain string (fence.plain) as it is, without its regular expressions:
    they would leave it unchanged."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from memory_plugin.core import fence

    @settings(max_examples=400, deadline=None)
    @given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7f), max_size=40))
    def check(s):
        if fence.plain(s):
            assert fence._BREAKS_RE.sub(" ", fence._rx("format").sub("", s)).strip() == s
            assert not fence._rx("lt").search(s)
            assert fence.escape_vault_text(s) == s

    check()
    assert not fence.plain("a  b") and not fence.plain(" a") and not fence.plain("a\tb") and not fence.plain("<x")


def test_epoch_day_counts_as_calendar_timegm():
    import calendar

    from memory_plugin.core.textutil import age_phrase, epoch_day

    for y in [1, 4, 99, 100, 400, 1582, 1899, 1900, 1969, 1970, 1971, 2000, 2024, 2025, 2100, 2400, 9999]:
        for m in range(0, 14):
            for d in (0, 1, 15, 28, 29, 30, 31, 32, 45):
                try:
                    want = calendar.timegm((y, m, d, 0, 0, 0))
                except (ValueError, OverflowError):
                    want = None
                try:
                    got = epoch_day(y, m, d) * 86400
                except ValueError:
                    got = None
                assert got == want, (y, m, d)
    assert age_phrase(created="2024-02-29", now=calendar.timegm((2024, 3, 21, 0, 0, 0))) == "written 3 weeks ago"
    assert age_phrase(validated="0000-01-01", created="2020-01-01", now=1.6e9) == "written 8 months ago"


def test_a_folder_no_project_is_named_for_briefs_the_notes_that_name_it(tmp_path, cache_dir):
    from conftest import write_file

    vault = tmp_path / "vault"
    write_file(vault, "Guides/Obsidian Headless.md", "Run the app without a window.\n")
    write_file(vault, "Roundup/2024-05-01.md", "New: [Tollgate](https://github.com/acme/tollgate/releases) 2.0,\n"
               "and https://github.com/acme/tollgate again; see https://github.com/sponsors/acme\n")
    write_file(vault, "Roundup/2024-06-01.md", "Tollgate is at https://github.com/acme/tollgate.git\n")
    write_file(vault, "Sync.md", "Sync your notes.\n")  # one word names a topic, not a repository
    write_file(vault, "Private.md", "---\nprivate: true\n---\nhttps://github.com/acme/tollgate\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    text = session_brief(env, folder(tmp_path, "obsidian-headless"))
    assert "## Project `obsidian-headless` (the working folder)" in text
    assert section(text, "Project `obsidian-headless`")[0].startswith("- Obsidian Headless [note] (Guides/Obsidian Headless.md)")
    lines = section(session_brief(env, folder(tmp_path, "tollgate")), "Project `tollgate`")
    assert [l.split("(")[1].split(")")[0] for l in lines] == ["Roundup/2024-05-01.md", "Roundup/2024-06-01.md"]
    for name in ("sync", "acme", "kubernetes-operator"):  # a one-word note, a host's own page, nothing
        text = session_brief(env, folder(tmp_path, name))
        assert f"The vault holds no notes about the current project `{name}`" in text and "## Project" not in text


def test_a_dendron_note_named_for_the_folder_brings_its_hierarchy(tmp_path, cache_dir):
    from conftest import write_file

    vault = tmp_path / "vault"
    write_file(vault, "dendron.yml", "version: 5\n")
    write_file(vault, "root.md", "---\ntitle: Root\n---\nThe garden.\n")
    write_file(vault, "daily.2022-11-16.md", "---\ntitle: 2022-11-16\n---\nA day.\n")
    write_file(vault, "daily.2022-11-16.stock-trading-spreadsheet.md", "---\ntitle: Stock sheet\n---\nThe sheet.\n")
    write_file(vault, "daily.2022-11-16.stock-trading-spreadsheet.average-cost.md", "---\ntitle: Average cost\n---\nPer share.\n")
    write_file(vault, "daily.2022-11-16.stock-trading-spreadsheetx.md", "---\ntitle: Other\n---\nNot it.\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    lines = section(session_brief(env, folder(tmp_path, "stock-trading-spreadsheet")), "Project `stock-trading-spreadsheet`")
    assert [l.split("(")[1].split(")")[0] for l in lines] == [
        "daily.2022-11-16.stock-trading-spreadsheet.md", "daily.2022-11-16.stock-trading-spreadsheet.average-cost.md"]


def test_a_one_word_note_that_cites_the_repository_of_its_name_names_the_folder(tmp_path, cache_dir):
    """`soln.typedb` recording `https://github.com/vaticle/typedb` once is about that repository: named
    for it and citing it. A one-word note that cites nothing (`soln.dolt`), or a note citing the
    repository once under another name, names no folder."""
    from conftest import write_file

    vault = tmp_path / "vault"
    write_file(vault, "dendron.yml", "version: 5\n")
    write_file(vault, "root.md", "---\ntitle: Root\n---\nThe garden.\n")
    write_file(vault, "soln.typedb.md", "---\ntitle: TypeDB\n---\n- hasRepository https://github.com/vaticle/typedb\n")
    write_file(vault, "soln.dolt.md", "---\ntitle: Dolt\n---\nA versioned database.\n")
    write_file(vault, "t.graphs.md", "---\ntitle: Graphs\n---\nSee https://github.com/acme/grakn for graphs.\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    lines = section(session_brief(env, folder(tmp_path, "typedb")), "Project `typedb`")
    assert [l.split("(")[1].split(")")[0] for l in lines] == ["soln.typedb.md"]
    for name in ("dolt", "grakn"):
        assert "## Project" not in session_brief(env, folder(tmp_path, name))


def test_a_folder_of_a_repository_the_notes_cite_names_the_working_folder(tmp_path, cache_dir):
    """A guide that walks through `github.com/acme/samples/tree/main/lsp-sample` (a sample of a samples
    repository, a package of a monorepo) is what a developer in a folder `lsp-sample` needs; a folder
    cited once in passing names nothing."""
    from conftest import write_file

    vault = tmp_path / "vault"
    url = "https://github.com/acme/samples/tree/main/lsp-sample"
    write_file(vault, "Language Server Guide.md", f"Clone [the sample]({url}) and run it.\n\nThe full code is at {url}.\n")
    write_file(vault, "Other.md", "Also see https://github.com/acme/samples/tree/main/tree-view-sample once.\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    lines = section(session_brief(env, folder(tmp_path, "lsp-sample")), "Project `lsp-sample`")
    assert [l.split("(")[1].split(")")[0] for l in lines] == ["Language Server Guide.md"], lines
    assert "## Project" not in session_brief(env, folder(tmp_path, "tree-view-sample"))


def test_a_folder_on_the_way_to_the_files_the_notes_cite_names_the_working_folder(tmp_path, cache_dir):
    """Notes that cite a monorepo's files (`…/blob/dev/packages/engine-server/src/engine.ts`) are about
    the package a developer works in, `engine-server`: its place nearest the repository's root, under
    `packages/` (beside the tests' mirror of it further down). `src`, one in every package at one
    depth, names no folder."""
    from conftest import write_file

    vault = tmp_path / "vault"
    base = "https://github.com/acme/mono/blob/dev/packages"
    write_file(vault, "Engine.md", f"The engine starts in {base}/engine-server/src/engine.ts#L88.\n")
    write_file(vault, "Store.md", f"Notes are written by {base}/engine-server/src/store/file.ts.\n")
    write_file(vault, "Plugin.md", f"Commands live in {base}/plugin-core/src/commands.ts.\n")
    write_file(vault, "Views.md", f"Views live in {base}/plugin-core/src/views.ts.\n")
    # the tests' mirror of the package further down: the name's place is still the package
    write_file(vault, "Tests.md", f"See {base}/test-utils/src/__tests__/engine-server/engine.spec.ts.\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    lines = section(session_brief(env, folder(tmp_path, "engine-server")), "Project `engine-server`")
    assert sorted(l.split("(")[1].split(")")[0] for l in lines) == ["Engine.md", "Store.md"], lines
    assert "## Project" not in session_brief(env, folder(tmp_path, "src"))
