"""query and search over a copy of the fixture vault, as whole processes and as core calls."""
import json
import re

import pytest

from conftest import run_cli
from memory_plugin.search import query as Q
from memory_plugin.core.config import load_config
from memory_plugin.index.store import open_index, rebuild


@pytest.fixture
def built(vault):
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    return vault


@pytest.fixture
def conn(built, cache_dir):
    cfg = load_config(vault=built)
    c = open_index(cfg)
    yield cfg, c
    c.close()


def q(vault, *args):
    r = run_cli("--vault", str(vault), "query", *args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_query_json_shape_best_first(built):
    out = q(built, "SKIP LOCKED job queue")
    assert set(out) == {"query", "items", "omitted"}
    first = out["items"][0]
    assert first["path"] == "Projects/atlas/decisions/Use Postgres SKIP LOCKED for job queue.md"
    assert all(set(i) == {"path", "title", "type", "score", "why", "summary"} for i in out["items"])
    scores = [i["score"] for i in out["items"]]
    assert scores == sorted(scores, reverse=True)
    assert any("matched" in w for w in first["why"])


def test_alias_resolves(built):
    assert q(built, "WAL")["items"][0]["path"] == "Concepts/Write-ahead logging.md"
    top = q(built, "coffee rule")["items"][0]
    assert top["path"] == "Concepts/Café au lait rule.md" and any("alias" in w for w in top["why"])


def test_pitfalls_question_works_with_and_without_type(built):
    a = q(built, "any pitfalls for testing?")["items"]
    b = q(built, "testing", "--type", "pitfall")["items"]
    assert a[0]["path"] == b[0]["path"] == "Pitfalls/Flaky tests from shared tmp dirs.md"
    assert all(i["type"] == "pitfall" for i in b)


def test_text_output_groups_by_kind(built):
    r = run_cli("--vault", str(built), "query", "logging conventions")
    assert r.returncode == 0
    assert r.stdout.startswith("## Conventions")
    assert "why:" in r.stdout


def test_superseded_demoted_and_history_first(built):
    now = [i["path"] for i in q(built, "Redis job queue")["items"]]
    new, old = ("Projects/atlas/decisions/Use Postgres SKIP LOCKED for job queue.md",
                "Projects/atlas/decisions/Use Redis for job queue.md")
    assert now.index(new) < now.index(old)
    past = [i["path"] for i in q(built, "Redis job queue", "--history")["items"]]
    assert past.index(old) < past.index(new)
    asked = q(built, "what did we decide before SKIP LOCKED for the atlas job queue?")
    assert asked["items"][0]["path"] == old


def test_graph_bridge_reaches_linked_note(built):
    paths = [i["path"] for i in q(built, "which concept does the SKIP LOCKED queue decision depend on?")["items"][:5]]
    assert "Concepts/Idempotency.md" in paths


def test_same_project_first(built, tmp_path):
    proj = tmp_path / "code" / "beacon" / "src"
    proj.mkdir(parents=True)
    r = run_cli("--vault", str(built), "query", "pitfalls", "--json", env={"CLAUDE_PROJECT_DIR": str(proj)})
    assert json.loads(r.stdout)["items"][0]["path"].startswith("Projects/beacon/")
    assert q(built, "pitfalls", "--project", "atlas")["items"][0]["path"].startswith("Projects/atlas/")


@pytest.mark.parametrize("text, project", [("sqlite", "memory-plugin"), ("database", "atlas"),
                                            ("job queue", "memory-plugin"), ("testing", "atlas")])
def test_project_notes_come_first_then_the_others(built, text, project):
    """Project by property, by folder (Projects/P/...) or as P's hub: all of them before any other note."""
    items = q(built, text, "--project", project)["items"]
    mine = [i["path"].startswith(f"Projects/{project}/") or f"project {project}" in i["why"] for i in items]
    assert any(mine) and not all(mine)
    assert mine == sorted(mine, reverse=True), [i["path"] for i in items]


def test_project_first_within_each_kind_group(built):
    r = run_cli("--vault", str(built), "query", "connection pool", "--project", "atlas")
    pitfalls = [ln for ln in r.stdout.split("## Pitfalls\n")[1].split("##")[0].splitlines() if ln.startswith("- ")]
    assert len(pitfalls) >= 2, r.stdout  # the atlas pitfall and at least one from elsewhere
    assert "Connection pool exhaustion under load" in pitfalls[0]
    assert all("Projects/atlas/" not in ln for ln in pitfalls[1:]), pitfalls


def test_budget_never_exceeded_and_omitted_counted(built):
    for budget in (50, 100, 300):
        out = q(built, "atlas", "--budget", str(budget))
        assert out["omitted"] > 0
    big = q(built, "atlas", "--budget", "100000")
    assert big["omitted"] == 0 and len(big["items"]) > len(q(built, "atlas", "--budget", "100")["items"])


@pytest.mark.parametrize("text", ["atlas", "job queue", "sqlite", "any pitfalls for testing?",
                                  "Kafka consumer group rebalancing", "x" * 400])
def test_printed_answer_fits_the_budget_text_and_json(built, text):
    for budget in (50, 80, 200, 1000, None):
        for form in ([], ["--json"]):
            args = ["--budget", str(budget)] if budget else []
            r = run_cli("--vault", str(built), "query", text, *args, *form)
            assert r.returncode == 0, r.stderr
            assert len(r.stdout) <= (budget or 1500) * 4, (text, budget, form)
            if form:
                json.loads(r.stdout)


def test_budget_below_minimum_is_an_error(built):
    r = run_cli("--vault", str(built), "query", "atlas", "--budget", str(Q.MIN_BUDGET - 1))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1 and str(Q.MIN_BUDGET) in r.stderr
    assert f"at least {Q.MIN_BUDGET}" in " ".join(run_cli("query", "--help").stdout.split())


def test_why_names_the_word_form_the_note_has(built):
    """"testing" finds notes through its stem: `why` says which form the note has."""
    items = q(built, "testing", "--budget", "100000")["items"]
    for it in items:
        text = (it["path"] + "\n" + (built / it["path"]).read_text(encoding="utf-8")).casefold()
        for m in re.findall(r"`([^`]+)`( \(for testing\))?", " ".join(w for w in it["why"] if w.startswith("matched"))):
            assert re.search(rf"\b{re.escape(m[0])}\b", text), (it["path"], it["why"])
    assert any("(for testing)" in w for it in items for w in it["why"])


def test_private_notes_never_returned(built):
    for text in ("salary negotiation", "Salary", "sk-test", "compensation review", "Atlas launch"):
        out = q(built, text)
        assert all("Personal/" not in i["path"] for i in out["items"])
        s = run_cli("--vault", str(built), "search", text, "--json")
        hits = json.dumps(json.loads(s.stdout)["hits"])
        assert "Personal/" not in hits and "sk-test" not in hits


def test_private_notes_do_not_make_the_vault_know_a_topic(conn):
    """Only a private note's title has the words: the vault is not known to hold the topic (answering
    with public notes would be wrong, and would tell that a private note exists)."""
    from memory_plugin.search import retrieve as R

    cfg, c = conn
    n = c.execute("SELECT count(*) FROM notes").fetchone()[0]
    assert c.execute("SELECT count(*) FROM fts WHERE fts MATCH 'salary'").fetchone()[0] == 1  # the private title
    assert R.idf_weights(c, ["salary", "postgres"], n)["salary"][1] == 0
    assert R.idf_weights(c, ["salary", "postgres"], n)["postgres"][1] > 0
    out = Q.query(cfg, c, "salary negotiation", as_json=True)
    assert out["items"] == [] and out["evidence"]["known"] == 0.0


def test_negative_question_returns_nothing(built):
    assert q(built, "what do we know about Kubernetes helm charts?")["items"] == []
    r = run_cli("--vault", str(built), "query", "Kafka consumer group rebalancing")
    assert r.returncode == 0 and "Nothing in the vault" in r.stdout


def test_being_returned_by_query_is_not_use_validating_is(built):
    """An empty daily note returned by every answer reached 0.77: a return raised confidence. Now
    twenty answers leave it where it was, and `validate` (the owner confirming it) raises it."""
    from memory_plugin.index.lifecycle import effective_confidence

    (built / "Decisions/Queue retries.md").write_text(
        "---\ntype: decision\nconfidence: 0.6\ncreated: 2024-01-01\n---\nJob queue retries back off.\n")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    cfg = load_config(vault=built)
    c = open_index(cfg)
    try:
        before = effective_confidence(cfg, c, "Decisions/Queue retries.md")
        for _ in range(20):
            assert "Decisions/Queue retries.md" in [i["path"] for i in Q.query(cfg, c, "job queue retries")["items"]]
        assert effective_confidence(cfg, c, "Decisions/Queue retries.md") == before
        assert run_cli("--vault", str(built), "validate", "Queue retries").returncode == 0
        after = effective_confidence(cfg, c, "Decisions/Queue retries.md")
        assert after["effective"] > before["effective"] and after["age_days"] == 0, (before, after)
    finally:
        c.close()
    text = run_cli("--vault", str(built), "explain", "Queue retries").stdout
    assert "confidence: 0.70 (stored 0.70" in text and "by query" not in text, text


def test_confidence_decays_with_half_life_but_not_a_convention(conn):
    import datetime as dt

    from memory_plugin.index.lifecycle import confidence
    cfg, _ = conn
    props = {"confidence": 0.8, "last_validated": "2026-01-01"}
    c0 = confidence(cfg, props, None, dt.date(2026, 1, 1))
    c1 = confidence(cfg, props, None, dt.date(2026, 1, 1) + dt.timedelta(days=cfg.confidence_half_life_days))
    assert c0["effective"] == 0.8 and abs(c1["effective"] - 0.4) < 1e-6
    rule = confidence(cfg, props, None, dt.date(2030, 1, 1), type_="convention")
    assert rule["effective"] == 0.8 and "does not decay" in str(rule)


def test_search_snippets(built):
    r = run_cli("--vault", str(built), "search", "busy_timeout", "--json")
    hits = json.loads(r.stdout)["hits"]
    assert hits[0]["path"] == "Pitfalls/SQLite WAL needs busy_timeout.md"
    assert "[" in hits[0]["snippet"]


@pytest.mark.parametrize("args, msg", [
    (["query", ""], "empty query"),
    (["query", "   "], "empty query"),
    (["query", "x", "--budget", "0"], "budget 0"),
    (["query", "x", "--budget", "-5"], "budget -5"),
    (["query", "x", "--type", "bogus"], "unknown type `bogus`"),
    (["search", ""], "empty search"),
    (["explain", "No such note anywhere"], "no note called"),
    (["backlinks", "No such note anywhere"], "no note called"),
])
def test_bad_input_one_line_exit_2(built, args, msg):
    r = run_cli("--vault", str(built), *args)
    assert r.returncode == 2
    assert r.stderr.startswith("Error: ") and msg in r.stderr and r.stderr.count("\n") == 1
    assert r.stdout == ""


def test_core_query_without_index_of_types(conn):
    cfg, c = conn
    with pytest.raises(Q.QueryError):
        Q.query(cfg, c, "x", type_="nope")
    res = Q.query(cfg, c, "job queue", project="")
    assert res["items"] and res["omitted"] >= 0


def _add_note(vault, rel, text):
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def test_a_note_bm25_finds_is_never_gated_away(vault):
    """A natural question whose answer holds only two of its words: BM25 ranks it first, so query
    returns it (the old coverage gate answered nothing)."""
    _add_note(vault, "Learnings/Page history.md", "---\ntype: learning\n---\n# Page history\n\n"
              "Every save keeps a snapshot of the page. Open the snapshot list and restore the one you want.\n")
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    items = q(vault, "can I roll a page back to how it looked an hour ago?")["items"]
    assert items and items[0]["path"] == "Learnings/Page history.md"
    assert "matched `page`" in items[0]["why"]


def test_why_never_shows_word_fragments(built):
    """what's -> `s`, we're -> `re`: pieces of words are not searched for and never a reason."""
    items = q(built, "what's the convention for logs we're re-running?", "--budget", "100000")["items"]
    assert items
    for it in items:
        for w in it["why"]:
            assert not re.search(r"`(s|re|t|ve|ll|d|m)`", w), (it["path"], w)


def test_why_says_which_retriever_found_the_note(built):
    """Words ("matched `w`"), a name ("alias `X` named in the question") and the graph ("linked from
    [[X]]", a typed relation, a shared tag) each say so."""
    whys = [w for it in q(built, "which concept does the SKIP LOCKED queue decision depend on?")["items"] for w in it["why"]]
    assert any(w.startswith("matched `") for w in whys)
    assert any(re.fullmatch(r"(linked from|links to) \[\[.+\]\]|\[\[.+\]\] [a-z ]+ it|[a-z ]+ \[\[.+\]\]|"
                            r"shares #\S+ with \[\[.+\]\]|two links away \(.+\)", w) for w in whys)
    assert "alias `WAL` named in the question" in q(built, "WAL")["items"][0]["why"]


Q_OTHER = Q.RULES["other_project"]


def test_rules_are_named_weights_that_drive_the_ranking(conn, monkeypatch):
    """The project rule is a named weight: another project's note scores RULES["other_project"] of
    what it scores when that rule is switched off (1.0)."""
    cfg, c = conn
    assert {"intent_match", "historical", "historical_asked", "journal", "other_project"} <= set(Q.RULES)
    other = "Projects/memory-plugin/decisions/SQLite FTS5 for search.md"

    def score():
        items = Q.query(cfg, c, "sqlite", project="atlas", budget=10**6)["items"]
        return next(i["score"] for i in items if i["path"] == other)

    demoted = score()
    monkeypatch.setitem(Q.RULES, "other_project", 1.0)
    assert abs(demoted - Q_OTHER * score()) < 1e-3


def test_lexical_abstention_is_one_rule(conn):
    """Lexical only: nothing when the words some note has hold less than ABSTAIN["lexical_known"] of
    the question's idf mass; a question all of whose words the vault has is always answered."""
    cfg, c = conn
    ev = {"named": False, "semantic": False, "sem_top": 0.0, "agree": False}
    assert Q.abstain({**ev, "known": Q.ABSTAIN["lexical_known"] - 0.01})
    assert not Q.abstain({**ev, "known": Q.ABSTAIN["lexical_known"]})
    assert Q.query(cfg, c, "zebra giraffe database", project="", semantic=False)["items"] == []
    assert Q.query(cfg, c, "which queue did atlas use originally?", project="", semantic=False)["items"]
    assert Q.query(cfg, c, "terraform helm kubernetes rebalancing", project="",
                   semantic=False)["items"] == []


def test_plain_bm25s_best_note_keeps_its_place(conn, monkeypatch):
    """The structural floor under "lexical never below plain BM25": plain BM25's best note ends in
    the top 1 + ANCHOR["slack"] even when fusion gives the words no weight at all; switched off
    (ANCHOR["top"] = 0) the same fusion loses it from there."""
    cfg, c = conn
    text = "how do we roll out a release safely?"
    best = Q.baseline(c, text, limit=1)[0]
    monkeypatch.setattr(Q.R.RETRIEVER["lexical"], "weight", 0.0)
    monkeypatch.setattr(Q.R.RETRIEVER["forms"], "weight", 0.0)

    def top(n):
        return [i["path"] for i in Q.query(cfg, c, text, project="", semantic=False,
                                           budget=10**6)["items"][:n]]

    assert best in top(1 + Q.ANCHOR["slack"])
    monkeypatch.setitem(Q.ANCHOR, "top", 0)
    assert best not in top(1 + Q.ANCHOR["slack"])


def test_anchor_is_kept_within_its_part_and_not_against_a_rule():
    """An anchored note moves up within its part (the current project's notes first); a note a
    rule lowered for a cause (a kind not asked for, history...) is not moved."""
    cs = [Q.R.Cand(f"n{i}.md", mine=i < 2) for i in range(8)]
    out = [c.path for c in Q.anchored(cs, {"n6.md": 1})]
    assert out[:2] == ["n0.md", "n1.md"] and out.index("n6.md") == 2 + Q.ANCHOR["slack"]
    cs[6].demoted = True
    assert [c.path for c in Q.anchored(cs, {"n6.md": 1})] == [c.path for c in cs]


def test_abstention_is_one_rule_of_names_words_and_vault_relative_closeness():
    """A name or one note's words that carry the question always answer; semantic on, a question
    mostly about words no note has is answered only when its best note is closer than usual in the
    vault (z-score), and any question whose best note is far below usual gets nothing."""
    A = Q.ABSTAIN
    ev = {"named": False, "named_w": 0.0, "cover": 0.0, "semantic": True, "sem_top": 0.6, "agree": True,
          "known": 1.0, "sem_z": 0.5}
    assert not Q.abstain(ev)
    novel = {**ev, "known": A["novel_known"] - 0.01, "sem_z": A["novel_z"] - 0.01}
    assert Q.abstain(novel)
    assert not Q.abstain({**novel, "sem_z": A["novel_z"]})
    assert not Q.abstain({**novel, "known": A["novel_known"]})
    far = {**ev, "sem_z": A["far_z"] - 0.01}
    assert Q.abstain(far) and not Q.abstain({**far, "sem_z": A["far_z"]})
    # the raw cosine and agreement of the old rule decide nothing unless a caller asks (prompt hook)
    assert not Q.abstain({**ev, "sem_top": 0.1, "agree": False})
    assert Q.abstain({**ev, "sem_top": 0.1, "agree": False}, {"semantic_min": 0.5})
    for strong in ({"named_w": A["named_min"]}, {"cover": A["cover_min"]}):
        assert not Q.abstain({**far, **strong}) and not Q.abstain({**novel, **strong})
        assert not Q.abstain({**far, "semantic": False, "known": 0.0, **strong})


def test_a_note_linked_with_everything_spreads_less(vault, monkeypatch):
    """Graph expansion damps a neighbour linked with more than HUB_DEGREE notes (a feature list)
    by sqrt(HUB_DEGREE / degree): a note linked with everything is little evidence about one question."""
    names = [f"Feature {i}" for i in range(3 * Q.R.HUB_DEGREE)]
    _add_note(vault, "Features.md", "# Features\n\n" + "\n".join(f"- [[{n}]]" for n in names) + "\n")
    for n in names:
        _add_note(vault, f"features/{n}.md", f"# {n}\n\nPart of [[Features]].\n")
    _add_note(vault, "features/Feature 7.md", "# Feature 7\n\nPart of [[Features]], uses [[Widgets]].\n")
    _add_note(vault, "Widgets.md", "# Widgets\n\nWhat a widget is.\n")
    assert run_cli("--vault", str(vault), "rebuild").returncode == 0
    cfg = load_config(vault=vault)
    c = open_index(cfg)
    factor = (Q.R.HUB_DEGREE / (len(names))) ** 0.5
    assert Q.R.hub_damping(c, ["Features.md", "features/Feature 1.md"]) == {"Features.md": pytest.approx(factor)}
    seeds = [("features/Feature 7.md", 1.0)]
    damped = dict(Q.R.graph(c, seeds, None)[0])
    monkeypatch.setattr(Q.R, "HUB_DEGREE", 0)  # no damping
    plain = dict(Q.R.graph(c, seeds, None)[0])
    assert damped["Features.md"] == pytest.approx(plain["Features.md"] * factor)
    assert damped["Widgets.md"] > damped["Features.md"]  # both one link away, the hub spreads less
    assert plain["Widgets.md"] == pytest.approx(plain["Features.md"])
    c.close()


def test_cand_and_match_behave_as_the_dataclasses_they_replaced():
    """retrieve.Cand and project.Match are plain classes (importing dataclasses cost a hook ~10% of its
    instructions): the same fields and defaults, fresh containers per object, equality and repr."""
    from memory_plugin.index.project import Match

    a, b = Q.R.Cand("n.md"), Q.R.Cand("n.md")
    assert a == b and a is not b and a.ranks is not b.ranks and a.why == {} and a.raw == {}
    assert (a.fused, a.score, a.mine, a.demoted) == (0.0, 0.0, False, False)
    b.ranks["lexical"] = 1
    assert a != b and a.ranks == {}
    assert Q.R.Cand("p", fused=1.0) == Q.R.Cand("p", {}, {}, {}, 1.0)
    assert repr(Q.R.Cand("p")) == ("Cand(path='p', ranks={}, raw={}, why={}, fused=0.0, score=0.0, mine=False, "
                                  "demoted=False)")
    m = Match(tried=["x"])
    assert m == Match(None, "", [], ["x"]) and m != Match() and m.ambiguous == [] and Match().tried is not Match().tried
    assert repr(Match()) == "Match(project=None, via='', ambiguous=[], tried=[], own=[])"
    import pytest as _pytest

    with _pytest.raises(TypeError):
        hash(a)
