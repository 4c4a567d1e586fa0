"""One definition of private, fail-closed, and nothing of a private note in any output: every
spelling of `private`, frontmatter that YAML cannot parse, private notes in communities and
ambiguous links, graph.json, and the journal for notes moved or deleted before SessionEnd."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from conftest import run_cli
from rel_helpers import count, has_command, run_bytes

# Each spelling a user might write; all of them are private (issue 9, privacy point 1).
SPELLINGS = {
    1: "Private: true\n",
    2: "Private: yes\n",
    3: "private: 1\n",
    4: 'private: "on"\n',
    5: 'title: "Unclosed quote\nprivate: true\n',           # YAML does not parse
    6: "type: convention\n\tprivate: true\n",                 # tab-indented key: YAML does not parse
    7: "'PRIVATE': 'True'   # keep it out\n",
    8: "private: !!bool YES\n",
    9: "private:   On\n",
    10: "private: y\n",
}
FOLDER = "Vaultkeep"           # the folder of the private notes: a marker no output may show
NIGHTFALL = "Operation Nightfall"


def _marks(i: int) -> tuple[str, ...]:
    return (f"Zqnote{i}", f"zqleak{i}", f"zqtag{i}", f"Zqdangle{i}")


def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _private_vault(vault: Path) -> list[str]:
    markers = [FOLDER, "nightfalltag", "Zqnfdangle", "Zqnfsecret"]
    for i, fm in SPELLINGS.items():
        note, leak, tag, dangle = _marks(i)
        _write(vault / FOLDER / f"{note}.md",
               f"---\n{fm}type: convention\nproject: atlas\nsummary: {leak} summary\ntags: [{tag}]\n---\n"
               f"# {note}\n{leak} body of the note. #{tag} #convention/{tag} [[{dangle}]] [[Home]]\n")
        markers += _marks(i)
    # a private note with many links (a community) and an ambiguous link of its own
    _write(vault / FOLDER / f"{NIGHTFALL}.md",
           "---\nprivate: true\ntags: [nightfalltag]\n---\n# Nightfall\nZqnfsecret. "
           + " ".join(f"[[Ops {c}]]" for c in "ABCDEF") + " [[Zqnfdangle]] [[Ledger]]\n")
    for c in "ABCDEF":
        others = " ".join(f"[[Ops {d}]]" for d in "ABCDEF" if d != c)
        _write(vault / "Ops" / f"Ops {c}.md", f"# Ops {c}\nPart of [[{NIGHTFALL}]]. {others}\n")
    # two notes called Ledger, one private: a public link resolves to the private one (ambiguous)
    _write(vault / FOLDER / "Ledger.md", "---\nprivate: true\n---\nZqnfsecret ledger\n")
    _write(vault / "Public archive" / "Ledger.md", "# Ledger\nThe public ledger.\n")
    _write(vault / "Money.md", "# Money\nSee [[Ledger]] and [[Ops A]].\n")
    return markers


def test_every_spelling_of_private_is_private():
    from memory_plugin.vault.privacy import says_private

    for i, fm in SPELLINGS.items():
        assert says_private(f"---\n{fm}type: note\n---\nbody\n"), (i, fm)
        assert says_private(f"\ufeff---\r\n{fm}---\r\n"), (i, fm)
    # unknown without YAML: private (fail closed); still open at the end of a head: private
    assert says_private("---\nprivate: *flag\n---\n")
    assert says_private("---\nprivate: |\n  true\n---\n")
    assert says_private("---\ntitle: x\n" + "a: b\n" * 10, complete=False)
    for public in ("---\nprivate: false\n---\n", "---\nprivate: no\n---\n", "---\nis_private: true\n---\n",
                   "---\nprivate_notes: yes\n---\n", "---\ntitle: x\n---\nprivate: true\n", "private: true\n",
                   "---\nprivate:\ntype: x\n---\n", "# x\n---\nprivate: true\n---\n"):
        assert not says_private(public), public
    # the parser and the hooks decide on the same first bytes of the file
    from memory_plugin.vault.privacy import HEAD_BYTES, head_says_private

    long_fm = ("---\n" + "k: v\n" * (HEAD_BYTES // 4) + "---\nbody\n").encode()
    assert head_says_private(long_fm, complete=True)  # still open at the end of the head: private
    assert not head_says_private(b"---\ntitle: x\n---\n" + b"private: true\n" * HEAD_BYTES, complete=True)
    count("operations", len(SPELLINGS) * 2 + 13)


def test_private_notes_leave_nothing_in_any_output(vault, cache_dir, tmp_path):
    markers = _private_vault(vault)
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    proj = tmp_path / "atlas"
    (proj / ".git").mkdir(parents=True)
    outputs: dict[str, str] = {}
    r = run_bytes("hook", "session-start", data=json.dumps({"cwd": str(proj), "source": "startup"}).encode(), env=env)
    outputs["SessionStart brief"] = r.stdout
    for f in ("brief.json", "brief-start.jsonl", "brief.md", "GRAPH_REPORT.md", "graph.html", "graph.json"):
        outputs[f] = (cache_dir / f).read_text(encoding="utf-8", errors="replace")
    commands = [["hubs", "--json"], ["conventions", "--json"], ["orphans", "--json"], ["dangling", "--json"],
                ["dangling"], ["explain", "Money"], ["explain", "Money", "--json"], ["explain", "Ops A", "--json"],
                ["backlinks", "Home", "--json"], ["path", "Money", "Ops B", "--json"], ["status", "--json"]]
    for q in ("atlas conventions", "summary body", "Nightfall", "ledger", "Zqnfsecret", "zqleak5", "zqleak6",
              "zqtag1", "Vaultkeep"):
        commands += [["query", q, "--json"], ["search", q, "--json"], ["query", q]]
    if has_command("reorganize"):
        commands.append(["reorganize", "--json"])
    for args in commands:
        r = run_cli(*args, env=env)
        assert "Traceback" not in r.stderr, (args, r.stderr)
        text = r.stdout + r.stderr
        if args[0] in ("query", "search"):  # the answer echoes the question: that is not a leak
            text = re.sub(re.escape(args[1]), "<q>", text, flags=re.I)
        outputs[" ".join(args)] = text
        count("operations")
    leaks = [f"{m!r} in {where}" for where, text in outputs.items() for m in markers if m.lower() in text.lower()]
    count("detail:private_outputs_checked", len(outputs))
    count("leaks", len(leaks))
    assert not leaks, "private notes leaked:\n" + "\n".join(leaks)

    # graph.json: links to a private note still resolve (to an opaque node), nothing else is kept
    data = json.loads(outputs["graph.json"])
    priv = [n for n in data["nodes"] if n.get("private")]
    assert priv and all(set(n) == {"id", "kind", "private"} and n["id"].startswith("private:") for n in priv)
    ids = {n["id"] for n in priv}
    assert {e["source"] for e in data["links"] if e["target"] in ids} >= {"Ops/Ops A.md", "Money.md"}
    assert not any(e["source"] in ids for e in data["links"])
    # GRAPH_REPORT: no community named after or holding a private note, no ambiguity naming one
    report = outputs["GRAPH_REPORT.md"]
    assert "[[Ops/Ops" in report.split("## Communities", 1)[1].split("## Orphans", 1)[0]


@pytest.mark.parametrize("fate", ["moved", "deleted", "made-private", "public-deleted"])
def test_journal_names_only_notes_public_when_the_entry_is_written(vault, cache_dir, tmp_path, fate):
    """A note touched in a session, then moved, deleted or made private before SessionEnd, is not
    named. A touched note that no longer exists is left out even when it was public (fail closed:
    its last state cannot be read any more)."""
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    secret_name = "Quokka buyout"
    note = vault / "Deals" / f"{secret_name}.md"
    private = fate != "public-deleted" and fate != "made-private"
    _write(note, ("---\nprivate: true\n---\n" if private else "# Quokka\n") + "Terms.\n")
    kept = vault / "Inbox" / "Kept public.md"
    _write(kept, "# Kept\n")
    for p in (note, kept):
        r = run_bytes("hook", "post-tool-use", data=json.dumps(
            {"session_id": "jr1", "tool_input": {"file_path": str(p)}}).encode(), env=env)
        assert r.returncode == 0
    if fate == "moved":
        (vault / "Elsewhere").mkdir()
        note.rename(vault / "Elsewhere" / note.name)
    elif fate in ("deleted", "public-deleted"):
        note.unlink()
    else:
        note.write_text("---\nprivate: 1\n---\nTerms.\n")
    assert run_cli("sync", env=env).returncode == 0  # as the background sync of another session would
    r = run_bytes("hook", "session-end", data=json.dumps({"session_id": "jr1", "cwd": str(tmp_path),
                                                          "reason": "other"}).encode(), env=env)
    assert r.returncode == 0 and r.stdout == ""
    journal = (vault / "journal" / time.strftime("%Y-%m-%d.md")).read_text()
    line = [ln for ln in journal.splitlines() if "session jr1" in ln]
    assert len(line) == 1, journal
    assert "[[Inbox/Kept public]]" in line[0]
    assert "Quokka" not in journal, line[0]
    count("operations", 3)
    count("leaks", int("Quokka" in journal))


def test_the_parser_and_the_hooks_quick_check_agree(tmp_path):
    """The index's `private` flag (parse_note) and SessionEnd's file check give the same answer."""
    from memory_plugin.core.config import load_config
    from memory_plugin.vault.notes import parse_note
    from memory_plugin.vault.privacy import file_says_private

    values = load_config(vault=tmp_path, cache_dir=tmp_path / "c").values
    texts = [f"---\n{fm}---\nbody\n" for fm in SPELLINGS.values()] + [
        "---\nprivate: false\n---\n", "---\nis_private: true\n---\n", "---\ntitle: 'open\nprivate: on\n",
        "# no frontmatter\nprivate: true\n", "---\nprivate:\n  true\n---\n", "\ufeff---\r\nPRIVATE: TRUE\r\n---\r\n",
        "---\ntags: [a\n\tprivate: yes\n---\n", "---\nprivate: no # but\n---\n"]
    for i, text in enumerate(texts):
        p = tmp_path / f"n{i}.md"
        p.write_bytes(text.encode())
        assert parse_note(p.name, p.read_bytes(), values).private == file_says_private(str(p)), text
    count("operations", len(texts))
