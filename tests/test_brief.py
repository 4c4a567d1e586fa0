"""The SessionStart brief on fixtures/devvault: true (no superseded or retracted note shown as
current), current (every write command refreshes it), shared fairly (conventions, hubs and the
project each keep a share; what is cut is counted) and cut at sentence or word boundaries."""
from __future__ import annotations

import json
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
