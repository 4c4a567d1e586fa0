"""The duplicate judge: what notes say decides, not the shape of their titles (issue 12)."""
import json
import unicodedata

import pytest

from conftest import hash_tree, run_cli

ORCHID = """---
type: learning
summary: Water orchids only when the bark is dry; standing water rots the roots.
tags: [learning, plants]
---
# Orchid lesson

Phalaenopsis in bark mix: soak the pot for ten minutes once a week, let it drain fully, and never
leave the pot standing in a saucer of water. Yellow leaves at the base mean overwatering.
"""

WEBHOOK = """---
type: pitfall
project: tollgate
summary: After a Tollgate outage every merchant's queued webhook deliveries are retried at once and the retries overwhelm the merchants' endpoints.
tags: [pitfall, webhooks]
status: open
---
# Webhook retry storms

When the delivery workers came back after the 40-minute outage on 2026-10-14, all queued webhook
events were retried immediately, with no jitter. Merchants' servers received thousands of requests
in a minute, answered 503, and each failed delivery was queued for another retry, so the storm fed
itself. Fix: exponential backoff with full jitter per merchant, and at most 4 concurrent deliveries
per merchant.
"""

ARCH_ATLAS = """---
type: architecture
project: atlas
tags: [architecture]
---
# Architecture

Atlas is a Go API in front of a Postgres job table; Python workers claim jobs with SKIP LOCKED and
report progress over gRPC. Deployments are blue-green behind the load balancer.
"""

ARCH_BEACON = """---
type: architecture
project: beacon
tags: [architecture]
---
# Architecture

Beacon is a single-binary command line tool: a Typer front end, a TOML config loader and a plugin
registry discovered from entry points. Nothing runs as a service.
"""


@pytest.fixture
def built(vault):
    (vault / "Learnings/Orchid lesson.md").write_text(ORCHID, encoding="utf-8")
    (vault / "Projects/tollgate/pitfalls").mkdir(parents=True)
    (vault / "Projects/tollgate/pitfalls/Webhook retry storms.md").write_text(WEBHOOK, encoding="utf-8")
    (vault / "Projects/atlas/Architecture.md").write_text(ARCH_ATLAS, encoding="utf-8")
    (vault / "Projects/beacon/Architecture.md").write_text(ARCH_BEACON, encoding="utf-8")
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    return vault


def remember(vault, *args):
    return run_cli("--vault", str(vault), "remember", *args, "--json")


def test_chess_lesson_is_not_a_duplicate_of_orchid_lesson(built):
    r = remember(built, "--type", "learning", "--title", "Chess lesson",
                 "--summary", "In rook endgames put the rook behind the passed pawn.",
                 "--body", "Tarrasch's rule: rooks belong behind passed pawns, yours or the opponent's. "
                           "Cutting the king off along a file wins more endgames than checking from the front.")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["path"].endswith("Chess lesson.md")


@pytest.mark.parametrize("title, summary, body", [
    ("Retry storms", "TanStack Query retries failed queries three times by default, so a flaky API gets hammered "
                     "by every open tab.",
     "Each mounted useQuery retries on its own timer; with twenty components on one page a failing endpoint gets "
     "sixty requests. Set retry: 1 in the QueryClient defaults and show the error state instead."),
    ("Retry storm", "A Kafka consumer that fails a message and seeks back re-reads the same batch forever.",
     "The consumer catches the exception, does not commit the offset and polls again; the same poison message is "
     "consumed thousands of times a minute. Send it to a dead-letter topic after three attempts."),
])
def test_similar_titles_about_other_things_are_written(built, title, summary, body):
    r = remember(built, "--type", "pitfall", "--title", title, "--summary", summary, "--body", body)
    assert r.returncode == 0, r.stderr


def test_the_real_duplicate_in_other_words_is_refused_with_shared_passages(built):
    before = hash_tree(built)
    r = remember(built, "--type", "pitfall", "--project", "tollgate",
                 "--title", "Webhook retries storm merchants after an outage",
                 "--summary", "When Tollgate recovers from downtime, the backlog of webhook deliveries is resent "
                              "to merchants all at once and knocks their servers over.",
                 "--body", "Seen after the October 14 outage: the delivery queue drained with no delay between "
                           "attempts, merchants answered 503, and every failed delivery was queued to be retried "
                           "again. Spread retries with backoff and jitter, and cap concurrent deliveries per merchant.")
    assert r.returncode == 2, r.stdout
    assert "near-duplicate" in r.stderr and "Webhook retry storms.md" in r.stderr
    assert "shared:" in r.stderr and r.stderr.count("\n") == 1
    assert hash_tree(built) == before


def test_two_architecture_notes_in_two_projects_are_not_duplicates(built):
    r = run_cli("--vault", str(built), "reorganize", "--json")
    assert r.returncode == 0, r.stderr
    dups = [p["notes"] for p in json.loads(r.stdout)["proposals"] if p["kind"] == "duplicate"]
    assert not any(all(n.endswith("Architecture.md") for n in pair) for pair in dups), dups


def test_reorganize_finds_a_reworded_duplicate_and_says_why(built):
    (built / "Projects/tollgate/pitfalls/Retries flood merchants after downtime.md").write_text(
        "---\ntype: pitfall\nproject: tollgate\nsummary: Once Tollgate is back from an outage, queued webhook "
        "deliveries to merchants are all retried immediately and take their endpoints down.\n---\n"
        "After the October incident the workers resent every queued webhook event with no jitter; merchants "
        "answered 503 and each failed delivery was queued for another retry. Use backoff with jitter per "
        "merchant and cap concurrent deliveries.\n", encoding="utf-8")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    props = json.loads(run_cli("--vault", str(built), "reorganize", "--json").stdout)["proposals"]
    dup = [p for p in props if p["kind"] == "duplicate"]
    pair = {"Projects/tollgate/pitfalls/Retries flood merchants after downtime.md",
            "Projects/tollgate/pitfalls/Webhook retry storms.md"}
    hit = next(p for p in dup if set(p["notes"]) == pair)
    assert any(r.startswith("shared:") for r in hit["reasons"]), hit


def test_same_text_in_two_projects_is_a_duplicate_other_text_is_not(built):
    same = ARCH_ATLAS.replace("project: atlas", "project: beacon")
    (built / "Inbox/Architecture copy.md").write_text(same, encoding="utf-8")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    props = json.loads(run_cli("--vault", str(built), "reorganize", "--json").stdout)["proposals"]
    pairs = [set(p["notes"]) for p in props if p["kind"] == "duplicate"]
    assert {"Inbox/Architecture copy.md", "Projects/atlas/Architecture.md"} in pairs


@pytest.mark.parametrize("title", ["use sqlite FOR local state", "USE SQLITE FOR LOCAL STATE"])
def test_a_title_differing_only_in_case_is_that_note(built, title):
    before = hash_tree(built)
    r = remember(built, "--type", "decision", "--title", title, "--summary", "Llamas graze on the high plateau.")
    assert r.returncode == 2 and "Decisions/Use SQLite for local state.md" in r.stderr, r.stdout + r.stderr
    assert "--merge" in r.stderr
    assert hash_tree(built) == before


def test_a_title_differing_only_in_unicode_form_is_that_note(built):
    before = hash_tree(built)
    nfd = unicodedata.normalize("NFD", "CAFÉ au lait rule")
    r = remember(built, "--type", "note", "--title", nfd, "--summary", "Llamas graze on the high plateau.")
    assert r.returncode == 2 and "Café au lait rule.md" in r.stderr, r.stdout + r.stderr
    assert hash_tree(built) == before
    # --force never makes a second file Obsidian would confuse with the first one
    r = remember(built, "--type", "note", "--title", nfd, "--summary", "Llamas graze on the high plateau.", "--force")
    assert r.returncode == 0, r.stderr
    path = json.loads(r.stdout)["path"]
    name = unicodedata.normalize("NFC", path.rsplit("/", 1)[-1]).casefold()
    assert name != "café au lait rule.md"


def test_merge_into_the_unicode_variant(built):
    nfd = unicodedata.normalize("NFD", "CAFÉ au lait rule")
    r = remember(built, "--type", "note", "--title", nfd, "--summary", "Applies to docs PRs too.", "--merge", nfd)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["path"] == "Concepts/Café au lait rule.md"


def test_merge_into_the_case_variant(built):
    r = remember(built, "--type", "decision", "--title", "use sqlite for local state",
                 "--summary", "WAL mode is on.", "--merge", "use sqlite FOR local state")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["path"] == "Decisions/Use SQLite for local state.md"


def test_judge_unit_generic_words_count_for_little():
    from memory_plugin.memory import dupes

    idf = dupes.Idf({"lesson": 40, "notes": 60, "rook": 1, "orchid": 1}, 100)
    a = dupes.Doc("Chess lesson", "learning", None, "Rooks go behind passed pawns.", "")
    b = dupes.Doc("Orchid lesson", "learning", None, "Water orchids when the bark is dry.", "")
    v = dupes.judge(a, b, idf)
    assert not v.duplicate and v.score < 0.2
    body = "Tarrasch's rule: rooks belong behind passed pawns, yours or the opponent's; cut the king off on a file."
    a2 = dupes.Doc("Chess lesson", "learning", None, "Rooks go behind passed pawns.", body)
    c = dupes.Doc("Chess endgame lesson", "learning", None, "Rooks go behind passed pawns in endgames.", body)
    assert dupes.judge(a2, c, idf).duplicate


# ---------------------------------------------------------------- semantic mode (the real model)

SIGTERM = """---
type: pitfall
project: tollgate
summary: Kubernetes gives a pod 30 seconds after SIGTERM; a delivery worker that ignores it is killed mid-delivery.
tags: [pitfall]
---
# SIGTERM kills deliveries

The delivery worker must stop pulling from the queue on SIGTERM, finish or hand back the delivery in
flight, and exit before the grace period ends.
"""

RESTATED = dict(title="Graceful SIGTERM handling in the sender",
                summary="Kubernetes signals SIGTERM and waits thirty seconds before killing the pod, so the sender "
                        "stops consuming, completes or returns its in-progress message and exits.")


@pytest.fixture
def sem_built(vault, semantic_vault_env):
    (vault / "Projects/tollgate/pitfalls").mkdir(parents=True)
    (vault / "Projects/tollgate/pitfalls/SIGTERM kills deliveries.md").write_text(SIGTERM, encoding="utf-8")
    (vault / "Learnings/Orchid lesson.md").write_text(ORCHID, encoding="utf-8")
    (vault / "Projects/atlas/Architecture.md").write_text(ARCH_ATLAS, encoding="utf-8")
    (vault / "Projects/beacon/Architecture.md").write_text(ARCH_BEACON, encoding="utf-8")
    r = run_cli("rebuild", env=semantic_vault_env)
    assert r.returncode == 0 and "0 chunks embedded" not in r.stdout, r.stdout + r.stderr
    return vault, semantic_vault_env


def _remember(env, *args):
    return run_cli("remember", *args, "--json", env=env)


def test_lexical_judge_refuses_the_restatement_naming_the_shared_words(sem_built):
    """A restatement under another title: the text decides (TEXT_THRESHOLD), and with no passage in
    common the refusal names the words that weigh most in both."""
    vault, env = sem_built
    r = _remember({**env, "MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}, "--type", "pitfall", "--project", "tollgate",
                  "--title", RESTATED["title"], "--summary", RESTATED["summary"], "--dry-run")
    assert r.returncode == 2 and "SIGTERM kills deliveries.md" in r.stderr, r.stderr
    assert "shared words: " in r.stderr and "sigterm" in r.stderr.lower() and "meaning" not in r.stderr, r.stderr
    r = _remember({**env, "MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}, "--type", "pitfall", "--project", "tollgate",
                  "--title", RESTATED["title"], "--summary", RESTATED["summary"], "--dry-run", "--force")
    assert json.loads(r.stdout)["duplicate_judge"] == "lexical"


def test_semantic_mode_refuses_a_restatement_and_quotes_the_closest_passages(sem_built):
    vault, env = sem_built
    before = hash_tree(vault)
    r = _remember(env, "--type", "pitfall", "--project", "tollgate",
                  "--title", RESTATED["title"], "--summary", RESTATED["summary"])
    assert r.returncode == 2, r.stdout
    assert "near-duplicate" in r.stderr and "SIGTERM kills deliveries.md" in r.stderr, r.stderr
    assert "meaning 0." in r.stderr and "closest: “" in r.stderr and " ~ “" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    assert hash_tree(vault) == before


def test_semantic_mode_still_writes_what_only_looks_alike(sem_built):
    vault, env = sem_built
    r = _remember(env, "--type", "learning", "--title", "Chess lesson",
                  "--summary", "In rook endgames put the rook behind the passed pawn.", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["duplicate_judge"] == "semantic"
    r = _remember(env, "--type", "pitfall", "--project", "beacon", "--title", RESTATED["title"],
                  "--summary", RESTATED["summary"], "--dry-run")
    assert r.returncode == 0, r.stderr  # the same meaning in another project is not enough
    r = run_cli("reorganize", "--json", env=env)
    assert r.returncode == 0, r.stderr
    dups = [p["notes"] for p in json.loads(r.stdout)["proposals"] if p["kind"] == "duplicate"]
    assert not any(all(n.endswith("Architecture.md") for n in pair) for pair in dups), dups


def test_semantic_mode_reorganize_pairs_a_restatement_by_meaning(sem_built, monkeypatch):
    """reorganize goes through the same rule (`dupes.combine`) at the vault's own operating point
    (SEM_THRESHOLD_VAULT); here at the new-memory one, to show a pair the words miss is found by
    meaning and explained by its closest passages."""
    import sqlite3

    from memory_plugin.memory import dupes
    from memory_plugin.memory import reorganize as R
    from memory_plugin.core.config import load_config

    vault, env = sem_built
    (vault / "Projects/tollgate/pitfalls/Graceful SIGTERM handling in the sender.md").write_text(
        f"---\ntype: pitfall\nproject: tollgate\nsummary: {RESTATED['summary']}\n---\n"
        f"# {RESTATED['title']}\n", encoding="utf-8")
    assert run_cli("rebuild", env=env).returncode == 0
    cfg = load_config(vault=vault)
    conn = sqlite3.connect(cfg.path("index.sqlite"))
    rows = R._rows(conn, R.NOTES_SQL)
    pair = {"Projects/tollgate/pitfalls/Graceful SIGTERM handling in the sender.md",
            "Projects/tollgate/pitfalls/SIGTERM kills deliveries.md"}
    assert not [p for p in R._duplicates(rows, None, conn) if set(p["notes"]) == pair]  # words alone: no
    monkeypatch.setattr(dupes, "SEM_THRESHOLD_VAULT", dupes.SEM_THRESHOLD)
    hit = next(p for p in R._duplicates(rows, cfg, conn) if set(p["notes"]) == pair)
    assert hit["by"] == "meaning" and any(r.startswith("closest: “") for r in hit["reasons"]), hit
    conn.close()


def test_semantic_mode_without_current_vectors_judges_lexically(sem_built):
    """A note changed since it was embedded has no current vector: the lexical judge alone decides
    for it, and the answer says which judge ran."""
    vault, env = sem_built
    note = vault / "Projects/tollgate/pitfalls/SIGTERM kills deliveries.md"
    note.write_text(SIGTERM.replace("30 seconds", "thirty seconds"), encoding="utf-8")
    assert run_cli("sync", env={**env, "MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}).returncode == 0
    r = _remember(env, "--type", "pitfall", "--project", "tollgate",
                  "--title", RESTATED["title"], "--summary", RESTATED["summary"], "--dry-run", "--force")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # the words (text overlap >= TEXT_THRESHOLD) decide for that note, not its stale vector
    assert out["duplicate_judge"] == "semantic", out
    hit = [d for d in out["overrode_duplicates"] if d["path"].endswith("SIGTERM kills deliveries.md")]
    assert hit and hit[0]["by"] == "text" and not any(x.startswith("meaning") for x in hit[0]["reasons"]), out


def test_a_pair_the_vault_already_relates_is_no_duplicate_proposal(built):
    """A decision and the one that superseded it say nearly the same thing, on purpose: the user has
    recorded how they relate, so reorganize does not propose merging them."""
    text = ("---\ntype: decision\nproject: tollgate\nsummary: Tollgate draws its latency charts with {lib}, "
            "one chart per partner.\n{extra}---\nThe latency dashboard draws one chart per partner with {lib}: "
            "p50, p95 and p99 per minute over the last day.\n")
    (built / "Decisions/Latency charts with Recharts.md").write_text(text.format(lib="Recharts", extra=""))
    (built / "Decisions/Latency charts with visx.md").write_text(
        text.format(lib="visx", extra='supersedes: "[[Latency charts with Recharts]]"\n'))
    assert run_cli("--vault", str(built), "sync").returncode == 0
    pair = {"Decisions/Latency charts with Recharts.md", "Decisions/Latency charts with visx.md"}

    def proposed():
        props = json.loads(run_cli("--vault", str(built), "reorganize", "--json").stdout)["proposals"]
        return [p for p in props if p["kind"] == "duplicate" and set(p["notes"]) == pair]

    assert not proposed()
    note = built / "Decisions/Latency charts with visx.md"  # without the relation they are proposed
    note.write_text(note.read_text().replace('supersedes: "[[Latency charts with Recharts]]"\n', ""))
    assert run_cli("--vault", str(built), "sync").returncode == 0
    assert proposed()


# ---------------------------------------------------------------- text decides a new memory,
# a successor is no duplicate, semantic mode combines words and meaning

HMAC = ("---\ntype: decision\nproject: tollgate\nsummary: Outgoing webhooks carry an HMAC-SHA256 signature "
        "header over timestamp and body; partners verify it with their shared secret.\n---\n"
        "# Webhook signing with HMAC\n\nEvery webhook request has a signature header: HMAC-SHA256 over the "
        "timestamp and the raw body, keyed with the partner's shared secret. Partners reject requests older "
        "than five minutes.\n")


def _idf():
    from memory_plugin.memory import dupes

    return dupes.Idf({}, 100)


def test_supersession_unit_a_decision_rejecting_what_the_note_affirms_is_its_successor():
    from memory_plugin.memory import dupes

    old = dupes.Doc("Webhook signing with HMAC", "decision", "tollgate",
                    "Outgoing webhooks carry an HMAC-SHA256 signature header; partners verify it with a shared secret.",
                    "Every webhook request is signed with HMAC-SHA256 over timestamp and body.")
    new = dupes.Doc("Webhooks are signed with Ed25519 instead of HMAC", "decision", "tollgate",
                    "Partners verify our webhook signature header with our public Ed25519 key; no shared secret.", "")
    v = dupes.judge(new, old, _idf(), newer=True)
    assert not v.duplicate and v.successor == "HMAC" and v.reasons[0].startswith("replaces it:"), v
    # another project, another type, or two notes of the vault: not read as a successor
    assert dupes.supersession(dupes.Doc(new.title, "decision", "beacon", new.summary), old) is None
    assert dupes.supersession(dupes.Doc(new.title, "learning", "tollgate", new.summary), old) is None
    assert dupes.judge(new, old, _idf()).successor is None
    # agreeing on what both reject is no change: "not in a global store" in both
    old2 = dupes.Doc("Server state in TanStack Query", "decision", "lighthouse",
                     "Server state lives in TanStack Query caches, not in a global store.", "")
    same = dupes.Doc("Fetched data belongs in the query cache", "decision", "lighthouse",
                     "Data from the API stays in the query cache, not in a global store.", "")
    assert dupes.supersession(same, old2) is None


def test_a_new_memory_is_judged_by_its_text_not_its_title():
    """A restatement under a title sharing no word with the note's is a duplicate (text alone,
    TEXT_THRESHOLD); the vault's stricter score (titles, conflicts) would let it through."""
    from memory_plugin.memory import dupes

    text = ("Each API key has a token bucket in Redis refilled by a Lua script; the Postgres counters "
            "could not keep up above two thousand requests per second.")
    old = dupes.Doc("Token buckets in Redis for rate limits", "decision", "tollgate", "", text)
    new = dupes.Doc("Per-key request throttling", "decision", "tollgate",
                    "Every API key gets a bucket in Redis topped up by a Lua script, because the Postgres "
                    "counters could not keep up beyond two thousand requests per second.", "")
    v = dupes.judge(new, old, _idf(), newer=True)
    assert v.duplicate and v.text >= dupes.TEXT_THRESHOLD, v
    far = dupes.Doc("Token buckets in Redis for rate limits", "decision", "tollgate",
                    "Rook endgames: the rook belongs behind the passed pawn, whoever owns the pawn.", "")
    assert not dupes.judge(far, old, _idf(), newer=True).duplicate  # the same title, other text


def test_semantic_combine_needs_words_and_meaning_together():
    from memory_plugin.memory import dupes

    def verdict(text):
        return dupes.Verdict(True, 0.6, text, 0.0, [f"text overlap {text:.2f}"])

    assert not dupes.combine(verdict(0.5), 0.2).duplicate            # words alike, meaning apart
    v = dupes.combine(verdict(0.5), 0.6)
    assert v.duplicate and v.by == "text" and "words and meaning" in v.reasons[1]
    v = dupes.combine(dupes.Verdict(False, 0.2, 0.3, 0.0, ["text overlap 0.30"]), 0.8)
    assert v.duplicate and v.by == "meaning"
    succ = dupes.Verdict(False, 0.2, 0.6, 0.0, ["x"], successor="HMAC")
    assert not dupes.combine(succ, 0.95).duplicate                   # a successor never by meaning
    same = dupes.Verdict(True, 1.0, 1.0, 1.0, ["identical content"])
    assert dupes.combine(same, 0.1).duplicate                         # identical content stays one


def test_remember_writes_a_successor_and_names_the_note_it_replaces(built):
    (built / "Projects/tollgate/decisions").mkdir(parents=True, exist_ok=True)
    (built / "Projects/tollgate/decisions/Webhook signing with HMAC.md").write_text(HMAC, encoding="utf-8")
    assert run_cli("--vault", str(built), "sync").returncode == 0
    r = remember(built, "--type", "decision", "--project", "tollgate",
                 "--title", "Webhooks are signed with Ed25519 instead of HMAC",
                 "--summary", "Partners verify the webhook signature header over timestamp and body with our "
                              "public Ed25519 key; the shared secret is gone.", "--dry-run")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [d["path"] for d in out["replaces"]] == ["Projects/tollgate/decisions/Webhook signing with HMAC.md"], out
    r = run_cli("--vault", str(built), "remember", "--type", "decision", "--project", "tollgate",
                "--title", "Webhooks are signed with Ed25519 instead of HMAC",
                "--summary", "Partners verify the webhook signature header with our public Ed25519 key.", "--dry-run")
    assert r.returncode == 0 and "replaces? Projects/tollgate/decisions/Webhook signing with HMAC.md" in r.stdout, r.stdout
    import shlex  # the printed command runs as printed (paths quoted for a shell)
    cmd = r.stdout.split("`memory-plugin supersede ", 1)[1].split("`", 1)[0]
    assert shlex.split(cmd) == ["Projects/tollgate/decisions/Webhook signing with HMAC.md",
                                "Decisions/Webhooks are signed with Ed25519 instead of HMAC.md"], cmd
    # the same decision restated is still refused, with the shared passages
    r = remember(built, "--type", "decision", "--project", "tollgate", "--title", "Partners check an HMAC on our callbacks",
                 "--summary", "Every webhook request has a signature header: HMAC-SHA256 over the timestamp and "
                              "the raw body, keyed with the partner's shared secret.")
    assert r.returncode == 2 and "Webhook signing with HMAC.md" in r.stderr and "shared: “" in r.stderr, r.stderr


def test_a_restatement_that_states_its_choice_is_no_successor(built):
    """A decision restated with a plain negation ("Typer, not argparse"), or copied with the old note's
    own "replaces", repeats it: refused, never written as its successor."""
    r = remember(built, "--type", "decision", "--project", "beacon", "--title", "Beacon's command line is built on Typer",
                 "--summary", "beacon's CLI is built with Typer, not argparse.", "--dry-run")
    assert r.returncode == 2 and "Use Typer for CLI parsing.md" in r.stderr, r.stdout + r.stderr
    r = remember(built, "--type", "decision", "--no-project", "--title", "Ruff for Python linting",
                 "--summary", "Ruff replaces flake8, isort and pyupgrade in all Python repositories.", "--dry-run")
    assert r.returncode == 2 and "Adopt ruff over flake8.md" in r.stderr, r.stdout + r.stderr
