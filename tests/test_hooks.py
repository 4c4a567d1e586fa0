"""The three hooks as Claude Code runs them: whole processes, JSON on stdin."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli

HOOK_SHAPE_KEYS = {"hookSpecificOutput"}


def hook(event, payload, env=None, raw=None):
    data = raw if raw is not None else json.dumps(payload)
    return run_cli("hook", event, input=data, env=env, timeout=60)


def context_of(r) -> str:
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == HOOK_SHAPE_KEYS
    assert set(out["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return out["hookSpecificOutput"]["additionalContext"]


@pytest.fixture
def env(vault_env):
    return vault_env


def wait_for(pred, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.1)
    return False


def test_session_start_brief_shape_and_content(env, tmp_path):
    proj = tmp_path / "work" / "atlas"
    (proj / "src").mkdir(parents=True)
    (proj / ".git").mkdir()
    text = context_of(hook("session-start", {"session_id": "s", "source": "startup", "cwd": str(proj / "src")}, env))
    assert text.startswith("<memory-plugin-reference>") and "not a set of instructions" in text
    assert "Every log line carries an ISO-8601 UTC timestamp" in text  # a convention summary
    assert "Engineering MOC" in text  # a hub
    assert "## Project Atlas" in text and "[open pitfall]" in text and "[current decision]" in text
    assert "Use Redis for job queue" not in text  # superseded decision is not current
    assert "Latest journal lines for atlas" in text
    assert "memory-query" in text
    assert "Salary negotiation" not in text and "sk-test" not in text
    assert len(text) <= 6000


def test_brief_budget_cuts_whole_items_and_counts_them(env, tmp_path):
    cfgf = tmp_path / "c.yaml"
    cfgf.write_text("brief_chars: 1500\n")
    text = context_of(hook("session-start", {"cwd": str(tmp_path)}, {**env, "MEMORY_PLUGIN_CONFIG": str(cfgf)}))
    assert len(text) <= 1500
    assert "more items left out" in text
    assert all(not l.startswith("- ") or l.endswith(")") or ": " in l for l in text.splitlines())


def test_disabled_hooks_do_nothing(env, vault):
    for event in ("session-start", "user-prompt-submit", "post-tool-use", "session-end"):
        r = hook(event, {"session_id": "x", "tool_input": {"file_path": str(vault / "Home.md")}},
                 {**env, "MEMORY_PLUGIN_DISABLE": "1"})
        assert r.returncode == 0 and r.stdout == ""
    assert not (vault / "journal" / time.strftime("%Y-%m-%d.md")).exists()


def test_no_index_yet_builds_it_for_the_first_session(vault, cache_dir):
    e = {"MEMORY_PLUGIN_VAULT": str(vault)}
    text = context_of(hook("session-start", {"cwd": "/"}, e))
    assert "## Conventions" in text and "## Hub notes" in text and "built just now" in text
    assert (cache_dir / "index.sqlite").exists() and (cache_dir / "brief.json").exists()
    assert wait_for(lambda: (cache_dir / "graph.json").exists())  # the background sync writes the graph files


def test_post_tool_use_indexes_vault_note_and_refreshes_brief(env, vault, cache_dir, tmp_path):
    note = vault / "Conventions" / "Prefer pathlib.md"
    note.write_text("---\ntype: convention\nsummary: Use pathlib instead of os.path for paths.\n"
                    "tags: [convention/python]\n---\nBody [[Python MOC]]\n")
    r = hook("post-tool-use", {"session_id": "sess-1", "tool_name": "Write",
                               "tool_input": {"file_path": str(note), "content": "..."}}, env)
    assert r.returncode == 0 and r.stdout == ""
    import sqlite3
    conn = sqlite3.connect(cache_dir / "index.sqlite")
    assert conn.execute("SELECT type FROM notes WHERE path='Conventions/Prefer pathlib.md'").fetchone() == ("convention",)
    assert "Use pathlib instead of os.path" in (cache_dir / "brief.json").read_text()
    assert "Conventions/Prefer pathlib.md" in (cache_dir / "sessions" / "sess-1.txt").read_text()


def test_post_tool_use_ignores_everything_else(env, vault, cache_dir, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# not in the vault")
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian" / "x.md").write_text("x")
    (vault / "Templates").mkdir(exist_ok=True)
    (vault / "Templates" / "t.md").write_text("t")
    (vault / "link-out.md").symlink_to(outside)
    before = (cache_dir / "index.sqlite").resolve().stat().st_mtime_ns
    for fp in (str(outside), str(vault / "code.py"), str(vault / ".obsidian" / "x.md"),
               str(vault / "Templates" / "t.md"), str(vault / ".." / "elsewhere.md"), str(vault / "link-out.md")):
        r = hook("post-tool-use", {"session_id": "s2", "tool_input": {"file_path": fp}}, env)
        assert r.returncode == 0 and r.stdout == "", fp
    assert (cache_dir / "index.sqlite").resolve().stat().st_mtime_ns == before
    assert not (cache_dir / "sessions" / "s2.txt").exists()


def test_notebook_path_is_read(env, vault, cache_dir):
    note = vault / "Inbox" / "From notebook.md"
    note.write_text("# nb\n")
    hook("post-tool-use", {"session_id": "nb", "tool_name": "NotebookEdit", "tool_input": {"notebook_path": str(note)}}, env)
    assert "Inbox/From notebook.md" in (cache_dir / "sessions" / "nb.txt").read_text()


def test_session_end_journal_entry(env, vault, cache_dir, tmp_path):
    note = vault / "Learnings" / "New learning.md"
    note.write_text("# learned\n")
    hook("post-tool-use", {"session_id": "abcdef123456", "tool_input": {"file_path": str(note)}}, env)
    private = vault / "Personal" / "Salary negotiation.md"
    os.utime(private)
    hook("post-tool-use", {"session_id": "abcdef123456", "tool_input": {"file_path": str(private)}}, env)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(x) for x in [
        {"type": "summary", "summary": "x"},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "<command-name>/clear"}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "Fix the login bug; my key is sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA and password=hunter2 " + "x" * 300}]}},
        {"type": "user", "message": {"role": "user", "content": "second request"}},
    ]) + "\n")
    r = hook("session-end", {"session_id": "abcdef123456", "transcript_path": str(transcript), "cwd": str(tmp_path / "atlas"),
                             "reason": "prompt_input_exit", "hook_event_name": "SessionEnd"}, env)
    assert r.returncode == 0 and r.stdout == ""
    day = vault / "journal" / time.strftime("%Y-%m-%d.md")
    text = day.read_text()
    assert text.startswith("---\ntype: journal\n")
    line = text.strip().splitlines()[-1]
    assert "project atlas" in line and "session abcdef12" in line and "prompt_input_exit" in line
    assert "[[Learnings/New learning]]" in line and "Salary" not in line
    assert "Fix the login bug" in line and "sk-ant" not in line and "hunter2" not in line
    request = line.split('"')[1]
    assert len(request) <= 200
    import sqlite3

    def indexed():  # by the detached worker SessionEnd starts
        conn = sqlite3.connect(cache_dir / "index.sqlite")
        try:
            return conn.execute("SELECT type FROM notes WHERE path=?", (str(day.relative_to(vault)),)).fetchone() == ("journal",)
        finally:
            conn.close()
    assert wait_for(indexed)


def test_session_end_with_nothing_writes_one_line(env, vault):
    hook("session-end", {"session_id": "quiet", "reason": "other", "cwd": "/tmp"}, env)
    line = (vault / "journal" / time.strftime("%Y-%m-%d.md")).read_text().strip().splitlines()[-1]
    assert line.endswith("no notes touched") and "session quiet" in line


BAD_INPUTS = ["", "not json", "[]", "null", '"str"', '{"tool_input": 5}', '{"tool_input": {"file_path": 7}}',
              '{"session_id": ["x"], "transcript_path": 3, "cwd": {}}', "{" * 10_000, "x" * (10 * 1024 * 1024)]


@pytest.mark.parametrize("raw", BAD_INPUTS, ids=lambda r: repr(r[:20]) + f"[{len(r)}]")
@pytest.mark.parametrize("event", ["session-start", "user-prompt-submit", "post-tool-use", "session-end"])
def test_hooks_fail_open_on_any_stdin(env, event, raw):
    r = hook(event, None, env, raw=raw)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    if r.stdout:
        assert event == "session-start"
        context_of(r)


def test_errors_are_logged_and_shown_in_next_brief(env, cache_dir):
    hook("post-tool-use", None, env, raw="not json at all")
    log = (cache_dir / "hooks.log").read_text()
    assert "post-tool-use ERROR" in log and "not JSON" in log
    text = context_of(hook("session-start", {"cwd": "/"}, env))
    assert "Last memory-plugin hook error" in text and "post-tool-use" in text


@pytest.mark.parametrize("state", ["missing-vault", "corrupt-index", "locked"])
def test_hooks_fail_open_on_bad_vault_state(env, vault, cache_dir, state, tmp_path):
    e = dict(env)
    if state == "missing-vault":
        e["MEMORY_PLUGIN_VAULT"] = str(tmp_path / "nope")
    elif state == "corrupt-index":
        target = (cache_dir / "index.sqlite").resolve()
        target.write_bytes(b"garbage" * 1000)
    lock = None
    if state == "locked":
        from filelock import FileLock
        lock = FileLock(str(cache_dir / "index.lock"))
        lock.acquire()
    try:
        note = vault / "Inbox" / "During lock.md"
        note.write_text("# x\n")
        for event, payload in (("session-start", {"cwd": "/"}),
                               ("post-tool-use", {"session_id": "z", "tool_input": {"file_path": str(note)}}),
                               ("session-end", {"session_id": "z", "cwd": "/"})):
            t0 = time.time()
            r = hook(event, payload, e)
            assert r.returncode == 0, r.stderr
            assert time.time() - t0 < 20
            if event == "session-start":
                context_of(r)
            else:
                assert r.stdout == ""
    finally:
        if lock:
            lock.release()
    if state == "missing-vault":
        assert "does not exist" in (cache_dir / "hooks.log").read_text()
    if state == "corrupt-index":  # the background sync started by SessionStart rebuilds a broken index
        import sqlite3
        def healed():
            try:
                return sqlite3.connect(cache_dir / "index.sqlite").execute("SELECT count(*) FROM notes").fetchone()[0] > 40
            except sqlite3.DatabaseError:
                return False
        assert wait_for(healed)


def test_redaction():
    from memory_plugin.memory.journal import redact

    s = redact("key sk-ant-api03-abcdefghijklmnopqrstuv ghp_abcdefghijklmnopqrstuvwxyz0123 AKIAABCDEFGHIJKLMNOP "
               "password=hunter2 api_key: 'abc' Authorization: Bearer abcdefghijklmnopqrstu "
               "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- me@example.com", emails=True)
    for secret in ("sk-ant", "ghp_", "AKIA", "hunter2", "'abc'", "abcdefghijklmnopqrstu", "MIIE", "me@example.com"):
        assert secret not in s, secret


@pytest.mark.parametrize("text,expected", [
    ("run it with --password hunter2 now", "run it with --password [REDACTED] now"),
    ("--db-password=hunter2", "--db-password=[REDACTED]"),
    ("login pw=secret123", "login pw=[REDACTED]"),
    ("pwd=abc123 then", "pwd=[REDACTED] then"),
    ("passphrase: hunter2", "passphrase: [REDACTED]"),
    ("secret: xyz and more", "secret: [REDACTED] and more"),
    ("--token abc", "--token [REDACTED]"),
    ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "OPENAI_API_KEY=[REDACTED]"),
    ("GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123 x", "GITHUB_TOKEN=[REDACTED] x"),
    ('{"api_key": "abc def"}', '{"api_key": [REDACTED]}'),
    ("private_key: -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
     "private_key: [REDACTED PRIVATE KEY]"),
    # ordinary words stay
    ("reset the password flow", "reset the password flow"),
    ("the author: Smith; tokens: 5; use a token to auth", "the author: Smith; tokens: 5; use a token to auth"),
    ("mysql --password --user root", "mysql --password --user root"),
])
def test_redaction_of_key_value_secrets(text, expected):
    from memory_plugin.memory.journal import redact

    assert redact(text) == expected


def test_session_end_writes_entry_when_index_is_corrupt(env, vault, cache_dir):
    note = vault / "Learnings" / "Before corruption.md"
    note.write_text("# learned\n")
    hook("post-tool-use", {"session_id": "corrupt1", "tool_input": {"file_path": str(note)}}, env)
    (cache_dir / "index.sqlite").resolve().write_bytes(b"garbage" * 1000)
    private = vault / "Personal" / "Salary negotiation.md"
    hook("post-tool-use", {"session_id": "corrupt1", "tool_input": {"file_path": str(private)}}, env)
    r = hook("session-end", {"session_id": "corrupt1", "cwd": "/tmp/atlas", "reason": "other"}, env)
    assert r.returncode == 0 and r.stdout == ""
    line = (vault / "journal" / time.strftime("%Y-%m-%d.md")).read_text().strip().splitlines()[-1]
    assert "session corrupt1" in line and "[[Learnings/Before corruption]]" in line
    assert "Salary" not in line  # the file-based private check still applies
    assert "private notes checked from their files" in (cache_dir / "hooks.log").read_text()
    errors = json.loads((cache_dir / "errors.json").read_text())
    assert "index" in errors["session-end"]["message"]


def test_bad_stdin_errors_go_to_the_configured_cache_dir(vault, isolated_home, monkeypatch):
    from memory_plugin.core.config import load_config

    monkeypatch.delenv("MEMORY_PLUGIN_CACHE_DIR")
    monkeypatch.setenv("MEMORY_PLUGIN_VAULT", str(vault))
    configured = load_config().cache_dir
    fallback = isolated_home / ".cache" / "memory-plugin"
    assert hook("post-tool-use", None, raw="garbage").returncode == 0
    assert "post-tool-use ERROR" in (configured / "hooks.log").read_text()
    assert not (fallback / "hooks.log").exists()
    text = context_of(hook("session-start", {"cwd": "/"}))
    assert "post-tool-use hook at" in text and "not JSON" in text
    # only when the config itself cannot be loaded does the error go to the fallback dir
    bad = isolated_home / "bad.yaml"
    bad.write_text("hub_count: many\n")
    assert hook("post-tool-use", None, {"MEMORY_PLUGIN_CONFIG": str(bad)}, raw="garbage").returncode == 0
    assert "not JSON" in (fallback / "hooks.log").read_text()


def _section(text: str, title: str) -> str | None:
    return next((s for s in text.split("\n## ") if s.startswith(title)), None)


@pytest.mark.parametrize("name", ["zeta-9", "My Project", "a", "atlas"])
def test_brief_journal_lines_are_the_current_projects(env, vault, tmp_path, name):
    (vault / "journal" / "2026-11-28.md").write_text(
        "---\ntype: journal\n---\n# 2026-11-28\n\n"
        + "".join(f"- 1{i}:00 · project {p} · session s{i} · other · \"work on {p} {i}\"\n"
                  for i, p in enumerate(["beacon", name, "beacon", name, "memory-plugin"])))
    assert run_cli("sync", env=env).returncode == 0
    proj = tmp_path / "w" / name
    proj.mkdir(parents=True)
    text = context_of(hook("session-start", {"cwd": str(proj)}, env))
    section = _section(text, f"Latest journal lines for {name}")
    assert section, text
    lines = [l for l in section.splitlines() if l.startswith("- ")]
    assert lines[:2] == [f"- 2026-11-28 13:00 · project {name} · session s3 · other · \"work on {name} 3\"",
                         f"- 2026-11-28 11:00 · project {name} · session s1 · other · \"work on {name} 1\""]
    assert all(f"· project {name} ·" in l for l in lines)
    assert _section(text, "Latest journal lines\n") is None


@pytest.mark.parametrize("project", [None, "atlas", "beacon", "nowhere", "p" * 300])
def test_brief_never_exceeds_brief_chars(env, cache_dir, project):
    from memory_plugin.outputs import brief
    from memory_plugin.core.config import BRIEF_HARD_CAP, BRIEF_MIN_CHARS

    real = brief.load(cache_dir)
    stress = {**real, "vault": "/" + "v" * 3000, "notes": 10 ** 9}
    for data in (real, stress):
        for chars in (BRIEF_MIN_CHARS, BRIEF_MIN_CHARS + 1, 1500, 2000, 3333, 6000, 9999, BRIEF_HARD_CAP):
            for error in (None, "e " * 2000):
                text = brief.compose(data, brief_chars=chars, project=project, error=error, now=4e9,
                                     syncing="a background rebuild has started", synced_at=1)
                assert len(text) <= chars, (chars, project, bool(error))
                assert text.startswith("<memory-plugin-reference>") and text.endswith("</memory-plugin-reference>")


def test_brief_chars_minimum_through_the_hook(env, tmp_path):
    from memory_plugin.core.config import BRIEF_MIN_CHARS

    cfgf = tmp_path / "c.yaml"
    cfgf.write_text(f"brief_chars: {BRIEF_MIN_CHARS}\n")
    text = context_of(hook("session-start", {"cwd": str(tmp_path / "atlas")}, {**env, "MEMORY_PLUGIN_CONFIG": str(cfgf)}))
    assert len(text) <= BRIEF_MIN_CHARS and "more items left out" in text


# A SessionStart watched from its parent, made a child subreaper so that the detached worker (the
# hook's grandchild, orphaned at once) becomes its child: the hook's stdout is a pipe filled up
# beforehand, so the hook blocks writing the brief until the watcher reads it. At that moment the
# watcher notes whether any worker exists yet; it then reads the brief and waits for every worker
# to exit, reading the niceness of each (fields of /proc/PID/stat, still there for a zombie).
WATCH_SESSION_START = r"""
import ctypes, json, os, subprocess, sys, time
WRITE = {"x86_64": 1, "aarch64": 64, "riscv64": 64}[os.uname().machine]
assert ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER

def stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    return s[s.rindex(")") + 2:].split()  # state, ppid, ... nice is the 17th field from here

def children():
    out = set()
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and int(stat(d)[1]) == os.getpid():
                out.add(int(d))
        except (OSError, IndexError):
            pass
    return out

r, w = os.pipe()
os.set_blocking(w, False)
filled = 0
try:
    while True:
        filled += os.write(w, b"x" * 4096)
except BlockingIOError:
    os.set_blocking(w, True)
hook = subprocess.Popen(json.loads(sys.argv[1]), stdin=subprocess.PIPE, stdout=w)
os.close(w)
hook.stdin.write(sys.argv[2].encode())
hook.stdin.close()
while True:
    workers = children() - {hook.pid}
    try:
        with open(f"/proc/{hook.pid}/syscall") as f:
            call = f.read().split()
    except OSError:
        call = []
    if workers or call[:2] == [str(WRITE), "0x1"]:  # a worker, or the hook stuck writing its stdout
        break
    time.sleep(0.002)
data = b""
while chunk := os.read(r, 1 << 16):
    data += chunk
hook.wait()
nice = []
while True:
    try:
        pid = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT).si_pid
    except ChildProcessError:
        break
    nice.append(int(stat(pid)[16]))
    os.waitpid(pid, 0)
print(json.dumps({"worker_before_brief": bool(workers), "stdout": data[filled:].decode(), "nice": nice}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.uname().machine not in ("x86_64", "aarch64", "riscv64"),
                    reason="reads the hook's system call in /proc (Linux)")
@pytest.mark.parametrize("indexed", [True, False], ids=["warm", "first-session"])
def test_session_start_starts_its_worker_after_the_brief_at_low_priority(vault, cache_dir, tmp_path, indexed):
    from memory_plugin.claude.hooks import WORKER_NICE

    e = {"MEMORY_PLUGIN_VAULT": str(vault)}
    if indexed:
        assert run_cli("rebuild", env=e).returncode == 0
    exe = Path(sys.executable).parent / "memory-plugin"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memory_plugin"]
    r = subprocess.run([sys.executable, "-c", WATCH_SESSION_START, json.dumps(cmd + ["hook", "session-start"]),
                        json.dumps({"session_id": "w", "source": "startup", "cwd": str(tmp_path)})],
                       capture_output=True, text=True, env={**os.environ, **e}, timeout=120)
    assert r.returncode == 0, r.stderr
    seen = json.loads(r.stdout)
    assert not seen["worker_before_brief"]
    text = json.loads(seen["stdout"])["hookSpecificOutput"]["additionalContext"]
    assert "## Hub notes" in text
    assert seen["nice"] and all(n >= WORKER_NICE for n in seen["nice"]), seen["nice"]
    assert (cache_dir / "graph.json").exists()  # the worker did its work


@pytest.mark.parametrize("start", [0, 15])
def test_lower_priority_lowers_cpu_and_io_priority_and_never_raises_them(start):
    """In a process of its own: the niceness is per process (per thread on Linux) and only goes up."""
    from memory_plugin.claude.hooks import IOPRIO_SYSCALLS, WORKER_NICE

    code = ("import ctypes, os, sys\n"
            f"os.nice({start})\n"
            "from memory_plugin.claude.hooks import IOPRIO_SYSCALLS, lower_priority\n"
            "lower_priority()\n"
            "get = IOPRIO_SYSCALLS.get(os.uname().machine, (0, None))[1]\n"
            "io = ctypes.CDLL(None).syscall(get, 1, 0) if get and sys.platform == 'linux' else -1\n"
            "print(os.nice(0), io)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    nice, io = map(int, r.stdout.split())
    assert nice == max(start, WORKER_NICE)
    if sys.platform == "linux" and os.uname().machine in IOPRIO_SYSCALLS:
        assert (io >> 13, io & 0xff) == (2, 7)  # best-effort, the lowest level


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_run_by_hand_lowers_its_own_priority(env):
    from memory_plugin.claude.hooks import WORKER_NICE

    p = subprocess.Popen([sys.executable, "-m", "memory_plugin", "hook", "worker", "sync"], env={**os.environ, **env})
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped: /proc still has it
    stat = Path(f"/proc/{p.pid}/stat").read_text()
    p.wait()
    assert int(stat[stat.rindex(")") + 2:].split()[16]) >= WORKER_NICE


PATH_PARTS = ["a", "Note", " ", "  ", "<", "(", ")", "é", "\u200b", "\t", "\n", "/", ".md", "\ufe64", "\ud800", "&lt;", "x)y"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PATH_PARTS), max_size=6).map("".join), max_size=12),
       st.lists(st.booleans(), max_size=12), st.lists(st.sampled_from(PATH_PARTS + ["- ", " · "]), max_size=20))
def test_the_paths_a_brief_shows_are_those_it_names_in_parentheses(paths, show, noise):
    """hooks._shown (set lookups, escaping only what needs it) finds exactly the paths whose escaped
    form the text holds in parentheses."""
    from memory_plugin.claude.hooks import _shown
    from memory_plugin.core.fence import escape_vault_text as esc

    lines = [f"- {p[:3]} ({esc(p)}) · 2 weeks old" for p, s in zip(paths, show) if s]
    text = "\n".join(lines + ["".join(noise)])
    assert _shown(paths, text) == [p for p in paths if f"({esc(p)})" in text]
