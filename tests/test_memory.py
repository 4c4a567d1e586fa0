"""remember, supersede, contradicts, validate, retract: what they write, and what they never touch."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import hash_tree, run_cli
from memory_plugin.vault import propedit


@pytest.fixture
def built(vault):
    r = run_cli("--vault", str(vault), "rebuild")
    assert r.returncode == 0, r.stderr
    return vault


def mp(vault, *args, **kw):
    return run_cli("--vault", str(vault), *args, **kw)


def remember(vault, *args, **kw):
    return mp(vault, "remember", *args, **kw)


def test_remember_writes_typed_note_with_links_and_is_found_at_once(built):
    r = remember(built, "--type", "pitfall", "--title", "Retries without idempotency keys duplicate jobs",
                 "--summary", "Retrying POST /jobs without an idempotency key created duplicate jobs.",
                 "--tag", "atlas", "--link", "Atlas", "--project", "atlas",
                 "--body", "Seen when the WAL fsync was slow.", "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    path = built / res["path"]
    assert res["path"] == "Pitfalls/Retries without idempotency keys duplicate jobs.md"
    text = path.read_text()
    import yaml
    props = yaml.safe_load(text.split("---")[1])
    assert props["type"] == "pitfall" and props["project"] == "atlas"
    assert set(props) >= {"type", "tags", "summary", "created", "confidence", "last_validated", "status"}
    assert props["tags"] == ["pitfall", "atlas"] and props["related"] == ["[[Atlas]]"]
    assert "[[Idempotency]]" in text and "[[Write-ahead logging|WAL]]" in text
    found = json.loads(mp(built, "query", "duplicate jobs retries", "--json").stdout)
    assert found["items"][0]["path"] == res["path"]
    back = json.loads(mp(built, "backlinks", "Idempotency", "--json").stdout)
    assert any(b["src"] == res["path"] for b in back["backlinks"])


def test_remember_refuses_near_duplicate_then_merge_or_force(built):
    before = hash_tree(built)
    r = remember(built, "--type", "decision", "--title", "Use Postgres SKIP LOCKED for the job queue",
                 "--summary", "Claim jobs with SKIP LOCKED.")
    assert r.returncode == 2 and "near-duplicate" in r.stderr
    assert "Use Postgres SKIP LOCKED for job queue.md" in r.stderr and r.stderr.count("\n") == 1
    assert hash_tree(built) == before
    target = built / "Projects/atlas/decisions/Use Postgres SKIP LOCKED for job queue.md"
    old = target.read_bytes()
    r = remember(built, "--type", "decision", "--title", "SKIP LOCKED batch size", "--summary",
                 "Claim 10 jobs at a time.", "--merge", "Use Postgres SKIP LOCKED for job queue")
    assert r.returncode == 0, r.stderr
    new = target.read_bytes()
    assert new.startswith(old) and b"SKIP LOCKED batch size" in new[len(old):]
    r = remember(built, "--type", "decision", "--title", "Use Postgres SKIP LOCKED for the job queue",
                 "--summary", "Claim jobs with SKIP LOCKED.", "--force")
    assert r.returncode == 0 and (built / "Decisions/Use Postgres SKIP LOCKED for the job queue.md").exists()


def test_same_title_twice_is_refused(built):
    args = ["--type", "learning", "--title", "Zebra stripes confuse flies", "--summary", "Stripes deter horseflies."]
    assert remember(built, *args).returncode == 0
    r = remember(built, *args)
    assert r.returncode == 2 and ("already exists" in r.stderr or "near-duplicate" in r.stderr)


@pytest.mark.parametrize("title", ["../x", "../../etc/evil", "/etc/passwd", "a/b", "C:\\x", "~/x", ".hidden",
                                   "CON", "nul", "..", "   "])
def test_titles_that_escape_or_are_reserved(built, title):
    before = hash_tree(built)
    r = remember(built, "--type", "note", "--title", title, "--summary", "s")
    assert r.returncode == 2 and r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1
    assert hash_tree(built) == before


def test_odd_characters_become_a_safe_file_name(built):
    r = remember(built, "--type", "note", "--title", 'Why: "quotes" & #hash? [x]', "--summary", "s", "--json")
    assert r.returncode == 0, r.stderr
    p = json.loads(r.stdout)["path"]
    assert p.startswith("Inbox/") and not any(ch in p for ch in '":#?[]')
    assert 'title: "Why: \\"quotes\\" & #hash? [x]"' in (built / p).read_text()


def test_control_characters_never_reach_the_note(built):
    """C0, DEL and C1 characters: a space in the title, summary and project, dropped from tags."""
    r = remember(built, "--type", "note", "--title", "a\x01b\x7fc\x85d\te", "--summary", "one\x1btwo\x9f",
                 "--tag", "x\x02y", "--project", "p\x03q", "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    text = (built / res["path"]).read_text(encoding="utf-8")
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", text), repr(text)
    assert res["title"] == "a b c d e" and "\n# a b c d e\n" in text
    props = yaml.safe_load(text.split("---")[1])
    assert props["summary"] == "one two" and props["tags"] == ["xy"] and props["project"] == "p q"


@pytest.mark.parametrize("args, msg", [
    (["--type", "bogus", "--title", "t", "--summary", "s"], "unknown type"),
    (["--type", "note", "--title", "t", "--summary", "  "], "empty summary"),
    (["--type", "note", "--title", "t", "--summary", "s", "--link", "No such note at all"], "no note called"),
    (["--type", "note", "--title", "t", "--summary", "s", "--tag", "two words"], "not a valid tag"),
])
def test_bad_remember_input(built, args, msg):
    before = hash_tree(built)
    r = remember(built, *args)
    assert r.returncode == 2 and msg in r.stderr and r.stderr.count("\n") == 1
    assert hash_tree(built) == before


def test_body_file_not_utf8_and_stdin(built, tmp_path):
    bad = tmp_path / "body.txt"
    bad.write_bytes(b"caf\xe9 latin-1")
    before = hash_tree(built)
    r = remember(built, "--type", "note", "--title", "Latin body", "--summary", "s", "--body-file", str(bad))
    assert r.returncode == 2 and "not UTF-8" in r.stderr and hash_tree(built) == before
    r = remember(built, "--type", "note", "--title", "Piped body", "--summary", "s", "--body-file", "-",
                 input="from stdin ✓\n")
    assert r.returncode == 0 and "from stdin ✓" in (built / "Inbox/Piped body.md").read_text()


def test_two_remember_processes_at_once_both_land_intact(built):
    exe = Path(sys.executable).parent / "memory-plugin"
    procs = []
    for i in range(4):
        procs.append(subprocess.Popen(
            [str(exe), "--vault", str(built), "remember", "--type", "learning", "--title", f"Parallel lesson {i} {'xyz'[i % 3]}",
             "--summary", f"Lesson number {i} about {['otters', 'kites', 'glaciers', 'violins'][i]}.", "--force"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    for i in range(4):
        text = (built / f"Learnings/Parallel lesson {i} {'xyz'[i % 3]}.md").read_text()
        assert text.count("---\n") == 2 and f"Lesson number {i}" in text and text.endswith("\n")
    out = json.loads(mp(built, "search", "Parallel lesson", "--json").stdout)
    assert len({h["path"] for h in out["hits"]}) == 4


def test_two_same_title_processes_never_interleave(built):
    exe = Path(sys.executable).parent / "memory-plugin"
    cmd = [str(exe), "--vault", str(built), "remember", "--type", "pattern", "--title", "Racing pattern",
           "--summary", "Only one of us may win."]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    codes = [p.wait(timeout=60) for p in procs]
    assert sorted(codes) == [0, 2, 2]
    assert (built / "Patterns/Racing pattern.md").read_text().count("Only one of us may win.") == 2  # summary + body


def test_supersede_changes_only_properties(built):
    old = built / "Decisions/Pin dependencies with uv lock.md"
    before = old.read_text()
    args = ["--type", "decision", "--title", "Pin dependencies with pip-tools",
            "--summary", "Applications compile requirements.txt with pip-compile."]
    before_tree = hash_tree(built)
    # --dry-run previews every file it would change: the new note and the superseded one
    r = remember(built, *args, "--supersedes", "Pin dependencies with uv lock", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "would write Decisions/Pin dependencies with pip-tools.md" in r.stdout
    assert 'supersedes: "[[Pin dependencies with uv lock]]"' in r.stdout
    assert "would change Decisions/Pin dependencies with uv lock.md" in r.stdout and "+status: superseded" in r.stdout
    assert hash_tree(built) == before_tree
    r = remember(built, *args, "--supersedes", "Pin dependencies with uv lock")
    assert r.returncode == 0, r.stderr
    assert "status: superseded" in r.stdout and "+valid_to:" in r.stdout
    after = old.read_text()
    body_before, body_after = before.split("---\n", 2)[2], after.split("---\n", 2)[2]
    assert body_before == body_after
    lines_before = before.split("---\n")[1].splitlines()
    lines_after = after.split("---\n")[1].splitlines()
    assert [l for l in lines_before if not l.startswith("status:")] == \
        [l for l in lines_after if not l.startswith(("status:", "valid_to:", "superseded_by:"))]
    new = (built / "Decisions/Pin dependencies with pip-tools.md").read_text()
    assert 'supersedes: "[[Pin dependencies with uv lock]]"' in new
    items = json.loads(mp(built, "query", "pin dependencies", "--json").stdout)["items"]
    paths = [i["path"] for i in items]
    assert paths.index("Decisions/Pin dependencies with pip-tools.md") < paths.index(
        "Decisions/Pin dependencies with uv lock.md")


def test_validate_retract_contradicts(built):
    conv = built / "Conventions/Snake case module names.md"
    r = mp(built, "validate", "Snake case module names", "--json")
    res = json.loads(r.stdout)[0]
    assert res["changed"]["confidence"] == "0.9"
    assert "last_validated:" in conv.read_text()
    r = mp(built, "retract", "Snake case module names")
    assert r.returncode == 0 and "status: retracted" in conv.read_text()
    r = mp(built, "validate", "Snake case module names")
    assert r.returncode == 2 and "retracted" in r.stderr
    r = mp(built, "contradicts", "Use Typer for CLI parsing", "Config in TOML not YAML")
    assert r.returncode == 0
    assert 'contradicts: ["[[Config in TOML not YAML]]"]' in \
        (built / "Projects/beacon/decisions/Use Typer for CLI parsing.md").read_text()
    props = json.loads(mp(built, "reorganize", "--json").stdout)["proposals"]
    assert any(p["kind"] == "contradiction" for p in props)


def test_dry_run_writes_nothing(built):
    before = hash_tree(built)
    for args in (["supersede", "Use Redis for job queue", "Use Postgres SKIP LOCKED for job queue", "--dry-run"],
                 ["validate", "Idempotency", "--dry-run"], ["retract", "Idempotency", "--dry-run"],
                 ["remember", "--type", "note", "--title", "Dry", "--summary", "s", "--dry-run"]):
        r = mp(built, *args)
        assert r.returncode == 0, r.stderr
    assert hash_tree(built) == before


def test_unknown_note_for_edits(built):
    before = hash_tree(built)
    for args in (["supersede", "Nope nope", "Idempotency"], ["validate", "Nope nope"], ["retract", "Nope nope"],
                 ["contradicts", "Idempotency", "Nope nope"], ["supersede", "Idempotency", "Idempotency"]):
        r = mp(built, *args)
        assert r.returncode == 2 and r.stderr.startswith("Error: ") and r.stderr.count("\n") == 1
    assert hash_tree(built) == before


# ---------------------------------------------------------------- property editing, byte for byte

def test_set_props_keeps_everything_else():
    text = "\ufeff---\r\ntitle: x\r\ntags:\r\n  - a\r\n  - b\r\nstatus: open # why\r\nn: 010\r\n---\r\nbody\r\n\r\n    code\r\n"
    new = propedit.set_props(text, [("status", "superseded"), ("tags", ["a", "b", "c"]), ("valid_to", "2026-11-30")])
    assert new.startswith("\ufeff---\r\n")
    assert new == ("\ufeff---\r\ntitle: x\r\ntags: [a, b, c]\r\nstatus: superseded\r\nn: 010\r\n"
                   "valid_to: \"2026-11-30\"\r\n---\r\nbody\r\n\r\n    code\r\n")


def test_set_props_without_frontmatter_adds_one():
    assert propedit.set_props("# T\n", [("status", "stale")]) == "---\nstatus: stale\n---\n# T\n"


# ---------------------------------------------------------------- the vault's own style

@pytest.fixture
def devvault(tmp_path):
    """A developer-style vault: lowercase type folders, a project hub linked from `project`."""
    v = tmp_path / "dev"
    for d in ("decisions", "pitfalls", "learning", "hubs"):
        (v / d).mkdir(parents=True)
    (v / "hubs/Tollgate.md").write_text("---\ntype: hub\naliases: [tollgate-api]\n---\n# Tollgate\n\n"
                                        "The payments gateway.\n", encoding="utf-8")
    (v / "decisions/Use idempotency keys on charges.md").write_text(
        '---\ntype: decision\nproject: "[[Tollgate]]"\n---\nEvery POST /charges carries an Idempotency-Key.\n',
        encoding="utf-8")
    (v / "pitfalls/Webhook signatures use the raw body.md").write_text(
        '---\ntype: pitfall\nproject: "[[Tollgate]]"\n---\nVerify the HMAC over the raw bytes, not parsed JSON.\n',
        encoding="utf-8")
    r = run_cli("--vault", str(v), "rebuild")
    assert r.returncode == 0, r.stderr
    return v


@pytest.mark.parametrize("type_, folder", [("decision", "decisions"), ("pitfall", "pitfalls"),
                                           ("learning", "learning"), ("pattern", "Patterns")])
def test_remember_uses_the_vaults_existing_folder_for_its_type(devvault, type_, folder):
    r = remember(devvault, "--type", type_, "--title", f"Ledger rounding {type_}", "--summary",
                 "Round half to even on ledger entries, never in the UI.", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["path"] == f"{folder}/Ledger rounding {type_}.md"
    tops = sorted(p.name for p in devvault.iterdir() if p.is_dir())
    assert len({t.lower() for t in tops}) == len(tops), tops  # never Decisions/ beside decisions/


@pytest.mark.parametrize("given", ["tollgate", "Tollgate", "tollgate-api"])
def test_remember_links_the_project_hub_when_the_vault_does(devvault, given):
    r = remember(devvault, "--type", "decision", "--title", "Nightly payout settlement", "--summary",
                 "Payouts settle once a night at 02:00 UTC in one batch file.", "--project", given, "--json")
    assert r.returncode == 0, r.stderr
    text = (devvault / json.loads(r.stdout)["path"]).read_text(encoding="utf-8")
    assert 'project: "[[Tollgate]]"' in text
    back = json.loads(mp(devvault, "backlinks", "Tollgate", "--json").stdout)
    assert "decisions/Nightly payout settlement.md" in [b["src"] for b in back["backlinks"]]


def test_remember_writes_project_as_plain_text_where_the_vault_does(built):
    r = remember(built, "--type", "decision", "--title", "Atlas workers drain on SIGTERM", "--summary",
                 "Workers finish their claimed job before exiting on SIGTERM.", "--project", "atlas", "--json")
    assert r.returncode == 0, r.stderr
    assert "\nproject: atlas\n" in (built / json.loads(r.stdout)["path"]).read_text(encoding="utf-8")


def test_validate_raises_confidence_once_a_day(built):
    conv = built / "Conventions/Snake case module names.md"
    first = json.loads(mp(built, "validate", "Snake case module names", "--json").stdout)[0]
    assert first["changed"]["confidence"] == "0.9"
    text = conv.read_text()
    second = json.loads(mp(built, "validate", "Snake case module names", "--json").stdout)[0]
    assert conv.read_text() == text and not second["diff"], second


def test_same_name_finds_every_spelling_of_a_file_name(tmp_path):
    """Up to case and Unicode form, by the index's lowercased names for an ASCII name and by every
    name otherwise: `STRASSE.md` and `Straße.md` are `strasse`; `Café.md` in either form is `café`."""
    from conftest import write_file
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index, rebuild
    from memory_plugin.memory.write import same_name

    v = tmp_path / "v"
    for rel in ("A/STRASSE.md", "B/Straße.md", "C/strasse notes.md", "Café.md", "D/Cafe\u0301.md", "E/cafe.md"):
        write_file(v, rel, "Text.\n")
    cfg = load_config(vault=v, cache_dir=tmp_path / "cache")
    rebuild(cfg)
    conn = open_index(cfg)
    try:
        assert same_name(conn, "strasse") == ["A/STRASSE.md", "B/Straße.md"]
        assert same_name(conn, "CAFÉ") == ["Café.md", "D/Cafe\u0301.md"]
        assert same_name(conn, "cafe") == ["E/cafe.md"]
    finally:
        conn.close()


def test_a_forced_note_takes_the_first_number_no_spelling_of_holds(tmp_path):
    """`remember --force` under a taken name numbers it: past the numbered names the index holds in
    any folder and spelling (`STRASSE 2`, `Straße 3`), and past a file of its folder not indexed yet."""
    from conftest import run_cli, write_file

    v = tmp_path / "v"
    for rel in ("Strasse.md", "X/STRASSE 2.md", "Y/Straße 3.md", "Z/Strasse 4.txt", "Z/Strasse 10.md"):
        write_file(v, rel, "Text.\n")
    cache = tmp_path / "cache"
    assert run_cli("--vault", str(v), "--cache-dir", str(cache), "rebuild").returncode == 0
    write_file(v, "Inbox/strasse 4.md", "Not indexed yet.\n")  # the folder a plain vault's note goes to
    r = run_cli("--vault", str(v), "--cache-dir", str(cache), "remember", "--type", "note", "--title", "Strasse",
                "--summary", "Streets of the old town.", "--force", "--no-project", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["path"] == "Inbox/Strasse 5.md"
