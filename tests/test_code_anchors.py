"""Notes tied to the code they cite: anchors read from notes, symbols read from source files, and the
PostToolUse hook that brings the notes citing a repository file when Claude reads or edits it."""
import json
import subprocess
import textwrap

import pytest

from codesample import SRC, lay_repo, write_note as _note
from conftest import run_cli
from memory_plugin.index import code
from memory_plugin.vault import anchors as A
from memory_plugin.vault import links as L


def anchors_of(body: str, props=None):
    return A.extract_note(L.mask_blocks(body, lambda: None), body, props)


def test_the_ways_developers_cite_code():
    body = textwrap.dedent("""\
        See `src/app/routing.py:163` and `src/app/base.py#L10-L20`, then `scripts/check` as a whole.
        The replay lives in `_Cached.wrapped_receive()`, and `collapse_groups()` unwraps; `Router.lifespan`
        too. A word is a mention: `Router`, `send`, `os.environ`, `request.stream()`, `json.decoder.Error`.
        `src/app/files.py` L675-L702 and later (same file, L459-L508).
        https://github.com/acme/app/blob/1131b3cbcd6f9e2aa3500fd4d7bf3cd200fa2532/src/app/utils.py#L86-L89

        ```python
        def get_route_path(scope):
            return scope["path"]
        ```

        ```python
        x = `src/app/in_code.py:3`
        ```
        """)
    got = {(a.kind, a.file, a.line1, a.line2, a.symbol, a.qual) for a in anchors_of(body)}
    assert ("lines", "src/app/routing.py", 163, 163, None, None) in got
    assert ("lines", "src/app/base.py", 10, 20, None, None) in got
    assert ("file", "scripts/check", None, None, None, None) in got
    assert ("symbol", None, None, None, "wrapped_receive", "_Cached") in got
    assert ("symbol", None, None, None, "collapse_groups", None) in got
    assert ("symbol", None, None, None, "lifespan", "Router") in got
    assert ("lines", "src/app/files.py", 675, 702, None, None) in got
    assert ("lines", "src/app/files.py", 459, 508, None, None) in got
    assert not {a for a in got if a[4] in ("Router", "send", "stream", "Error") or a[1] in ("os.environ",)}
    assert not {a for a in got if a[1] == "src/app/in_code.py"}  # a code sample cites nothing
    perma = [a for a in anchors_of(body) if a.commit]
    assert len(perma) == 1 and perma[0].line1 == 86 and "def get_route_path" in perma[0].quote


def test_files_property_with_the_fingerprint_remember_records():
    got = anchors_of("no citations here", {"files": ["src/a.py#L3-L5 fp=0123456789abcdef", "Makefile", "lib/b.go"]})
    assert [(a.kind, a.file, a.line1, a.line2, a.fp) for a in got] == [
        ("lines", "src/a.py", 3, 5, "0123456789abcdef"), ("file", "Makefile", None, None, None),
        ("file", "lib/b.go", None, None, None)]


def test_a_common_word_called_counts_only_beside_a_cited_file():
    assert not [a for a in anchors_of("the callback `send()` fires once") if a.kind == "symbol"]
    got = anchors_of("`src/x.py#L1-L4`: the callback `send()` fires once")
    assert ("send", None) in {(a.symbol, a.qual) for a in got if a.kind == "symbol"}


def test_definitions_in_python_go_and_javascript():
    py = "class A:\n    def f(self):\n        return 1\n\n    async def g(self):\n        pass\n\ndef h():\n    pass\n"
    assert {(d.name, d.cls, d.line1, d.line2) for d in code.definitions(py, "m.py")} == {
        ("A", None, 1, 6), ("f", "A", 2, 3), ("g", "A", 5, 6), ("h", None, 8, 9)}
    go = "package x\n\nfunc (m *Mux) ServeHTTP(w W, r *R) {\n\tif x {\n\t}\n}\n\nfunc New() *Mux {\n\treturn nil\n}\n"
    assert {(d.name, d.cls, d.line1, d.line2) for d in code.definitions(go, "mux.go")} == {
        ("ServeHTTP", "Mux", 3, 6), ("New", None, 8, 10)}
    js = "export class Router {\n  handle(req) {\n    return req;\n  }\n}\nfunction helper() {\n}\n"
    got = {(d.name, d.cls, d.line1, d.line2) for d in code.definitions(js, "r.js")}
    assert ("handle", "Router", 2, 4) in got and ("helper", None, 6, 7) in got


# ---------------------------------------------------------------- the hook, as Claude Code runs it




@pytest.fixture
def code_env(tmp_path, cache_dir):
    repo = lay_repo(tmp_path / "acme", {"acme/parser.py": SRC, "acme/other.py": "def unrelated():\n    return 0\n",
                                        "tests/conftest.py": "import os\n"})
    vault = tmp_path / "vault"
    _note(vault, "Pitfalls/Part limit.md", "type: pitfall\nproject: acme\ncreated: 2025-01-10",
          "The limit check is `acme/parser.py#L9-L10`: a part over the limit raises.")
    _note(vault, "Learnings/Helper doubles.md", "type: learning\ncreated: 2025-02-01",
          "`helper_function()` doubles its input.")
    _note(vault, "Decisions/Parser owns limits.md", "type: decision\nproject: acme\ncreated: 2024-03-01",
          "Limits live on the parser: `Parser.__init__` takes them (`acme/parser.py`).")
    _note(vault, "Other/Ledger conftest.md", "type: pitfall\nproject: ledger-api\ncreated: 2025-01-01",
          "Our `tests/conftest.py` sets env before importing the app.")
    _note(vault, "Private/My view.md", "type: note\nprivate: true", "I think `acme/parser.py#L9-L10` is wrong.")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return {"env": env, "repo": repo, "vault": vault, "cache": cache_dir}


def file_event(ce, tool, rel, session="s1", **extra):
    if session not in ce.setdefault("started", set()):  # as Claude Code does: the session's brief first
        ce["started"].add(session)
        r = run_cli("hook", "session-start", input=json.dumps({"session_id": session, "source": "startup",
                                                              "cwd": str(ce["repo"])}), env=ce["env"], timeout=60)
        assert r.returncode == 0, r.stderr
        ce.setdefault("brief", {})[session] = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    payload = {"session_id": session, "cwd": str(ce["repo"]), "hook_event_name": "PostToolUse", "tool_name": tool,
               "tool_input": {"file_path": str(ce["repo"] / rel), **extra}, "tool_response": {}}
    r = run_cli("hook", "post-tool-use", input=json.dumps(payload), env=ce["env"], timeout=60)
    assert r.returncode == 0, r.stderr
    if not r.stdout.strip():
        return ""
    out = json.loads(r.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    return out["hookSpecificOutput"]["additionalContext"]


def test_citing_orders_lines_then_symbols_then_files(code_env):
    import sqlite3

    conn = sqlite3.connect(code_env["cache"] / "index.sqlite")
    src = (code_env["repo"] / "acme" / "parser.py").read_text()
    got = code.citing(conn, str(code_env["repo"]), "acme/parser.py", src, "acme")
    assert [(n["path"], n["tier"]) for n in got] == [
        ("Pitfalls/Part limit.md", code.TIER_LINES), ("Decisions/Parser owns limits.md", code.TIER_SYMBOL),
        ("Learnings/Helper doubles.md", code.TIER_SYMBOL)]
    # lines a Read did not reach are no more specific than a symbol
    assert code.citing(conn, str(code_env["repo"]), "acme/parser.py", src, "acme", touched=(14, 15))[0]["tier"] \
        == code.TIER_SYMBOL


def test_reading_a_cited_file_brings_the_notes_the_session_lacks(code_env):
    got = file_event(code_env, "Read", "acme/parser.py")
    brief = code_env["brief"]["s1"]
    assert "Part limit" in brief  # the project's pitfall is in the brief already: not repeated
    assert got.startswith("<memory-plugin-code>") and got.rstrip().endswith("</memory-plugin-code>")
    lines = [l for l in got.splitlines() if l.startswith("- ")]
    assert lines and all(l.split(": ", 1)[1].split(" (")[0] not in brief for l in lines)
    assert any(l.startswith("- Helper doubles (learning, written ") and " ago): " in l for l in lines)
    assert "My view" not in got and "Ledger" not in got and "changed since" not in got
    assert file_event(code_env, "Read", "acme/parser.py") == ""  # once per session


def test_files_no_note_cites_and_another_projects_path_add_nothing(code_env):
    assert file_event(code_env, "Read", "acme/other.py") == ""
    assert file_event(code_env, "Read", "tests/conftest.py") == ""  # a ledger-api note cites that path


def test_an_edit_of_the_cited_lines_flags_the_note_and_a_move_does_not(code_env):
    src = code_env["repo"] / "acme" / "parser.py"
    assert "Helper doubles" in file_event(code_env, "Read", "acme/parser.py")  # the session's baseline
    assert "Part limit" in code_env["brief"]["s1"]
    src.write_text("# a header comment\n# and another\n" + SRC, encoding="utf-8")  # every line moved down 2
    got = file_event(code_env, "Edit", "acme/parser.py", old_string="", new_string="# and another")
    assert "changed since" not in got
    src.write_text(SRC.replace('raise ValueError("Part exceeded maximum size")', "return data[: self.limit]"),
                   encoding="utf-8")
    got = file_event(code_env, "Edit", "acme/parser.py", old_string="", new_string="return data[: self.limit]")
    flagged = [l for l in got.splitlines() if "changed since" in l]
    assert len(flagged) == 1 and "Part limit" in flagged[0]  # back once, with the flag
    assert "Helper doubles" not in got  # unchanged and already given
    assert file_event(code_env, "Edit", "acme/parser.py", new_string="return data[: self.limit]") == ""
    assert "My view" not in got


def test_a_permalink_quoting_code_since_rewritten_is_flagged_on_first_sight(code_env):
    _note(code_env["vault"], "Pitfalls/Old helper.md", "type: pitfall\nproject: acme\ncreated: 2023-01-01",
          "https://github.com/acme/acme/blob/1131b3cbcd6f9e2aa3500fd4d7bf3cd200fa2532/acme/parser.py#L14-L15\n\n"
          "```python\ndef helper_function(x):\n    return x + x\n```\n")
    assert run_cli("rebuild", env=code_env["env"]).returncode == 0
    got = file_event(code_env, "Read", "acme/parser.py")
    assert [l for l in got.splitlines() if "Old helper" in l and "changed since" in l]
    assert "changed since" not in got.replace(next(l for l in got.splitlines() if "Old helper" in l), "")


def test_code_context_can_be_switched_off(code_env, tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(f"vault: {code_env['vault']}\ncode_context: false\n", encoding="utf-8")
    ce = dict(code_env, env={"MEMORY_PLUGIN_CONFIG": str(cfg)})
    assert file_event(ce, "Read", "acme/parser.py") == ""


def test_the_next_brief_says_which_notes_cite_changed_code_and_how_old_notes_are(code_env):
    file_event(code_env, "Read", "acme/parser.py")
    src = code_env["repo"] / "acme" / "parser.py"
    src.write_text(SRC.replace('raise ValueError("Part exceeded maximum size")', "return None"), encoding="utf-8")
    file_event(code_env, "Edit", "acme/parser.py", new_string="return None")
    brief_line = next(l for l in code_env["brief"]["s1"].splitlines() if "(Pitfalls/Part limit.md)" in l)
    assert "written " in brief_line and "changed since" not in brief_line
    file_event(code_env, "Read", "acme/other.py", session="s2")  # starts s2: its brief
    line = next(l for l in code_env["brief"]["s2"].splitlines() if "(Pitfalls/Part limit.md)" in l)
    assert "the code it cites changed since it was written" in line
    assert not [l for l in code_env["brief"]["s2"].splitlines() if "Parser owns limits" in l and "changed since" in l]


def test_with_history_changed_since_means_since_the_note_was_written(tmp_path, cache_dir):
    """The SessionStart worker takes the baseline from the repository's history as of the note's
    date: code changed after that is flagged the first time Claude opens the file."""
    import sqlite3
    import time

    repo = tmp_path / "acme"
    (repo / "acme").mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def commit(text, day):
        (repo / "acme" / "parser.py").write_text(text, encoding="utf-8")
        subprocess.run(git + ["add", "-A"], check=True)
        env = {"GIT_AUTHOR_DATE": f"{day}T12:00:00", "GIT_COMMITTER_DATE": f"{day}T12:00:00"}
        subprocess.run(git + ["commit", "-q", "-m", day], check=True, env={**__import__("os").environ, **env})

    commit(SRC, "2024-01-01")
    commit(SRC.replace('raise ValueError("Part exceeded maximum size")', "return None"), "2025-01-01")
    vault = tmp_path / "vault"
    _note(vault, "Pitfalls/Part limit.md", "type: pitfall\ncreated: 2024-06-01",
          "The limit check is `acme/parser.py#L9-L10`: a part over the limit raises.")
    _note(vault, "Learnings/Helper doubles.md", "type: learning\ncreated: 2024-06-01",
          "`helper_function()` doubles its input.")
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    ce = {"env": env, "repo": repo, "vault": vault, "cache": cache_dir}
    file_event(ce, "Read", "acme/other.py")  # starts the session: its worker records the baselines
    db = cache_dir / "code.sqlite"
    end = time.time() + 60
    while time.time() < end:
        try:
            if sqlite3.connect(db).execute("SELECT count(*) FROM base WHERE note = 'Pitfalls/Part limit.md'").fetchone()[0]:
                break
        except sqlite3.Error:
            pass
        time.sleep(0.2)
    got = file_event(ce, "Read", "acme/parser.py")
    assert [l for l in got.splitlines() if "Part limit" in l and "changed since" in l]
    assert [l for l in got.splitlines() if "Helper doubles" in l and "changed since" not in l]
