"""The prompt hook's precise half: a prompt naming a repository file, a symbol or an error message that
a note cites or quotes gets that note (claude/prompt_cues.py, claude/prompt_hook.py), as Claude Code
runs the hook: a whole process, JSON on stdin, a real index and a real git repository."""
import json
import subprocess

import pytest

from codesample import write_note as _note
from conftest import run_cli
from memory_plugin.claude import prompt_cues as C

SRC = '''\
class Parser:
    def __init__(self, limit):
        self.limit = limit

    def parse(self, data):
        if not data:
            return []
        if len(data) > self.limit:
            raise ValueError("part exceeded the maximum size the parser accepts")
        return data.split(",")


def helper_function(x):
    return x * 2
'''
MESSAGE = "part exceeded the maximum size the parser accepts"
BATCH = "while reading batch 7 of the nightly billing export"


def test_files_a_prompt_names():
    got = C.files("see acme/parser.py:9 and `other.py`, not https://example.com/a/b.py or application/json "
                  "or ./scripts or 1.27 or os.environ")
    assert got == [("acme/parser.py", 9), ("other.py", None)]  # a file has an extension
    assert C.files("the log says (timeout.go:39) and .github/workflows/ci.yml") == [
        ("timeout.go", 39), (".github/workflows/ci.yml", None)]
    assert C.files("open /home/u/acme/acme/parser.py", repo="/home/u/acme") == [("acme/parser.py", None)]


def test_symbols_a_prompt_names_and_how_strongly():
    got = set(C.symbols("when do I need `Context.Clone`? what does walkXFF do, and wrapped_receive, "
                        "Mux.ServeHTTP, Mount(), r.NotFound(...), chi.URLParam; With RedirectSlashes on"))
    assert {("Context", "Clone", "symbol"), (None, "walkXFF", "symbol"), (None, "wrapped_receive", "symbol"),
            ("Mux", "ServeHTTP", "symbol"), (None, "Mount", "call"), (None, "NotFound", "symbol"),
            (None, "URLParam", "call"), (None, "RedirectSlashes", "symbol")} <= got
    assert not [s for s in got if s[1] in ("With", "when", "need", "chi")]  # prose words are no symbols
    # code that calls a function with its arguments uses it: not a name (`Use`, `Compress`)
    assert C.symbols("even with r.Use(middleware.Compress(5)) it fails") == []
    assert C.symbols("in what order does `chain` wrap?") == [(None, "chain", "symbol")]


def test_messages_a_prompt_may_quote():
    got = C.messages("startup fails with: chi: 'PURGE' http method is not supported.\n"
                     "Traceback line two here\nand 'a quoted message here' too")
    assert "chi: 'PURGE' http method is not supported." in got
    assert "Traceback line two here" in got and "a quoted message here" in got
    assert C.messages("run the tests") == []
    assert C.messages("what's the problem? it's 'x'") == []  # apostrophes are no quotes; too short


def test_a_message_quoted_with_another_value_is_not_the_notes():
    from memory_plugin.core.textutil import STOPWORDS, words

    note = words("we hit `TypeError: Cannot read properties of undefined (reading 'mode')` error twice")
    # the same template with another property at its end: not the note's message
    assert C._longest_run(words("TypeError: Cannot read properties of undefined (reading 'map')"), note, STOPWORDS) == 0
    # the note's message, whole or inside prose: its run
    assert C._longest_run(words("TypeError: Cannot read properties of undefined (reading 'mode')"), note, STOPWORDS) == 8
    got = words("TypeError: Cannot read properties of undefined (reading 'mode') when I save the form twice")
    assert C._longest_run(got, note, STOPWORDS) == 8
    assert C._longest_run(words("it is not in the list"), words("it is not in the list"), STOPWORDS) == 0  # stop words



@pytest.fixture
def repo_env(tmp_path, cache_dir):
    """A git repository and a vault whose notes cite it; recall switched on. None of these notes is
    one the brief shows (no hub, no convention, no project note), so each can only come from the hook."""
    repo = tmp_path / "acme"
    (repo / "acme").mkdir(parents=True)
    (repo / "acme" / "parser.py").write_text(SRC, encoding="utf-8")
    (repo / "acme" / "other.py").write_text("def unrelated():\n    return 0\n", encoding="utf-8")
    (repo / "tests").mkdir()
    (repo / "tests" / "conftest.py").write_text("import os\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    vault = tmp_path / "vault"
    _note(vault, "Learnings/Limit check raises.md", "type: learning\ncreated: 2025-01-10",
          f"The limit check is `acme/parser.py#L8-L9`: a part over the limit raises\n\n    ValueError: {MESSAGE}\n")
    _note(vault, "Learnings/Helper doubles.md", "type: learning\ncreated: 2025-02-01",
          "`helper_function()` in `acme/parser.py` doubles its input.")
    _note(vault, "Learnings/Ruby parse.md", "type: learning\ncreated: 2025-02-01",
          "In Ruby, `JSON.parse()` takes `symbolize_names: true`.")  # a name alone: no tie to this repository
    _note(vault, "Learnings/Other module is a stub.md", "type: learning\ncreated: 2025-02-01",
          "`acme/other.py` holds one stub.")
    _note(vault, "Learnings/Old parse.md", "type: learning\ncreated: 2023-01-01",
          "https://github.com/acme/acme/blob/1131b3cbcd6f9e2aa3500fd4d7bf3cd200fa2532/acme/parser.py#L13-L14\n\n"
          "```python\ndef helper_function(x):\n    return x + x\n```\n")
    _note(vault, "Other/Ledger conftest.md", "type: learning\nproject: ledger-api\ncreated: 2025-01-01",
          "Our `tests/conftest.py` sets env before importing the app.")
    _note(vault, "Private/My view.md", "type: note\nprivate: true",
          f"I think `acme/parser.py#L8-L9` is wrong: ValueError: {MESSAGE} {BATCH}.")
    _note(vault, "journal/2025-03-01.md", "type: journal", f"- 10:00 hit ValueError: {MESSAGE} {BATCH} again")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"vault: {vault}\nprompt_recall: true\n", encoding="utf-8")
    env = {"MEMORY_PLUGIN_CONFIG": str(cfg)}
    r = run_cli("rebuild", env=env)
    assert r.returncode == 0, r.stderr
    return {"env": env, "repo": repo, "vault": vault, "started": set()}


def ask(re_, prompt, session="s1"):
    if session not in re_["started"]:  # as Claude Code does: the session's brief first
        re_["started"].add(session)
        r = run_cli("hook", "session-start", input=json.dumps({"session_id": session, "source": "startup",
                                                              "cwd": str(re_["repo"])}), env=re_["env"], timeout=60)
        assert r.returncode == 0, r.stderr
    r = run_cli("hook", "user-prompt-submit", env=re_["env"], timeout=60, input=json.dumps(
        {"session_id": session, "cwd": str(re_["repo"]), "hook_event_name": "UserPromptSubmit", "prompt": prompt}))
    assert r.returncode == 0, r.stderr
    if not r.stdout.strip():
        return ""
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]


def items(text):
    return [l for l in text.splitlines() if l.startswith("- ")]


def test_a_symbol_the_prompt_names_brings_the_note_citing_it_once(repo_env):
    got = ask(repo_env, "why is `helper_function` slow on big inputs?")
    assert got.startswith("<memory-plugin-recall>") and "reference data" in got
    line = items(got)
    assert len(line) == 1 and line[0].startswith("- Helper doubles (learning, written ") and " ago): " in line[0]
    assert ask(repo_env, "why is `helper_function` slow on big inputs?") == ""  # the session has it now


def test_a_line_inside_a_cited_range_is_strong_a_whole_file_a_pointer(repo_env):
    got = items(ask(repo_env, "look at acme/parser.py:9 and acme/other.py before we change them"))
    assert got[0].startswith("- Limit check raises (learning, written ") and "): " in got[0]  # a line, summary
    pointer = next(l for l in got if "Other module is a stub" in l)
    assert pointer.endswith(" ago)")  # a pointer: title, type, age, no summary
    assert not [l for l in got if "My view" in l or "Ledger" in l]


def test_an_error_message_a_note_quotes_brings_that_note_never_a_private_or_journal_one(repo_env):
    got = ask(repo_env, f"the import job crashed with: ValueError: {MESSAGE}")
    assert [l.split(" (")[0] for l in items(got)] == ["- Limit check raises"]
    assert "My view" not in got and "journal" not in got and "2025-03-01" not in got
    # a journal entry (or a private note: the index keeps none of its text) quoting more of the
    # message decides nothing: the public note still quotes it
    got = ask(repo_env, f"the import job crashed:\nValueError: {MESSAGE} {BATCH}", session="s2")
    assert [l.split(" (")[0] for l in items(got)] == ["- Limit check raises"] and "My view" not in got


def test_another_projects_path_and_ordinary_prompts_add_nothing(repo_env):
    assert ask(repo_env, "add a fixture to tests/conftest.py") == ""  # a ledger-api note cites that path
    for p in ("run the tests", "rename the helper newReq to newRequest in acme/util.py", "commit this"):
        assert ask(repo_env, p) == "", p


def test_a_note_whose_cited_code_changed_says_so(repo_env):
    # the note's permalink quotes `return x + x`; the repository's code now reads `return x * 2`
    got = items(ask(repo_env, "what do acme/parser.py:9 and acme/parser.py:14 return?"))
    old = next(l for l in got if l.startswith("- Old parse "))
    assert "the code it cites changed since it was written" in old
    assert [l for l in got if "Limit check raises" in l and "changed since" not in l]  # its lines did not change


def test_a_name_alone_ties_no_note_to_the_repository(repo_env):
    # the Ruby note cites `JSON.parse()` and no file of this repository, and belongs to no project
    assert ask(repo_env, "why does `JSON.parse` throw on this payload?") == ""


def test_without_a_repository_files_and_symbols_name_nothing_but_messages_do(repo_env, tmp_path):
    # eval --prompts and a session outside a git checkout: no repository the files and symbols are of
    def outside(prompt, session):
        r = run_cli("hook", "user-prompt-submit", env=repo_env["env"], timeout=60, input=json.dumps(
            {"session_id": session, "cwd": str(tmp_path), "prompt": prompt}))
        assert r.returncode == 0, r.stderr
        return r.stdout
    assert "Helper doubles" not in outside("why is `helper_function` slow in acme/parser.py?", "n1")
    assert "Limit check raises" in outside(f"it crashed with: ValueError: {MESSAGE}", "n2")
