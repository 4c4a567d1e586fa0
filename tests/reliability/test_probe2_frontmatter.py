"""One reading of the frontmatter block: every privacy spelling YAML reads as private is private in
every output, property edits change only the keys they name (or refuse and leave the file as it
was), and the first session of a large vault reads neither symlinked notes nor a frontmatter still
open where its bounded read ends."""
from __future__ import annotations

import datetime as dt
import difflib
import json
import os
import shutil
import string
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT, run_cli
from rel_helpers import case

from memory_plugin.vault import frontmatter, privacy, propedit
from memory_plugin.vault.notes import parse_note

CANARY = "Zqcanary"

# Spellings of `private: true` as frontmatter text (between the fences, LF line ends unless the case
# is about line ends). Each is private to PyYAML; the six the first reading missed are marked.
SPELLINGS = [
    "private: true\n", "Private: yes\n", "PRIVATE: On\n", "private: 1\n", 'private: "on"\n',
    "private: 'Y'\n", "private: !!bool true\n", "private: &a true\n", "private: true # why\n",
    "{private: true}\n", "'private': 'true'\n", '"private": true\n', "private:   TRUE   \n",
    "tags: [a]\nprivate: yes\n", "private: y\n", "title: x\nprivate: on\nstatus: s\n",
    '"priv\\x61te": true\n',             # an escaped key (missed)
    '"\\u0070rivate": true\n',           # (missed)
    '"\\U00000070rivate": true\n',
    "? private\n: true\n",               # a YAML explicit key (missed)
    "? 'private'\n: yes\n",
    "'pri''vate': no\nprivate: yes\n",
]
CR_ONLY = "---\rprivate: true\rtitle: T\r---\r{body}\r"          # CR-only line ends (missed)
CR_AFTER_FENCE = "---\rprivate: true\ntitle: T\n---\n{body}\n"    # a CR right after the fence (missed)


def _note(fm: str, body: str) -> str:
    return f"---\n{fm}---\n{body}\n"


def _yaml_private(text: str) -> bool:
    """What PyYAML reads (the reference the spellings are compared against)."""
    t = text.replace("\r\n", "\n").replace("\r", "\n")
    block = frontmatter.locate(t)
    data = yaml.safe_load(block.yaml) if block and block.close is not None else None
    return isinstance(data, dict) and any(str(k).strip().lower() == "private" and
                                          str(v).strip().lower() in ("true", "yes", "on", "y", "1")
                                          for k, v in data.items())


def _all_texts() -> list[str]:
    out = [_note(fm, f"{CANARY}{i} body") for i, fm in enumerate(SPELLINGS)]
    out += [CR_ONLY.format(body=f"{CANARY}cr body"), CR_AFTER_FENCE.format(body=f"{CANARY}crf body")]
    return out


def test_every_spelling_yaml_reads_as_private_is_private_to_the_text_reading_and_the_parser(tmp_path):
    from memory_plugin.core.config import load_config

    cfg = load_config(vault=tmp_path).values
    texts = _all_texts()
    with case(len(texts)):
        for text in texts:
            assert _yaml_private(text), text  # the spelling really is private to YAML
            assert privacy.says_private(text), text
            raw = text.encode("utf-8")
            n = parse_note("n.md", raw, cfg)
            assert n.private and not n.body and not n.props, text


def test_private_spellings_reach_no_output(tmp_path):
    vault = tmp_path / "v"
    (vault / "Hidden").mkdir(parents=True)
    for i, text in enumerate(_all_texts()):
        (vault / "Hidden" / f"Zqhidden{i}.md").write_bytes(text.encode("utf-8"))
    (vault / "Home.md").write_text("# Home\n" + " ".join(f"[[Zqhidden{i}]]" for i in range(3)) + "\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    with case(5):
        assert run_cli("rebuild", env=env).returncode == 0
        outs = [run_cli("search", "body", env=env).stdout, run_cli("query", "what does the body say", env=env).stdout,
                run_cli("explain", "Zqhidden0", env=env).stdout]
        cache = Path(os.environ["MEMORY_PLUGIN_CACHE_DIR"])
        outs += [p.read_text(errors="replace") for p in cache.rglob("graph.json")]
        outs += [p.read_text(errors="replace") for p in cache.rglob("graph.html")]
        assert len(outs) == 5
        for out in outs:
            assert CANARY.lower() not in out.lower()


# ------------------------------------------------------------------ property edits

def _one_note_vault(tmp_path, text: str) -> tuple[Path, Path, dict]:
    vault = tmp_path / "v"
    (vault / "Decisions").mkdir(parents=True)
    note = vault / "Decisions" / "Zqedit.md"
    note.write_bytes(text.encode("utf-8"))
    (vault / "Decisions" / "Other.md").write_text("---\ntype: decision\n---\n# Other\nA public note.\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    return vault, note, env


def _hidden(env: dict) -> bool:
    """The private note's text and name reach no search."""
    out = (run_cli("search", "secret body", env=env).stdout + run_cli("search", "Zqedit", env=env).stdout).lower()
    return CANARY.lower() not in out and "decisions/zqedit" not in out


EDITS = [("retract", "Decisions/Zqedit.md"), ("validate", "Decisions/Zqedit.md"),
         ("supersede", "Decisions/Zqedit.md", "Decisions/Other.md"),
         ("contradicts", "Decisions/Zqedit.md", "Decisions/Other.md")]


@pytest.mark.parametrize("indented", ["\tprivate: true", "  private: yes", "    private: on"])
@pytest.mark.parametrize("under", ["status: current", "confidence: 0.6"])
@pytest.mark.parametrize("edit", EDITS, ids=lambda e: e[0])
def test_an_indented_private_line_under_an_edited_key_is_never_dropped(tmp_path, indented, under, edit):
    text = (f"---\ntype: decision\n{under}\n{indented}\nlast_validated: 2020-01-01\n---\n"
            f"# Zqedit\n{CANARY} secret body\n")
    vault, note, env = _one_note_vault(tmp_path, text)
    with case():
        r = run_cli(*edit, env=env)
        assert note.read_bytes() == text.encode("utf-8")  # refused, untouched: YAML reads no mapping there
        assert r.returncode == 2 and r.stderr.startswith("Error: ") and len(r.stderr.strip().splitlines()) == 1
        assert "Zqedit" not in r.stderr  # a private note is not named
        assert _hidden(env)


@pytest.mark.parametrize("fence", ["---\u00a0", "--- ", "---\t", "---\u2003"])
def test_a_fence_with_trailing_whitespace_is_the_same_block_for_every_edit(tmp_path, fence):
    text = f"{fence}\nprivate: true\nstatus: current\n---\n# Zqedit\n{CANARY} secret body\n"
    vault, note, env = _one_note_vault(tmp_path, text)
    with case():
        r = run_cli("retract", "Decisions/Zqedit.md", env=env)
        assert r.returncode == 0, r.stderr
        new = note.read_text(encoding="utf-8")
        assert new.startswith(f"{fence}\nprivate: true\nstatus: retracted\n")
        assert new.count("\n---\n") == 1 and new.endswith(f"---\n# Zqedit\n{CANARY} secret body\n")
        assert _hidden(env)


def test_a_block_never_closed_is_refused_not_stacked(tmp_path):
    text = f"---\nprivate: true\nstatus: current\n# Zqedit\n{CANARY} secret body\n"
    vault, note, env = _one_note_vault(tmp_path, text)
    with case():
        r = run_cli("retract", "Decisions/Zqedit.md", env=env)
        assert r.returncode == 2 and note.read_bytes() == text.encode("utf-8")


# Random frontmatter: lines from the privacy spellings, scalars, lists, comments, blank lines,
# block scalars and stray indented lines; random line ends, fence whitespace and BOM.
_SCALAR = st.one_of(st.sampled_from(["x", "a b", "2024-01-02", "0.7", "010", "yes", "'q'", '"d"', "[a, b]", "~"]),
                    st.text(string.ascii_letters, min_size=1, max_size=6))
_KEYS = st.sampled_from(["title", "type", "status", "confidence", "tags", "related", "valid_to", "superseded_by",
                         "last_validated", "contradicts", "summary", "aliases", "private", "Private"])
_ENTRY = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}\n", _KEYS, _SCALAR),
    st.builds(lambda k, vs: f"{k}:\n" + "".join(f"  - {v}\n" for v in vs), _KEYS, st.lists(_SCALAR, min_size=1, max_size=3)),
    st.builds(lambda k, vs: f"{k}: |\n" + "".join(f"  {v}\n" for v in vs), _KEYS, st.lists(_SCALAR, min_size=1, max_size=2)),
    st.sampled_from(SPELLINGS),
    st.sampled_from(["# a comment\n", "\n", "\tprivate: true\n", "  private: yes\n", "  - stray\n", "  more text\n"]),
)
_CHANGES = [
    lambda: [("status", "retracted"), ("valid_to", dt.date(2026, 12, 6))],                      # retract
    lambda: [("last_validated", dt.date(2026, 12, 6)), ("confidence", 0.8)],                      # validate
    lambda: [("status", "superseded"), ("valid_to", dt.date(2026, 12, 6)), ("superseded_by", "[[New]]")],
    lambda: [("supersedes", "[[Old]]")],                                                          # supersede (new)
    lambda: [("contradicts", ["[[Other]]"])],                                                     # contradicts
]


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(entries=st.lists(_ENTRY, max_size=8), which=st.integers(0, len(_CHANGES) - 1),
       nl=st.sampled_from(["\n", "\r\n", "\r"]), fence=st.sampled_from(["---", "--- ", "---\u00a0", "---\t"]),
       bom=st.booleans())
def test_property_edits_change_only_what_they_name(entries, which, nl, fence, bom):
    changes = _CHANGES[which]()
    body = f"# T{nl}body line{nl}{nl}    code{nl}"
    fm_lines = [e.replace("\n", nl) for e in entries]
    text = ("\ufeff" if bom else "") + fence + nl + "".join(fm_lines) + "---" + nl + body
    try:
        new = propedit.set_props(text, changes)
    except propedit.PropEditError:
        return  # refused: the command leaves the file untouched (edit_notes writes nothing)
    assert new.startswith("\ufeff" + fence + nl if bom else fence + nl)
    assert new.endswith("---" + nl + body)  # the body, byte for byte
    assert privacy.says_private(new) == privacy.says_private(text)
    # the lines that went are runs that each start with an edited key at column 0 and go on only with
    # lines YAML can read as its value (indented, list items, blank); the lines that came are edited keys
    edited = {k for k, _ in changes}
    old_fm = _fm_lines(text)
    new_fm = _fm_lines(new)
    sm = difflib.SequenceMatcher(a=old_fm, b=new_fm, autojunk=False)
    for op, a0, a1, b0, b1 in sm.get_opcodes():
        if op == "equal":
            continue
        gone, came = old_fm[a0:a1], new_fm[b0:b1]
        runs = []
        for line in gone:
            if not line[:1].isspace() and not line.startswith("-") and line.strip():
                runs.append([line])
            elif runs:
                runs[-1].append(line)
            else:
                runs.append([line])
        for run in runs:
            assert any(run[0].startswith(f"{k}:") for k in edited), (run, text, new)
            assert all(x[:1].isspace() or x.startswith("-") or not x.strip() for x in run[1:]), (run, text, new)
        assert all(any(x.startswith(f"{k}: ") for k in edited) for x in came), (came, new)
    # and YAML reads the other properties as before
    old_data = _load(text)
    new_data = _load(new)
    assert {k: v for k, v in new_data.items() if k not in edited} == \
        {k: v for k, v in old_data.items() if k not in edited}


def _fm_lines(text: str) -> list[str]:
    block = frontmatter.locate(text.lstrip("\ufeff"))
    return [frontmatter.content(x) for x in block.lines[1:block.close]]


def _load(text: str) -> dict:
    t = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    block = frontmatter.locate(t)
    return yaml.safe_load(block.yaml) or {}


# ------------------------------------------------------------------ cold start

def _brief(env: dict, cwd: Path) -> str:
    r = run_cli("hook", "session-start", input=json.dumps({"cwd": str(cwd), "source": "startup"}),
                env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


def test_first_session_of_a_large_vault_reads_no_symlink_out_and_no_open_frontmatter(tmp_path):
    vault = tmp_path / "v"
    (vault / "Maps").mkdir(parents=True)
    for i in range(12):
        (vault / f"Note {i}.md").write_text(f"# Note {i}\nplain\n")
    (vault / "Home.md").write_text("---\ntype: hub\n---\n# Home\nThe entry point.\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"---\ntype: hub\n---\n# {CANARY} outside title\n{CANARY} text\n")
    os.symlink(outside / "secret.md", vault / "Zqlink.md")
    os.symlink(outside, vault / "Maps" / "Linked")
    aliases = "".join(f"  - alias number {i}\n" for i in range(700))
    (vault / "Maps" / "Zqhub.md").write_text(
        f"---\ntype: hub\naliases:\n{aliases}private: true\n---\n# {CANARY} hub\n{CANARY} hub text\n")
    cfgf = tmp_path / "c.yaml"
    cfgf.write_text("cold_start_max_notes: 5\n")
    env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CONFIG": str(cfgf)}
    with case(2):
        text = _brief(env, tmp_path)
        assert "still being built" in text and "Home (Home.md)" in text  # the bounded brief, read
        assert CANARY.lower() not in text.lower()
        assert "zqlink" not in text.lower() and "zqhub" not in text.lower()
