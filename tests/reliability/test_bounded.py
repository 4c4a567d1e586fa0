"""Bounded work and a recoverable cache (issue 9): no note or request hangs a hook, no property tree
breaks a rebuild, detached workers stop, a full cache disk is one reported error that heals, alias
changes re-resolve their links, leftover temp files go, and titles and bodies that would make bad
files are refused with one line.

The hang cases run whole processes with a generous `timeout` (60-120 s) on inputs the old code
needed hours for: a hang detector, not a speed assertion (speed is in bench/bench_hostile.py).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import hash_tree, run_cli
from rel_helpers import case, cli_cmd, count, fresh_snapshot, snap, timed_hook, wait_idle

MB = 1 << 20


def _post_tool_use(path: Path, env: dict, timeout: float = 60):
    payload = json.dumps({"session_id": "hostile", "tool_name": "Write", "tool_input": {"file_path": str(path)}})
    return timed_hook("hook", "post-tool-use", data=payload.encode(), env=env, timeout=timeout)


def _note_row(cache_dir: Path, path: str):
    conn = sqlite3.connect(cache_dir / "index.sqlite")
    try:
        row = conn.execute("SELECT skipped, warnings, props FROM notes WHERE path=?", (path,)).fetchone()
        links = [r[0] for r in conn.execute("SELECT target FROM links WHERE src=?", (path,))]
        body = conn.execute("SELECT f.body FROM fts f JOIN notes n ON n.id=f.rowid WHERE n.path=?",
                            (path,)).fetchone()
    finally:
        conn.close()
    return row, links, body[0] if body else None


def _wait_for_row(cache_dir: Path, path: str, timeout: float = 120):
    end = time.time() + timeout
    while time.time() < end:
        row = _note_row(cache_dir, path)[0]
        if row is not None:
            wait_idle(cache_dir, 60)
            return row
        time.sleep(0.2)
    return None


def _log(cache_dir: Path) -> str:
    p = cache_dir / "hooks.log"
    return p.read_text(encoding="utf-8", errors="replace") if p.exists() else ""


def _config(tmp_path: Path, monkeypatch, **values) -> Path:
    p = tmp_path / "mp-config.yaml"
    p.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in values.items()))
    monkeypatch.setenv("MEMORY_PLUGIN_CONFIG", str(p))
    return p


# ---------------------------------------------------------------- hostile text: linear time

HOSTILE = {  # each was quadratic (or worse) before: 20 KB of `[[` took 9.6 s
    "unclosed wikilinks": "[[",
    "unclosed markdown links": "[x](",
    "escaped brackets": "\\[",
    "unclosed wikilinks with a pipe": "[[a|",
    "unclosed emphasis": "_a ",
    "unclosed strong": "**a ",
    "unclosed highlight": "==a ",
    "open backticks over lines": "`a\n",
    "callout openers": "> [!",
    "inline fields": "- a:: [[",
    "one heading line of spaces": None,  # `# a` + 1 MB of spaces + `b`: one line
}


@pytest.mark.parametrize("unit", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_note_does_not_hang_post_tool_use(unit, vault, vault_env, cache_dir):
    with case():
        note = vault / "Inbox" / "Hostile.md"
        body = unit * (MB // len(unit)) if unit else "# a" + " " * MB + "b"
        title = "# Hostile\n\n" if unit else ""  # the long heading must be the first H1
        note.write_text(title + body + "\n\nThe real link: [[Home]]\n", encoding="utf-8")
        count("bad_inputs")
        r = _post_tool_use(note, vault_env)
        assert r.returncode == 0 and r.stdout == "", r.stderr
        row = _wait_for_row(cache_dir, "Inbox/Hostile.md")  # over INLINE_NOTE_BYTES: a worker indexes it
        row, links, _ = _note_row(cache_dir, "Inbox/Hostile.md")
        assert row is not None
        skipped, warnings = row[0], json.loads(row[1])
        assert "Home.md" in links or (skipped and any("note_seconds" in w for w in warnings)), (links, warnings)
        assert "ERROR" not in _log(cache_dir)


# ---------------------------------------------------------------- YAML: alias bombs, deep trees

BOMB = ('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8)))


def test_yaml_alias_bomb_keeps_text_and_links_not_properties(vault, vault_env, cache_dir):
    with case():
        assert len(BOMB.encode()) < 600  # 9 levels x 10 aliases: 10^9 values when expanded
        note = vault / "Inbox" / "Bomb.md"
        note.write_text(f"---\n{BOMB}---\n# Bomb\nBombtext stays searchable, and [[Home]] stays a link.\n")
        count("bad_inputs")
        r = _post_tool_use(note, vault_env, timeout=90)
        assert r.returncode == 0, r.stderr
        for cmd in (("sync",), ("rebuild",)):
            r = run_cli(*cmd, env=vault_env, timeout=120)
            assert r.returncode == 0, r.stderr
            row, links, body = _note_row(cache_dir, "Inbox/Bomb.md")
            assert json.loads(row[2]) == {} and any("expand to more than" in w for w in json.loads(row[1]))
            assert "Home.md" in links and "Bombtext" in body
        r = run_cli("search", "Bombtext", "--json", env=vault_env)
        assert r.returncode == 0 and "Inbox/Bomb.md" in r.stdout
        assert "ERROR" not in _log(cache_dir)


def _deep(depth: int, flow: bool) -> str:
    if flow:
        return "x: " + "[" * depth + "1" + "]" * depth + "\n"
    return "x:\n" + "".join("  " * (i + 1) + "k:\n" for i in range(depth - 1)) + "  " * depth + "k: 1\n"


@pytest.mark.parametrize("depth", [800, 990])
@pytest.mark.parametrize("flow", [True, False], ids=["flow", "block"])
def test_deep_property_breaks_nothing(depth, flow, vault, vault_env, cache_dir):
    with case():
        note = vault / "Inbox" / "Deep.md"
        note.write_text(f"---\n{_deep(depth, flow)}---\n# Deep\nDeeptext and [[Home]].\n")
        count("bad_inputs")
        r = _post_tool_use(note, vault_env, timeout=90)
        assert r.returncode == 0, r.stderr
        for cmd in (("rebuild",), ("sync",), ("view", "--out", str(cache_dir / "v.html"))):
            r = run_cli(*cmd, env=vault_env, timeout=120)
            assert r.returncode == 0, (cmd, r.stderr[-2000:])
        row, links, body = _note_row(cache_dir, "Inbox/Deep.md")
        from memory_plugin.vault.privacy import HEAD_BYTES

        if len(_deep(depth, flow).encode()) > HEAD_BYTES:  # a frontmatter still open past the head the
            assert links == [] and body == ""  # privacy check reads is private (fail-closed, privacy.py)
        else:
            assert "Home.md" in links and "Deeptext" in body
            assert json.loads(row[2]) == {} and any("nest deeper" in w or "invalid YAML" in w
                                                    for w in json.loads(row[1]))
        for f in ("graph.json", "GRAPH_REPORT.md", "graph.html"):
            assert (cache_dir / f).exists()
        json.loads((cache_dir / "graph.json").read_text())
        assert "ERROR" not in _log(cache_dir)


def test_note_over_its_time_budget_is_skipped_with_a_warning(vault, cache_dir, tmp_path, monkeypatch):
    with case():
        _config(tmp_path, monkeypatch, note_seconds=0)
        r = run_cli("--vault", str(vault), "rebuild", timeout=120)
        assert r.returncode == 0, r.stderr
        conn = sqlite3.connect(cache_dir / "index.sqlite")
        try:
            rows = conn.execute("SELECT skipped, warnings, private, path FROM notes").fetchall()
        finally:
            conn.close()
        assert rows and all(s == 1 and "note_seconds" in w for s, w, priv, _ in rows if not priv)
        # privacy is decided before any budget (privacy.py): a private note is still private
        assert {p for _, _, priv, p in rows if priv} >= {"Personal/Salary negotiation.md"}


def test_utf8_note_with_a_nul_byte_is_indexed(vault, vault_env, cache_dir):
    with case():
        note = vault / "Inbox" / "Nul.md"
        note.write_bytes(b"# Nul\nNulword before \x00 after, and [[Home]].\n")
        r = _post_tool_use(note, vault_env)
        assert r.returncode == 0, r.stderr
        row, links, body = _note_row(cache_dir, "Inbox/Nul.md")
        assert row[0] == 0 and "Home.md" in links and "Nulword" in body and "\x00" not in body


# ---------------------------------------------------------------- detached workers stop

def _worker(env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(cli_cmd("hook", "worker", *args), env={**os.environ, **env},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _wait_or_kill(p: subprocess.Popen, timeout: float) -> bool:
    try:
        p.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return False


def test_worker_exits_when_its_vault_disappears(vault, vault_env, cache_dir):
    from filelock import FileLock

    with case():
        env = {**vault_env, "MEMORY_PLUGIN_CACHE_DIR": str(cache_dir)}
        with FileLock(str(cache_dir / "index.lock")):  # the worker waits for it (up to 60 s before)
            p = _worker(env, "reindex", "Home.md")
            time.sleep(1.0)
            shutil.rmtree(vault)
            assert _wait_or_kill(p, 30), "the worker kept running after its vault was removed"
        assert "the vault" in _log(cache_dir) and "is gone" in _log(cache_dir)


def test_worker_exits_when_its_cache_dir_disappears(vault, vault_env, cache_dir):
    with case():
        env = {**vault_env, "MEMORY_PLUGIN_CACHE_DIR": str(cache_dir)}
        from filelock import FileLock

        lock = FileLock(str(cache_dir / "index.lock"))
        lock.acquire()
        try:
            p = _worker(env, "reindex", "Home.md")
            time.sleep(1.0)
            for _ in range(50):  # the waiting worker's lock polling may put a file back meanwhile
                shutil.rmtree(cache_dir, ignore_errors=True)
                if not cache_dir.exists():
                    break
                time.sleep(0.1)
            assert _wait_or_kill(p, 30), "the worker kept running after its cache dir was removed"
        finally:
            lock.release()
        assert not cache_dir.exists() or not (cache_dir / "errors.json").exists()


def test_worker_stops_at_its_wall_clock_limit(vault, vault_env, cache_dir, tmp_path, monkeypatch):
    from filelock import FileLock

    with case():
        _config(tmp_path, monkeypatch, worker_seconds=2)
        env = {**vault_env, "MEMORY_PLUGIN_CACHE_DIR": str(cache_dir)}
        with FileLock(str(cache_dir / "index.lock")):
            t0 = time.time()
            p = _worker(env, "reindex", "Home.md")
            assert _wait_or_kill(p, 40), "the worker ignored worker_seconds"
            count("detail:worker_stop_max_s", int(time.time() - t0))
        assert "stopped after worker_seconds (2 s)" in _log(cache_dir)
        errs = json.loads((cache_dir / "errors.json").read_text())
        assert "worker_seconds" in errs["background"]["message"]


# ---------------------------------------------------------------- a full cache disk

class _SmallDisk:
    """The cache dir on a real small filesystem: a tmpfs when we may mount one (root), else writes
    limited by RLIMIT_FSIZE in each child process (EFBIG, which SQLite reports as a full disk)."""

    def __init__(self, path: Path, size_mb: int):
        self.path, self.size_mb, self.mounted = path, size_mb, False
        path.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0 and shutil.which("mount"):
            r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(path)],
                               capture_output=True)
            self.mounted = r.returncode == 0
        count("detail:full_disk_tmpfs" if self.mounted else "detail:full_disk_rlimit")

    def fill(self, leave_kb: int) -> None:
        if not self.mounted:
            return
        st = os.statvfs(self.path)
        free = st.f_bavail * st.f_frsize
        with open(self.path / "filler.bin", "wb") as f:
            f.write(b"\0" * max(0, free - leave_kb * 1024))

    def free(self) -> None:
        try:
            os.unlink(self.path / "filler.bin")
        except FileNotFoundError:
            pass

    def run(self, *args: str, env: dict, limit_bytes: int | None = None):
        def limit():
            import resource
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
        pre = limit if (limit_bytes and not self.mounted) else None
        r = subprocess.run(cli_cmd(*args), capture_output=True, text=True, env={**os.environ, **env},
                           timeout=300, preexec_fn=pre)
        return r

    def close(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True)


def test_full_cache_disk_is_one_error_and_heals(vault, tmp_path):
    with case():
        disk = _SmallDisk(tmp_path / "small-cache", 24)
        try:
            cache = disk.path
            env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
            r = disk.run("rebuild", env=env)
            assert r.returncode == 0, r.stderr
            before = snap(cache)
            big = vault / "Bulk"
            big.mkdir()
            for i in range(400):
                (big / f"Bulk note {i}.md").write_text(f"# Bulk {i}\n" + f"bulkword{i} filler text " * 200 + "\n")
            disk.fill(leave_kb=600)
            r = disk.run("rebuild", env=env, limit_bytes=600 * 1024)
            count("faults")
            assert r.returncode != 0
            lines = [l for l in r.stderr.strip().splitlines() if l]
            assert len(lines) == 1 and lines[0].startswith("Error: ") and "full" in lines[0], r.stderr
            gens = sorted(p.name for p in cache.glob("index-*.sqlite"))
            assert gens == [os.readlink(cache / "index.sqlite")], gens  # the partial file is gone
            conn = sqlite3.connect(f"file:{cache / 'index.sqlite'}?mode=ro", uri=True)
            try:
                assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            finally:
                conn.close()
            assert snap(cache) == before  # the old index still reads, and as it was
            # the background worker reports it once: logged, in errors.json, in the next brief
            r = disk.run("hook", "worker", "rebuild", env={**env, "MEMORY_PLUGIN_CACHE_DIR": str(cache)},
                         limit_bytes=600 * 1024)
            log = _log(cache)
            if disk.mounted:
                assert "CacheFull" in log and "is full" in log, log
                errs = json.loads((cache / "errors.json").read_text())
                assert "is full" in errs["background"]["message"]
                r = disk.run("doctor", env=env)
                assert r.returncode == 1 and "index passes PRAGMA quick_check" in r.stdout
                assert "BAD cache disk has" in r.stdout, r.stdout
            disk.free()
            r = disk.run("rebuild", env=env)
            assert r.returncode == 0, r.stderr
            assert "Bulk/Bulk note 399.md" in {row[0] for row in snap(cache)["files"]}
            assert sorted(p.name for p in cache.glob("index-*.sqlite")) == [os.readlink(cache / "index.sqlite")]
        finally:
            disk.close()


# ---------------------------------------------------------------- alias changes re-resolve

ALIAS_STEPS = [
    ("link to an alias", {"A.md": "---\naliases: [Alpha]\n---\n# A\n", "L.md": "# L\n[[Alpha]] and [[Beta]]\n"}),
    ("alias removed", {"A.md": "# A\nno alias now\n"}),
    ("alias added again", {"A.md": "---\naliases: [Alpha, Beta]\n---\n# A\n"}),
    ("a second note with the alias", {"B.md": "---\naliases: [Alpha]\n---\n# B\n"}),
    ("the aliased note deleted", {"A.md": None}),
    ("a file with the alias's name", {"Alpha.md": "# Alpha itself\n"}),
    ("that file deleted", {"Alpha.md": None}),
    ("the last aliased note deleted", {"B.md": None}),
]


@pytest.mark.parametrize("how", ["sync", "post-tool-use"])
def test_alias_changes_reresolve_like_a_rebuild(how, tmp_path, monkeypatch):
    _config(tmp_path, monkeypatch, resolve_aliases=True)
    vault = tmp_path / f"vault-{how}"
    (vault / "Notes").mkdir(parents=True)
    cache = tmp_path / f"cache-{how}"
    env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    for i, (what, files) in enumerate(ALIAS_STEPS):
        with case():
            for name, text in files.items():
                p = vault / "Notes" / name
                if text is None:
                    p.unlink()
                else:
                    p.write_text(text)
            if i == 0:
                r = run_cli("rebuild", env=env)
            elif how == "sync":
                r = run_cli("sync", env=env)
            else:
                for name in files:
                    r = _post_tool_use(vault / "Notes" / name, env)
                    assert r.returncode == 0, r.stderr
            assert r.returncode == 0, r.stderr
            count("operations")
            assert snap(cache) == fresh_snapshot(vault, tmp_path / f"fresh-{how}-{i}"), what


# ---------------------------------------------------------------- temp files, titles, bodies

def test_stale_temp_files_of_ours_are_removed_by_the_next_sync(vault, vault_env, cache_dir):
    with case():
        old = vault / "Decisions" / ".Use SQLite for local state.md.k3j9x_2a.tmp"
        fresh = vault / "Decisions" / ".Adopt ruff over flake8.md.abcdefgh.tmp"
        theirs = vault / "Decisions" / ".someone-elses.tmp"
        for p in (old, fresh, theirs):
            p.write_text("half a note")
        past = time.time() - 3600
        os.utime(old, (past, past))  # left by a remember killed an hour ago
        os.utime(theirs, (past, past))
        # and some real leftovers: remember killed while writing a large body
        body = vault.parent / "body.md"
        body.write_text("big body line\n" * 400_000)
        for k in range(6):
            p = subprocess.Popen(cli_cmd("remember", "--type", "learning", "--title", f"Killed write {k}",
                                         "--summary", "A memory whose writer is killed.", "--body-file", str(body)),
                                 env={**os.environ, **vault_env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.3 + 0.15 * k)
            p.kill()
            p.wait()
        left = [t for t in vault.rglob(".*.tmp") if t not in (fresh, theirs)]
        count("detail:killed_remember_temp_files", len([t for t in left if t != old]))
        for t in left:
            os.utime(t, (past, past))
        r = run_cli("sync", env=vault_env)
        assert r.returncode == 0, r.stderr
        assert not old.exists() and fresh.exists() and theirs.exists()
        assert not [t for t in vault.rglob(".*.md.*.tmp") if t != fresh]


@pytest.mark.parametrize("title,why", [
    ("漢" * 100, "bytes"),                      # 300 bytes: over the file-name limit
    ("Invoice\u202egpj.exe", "U+202E"),          # right-to-left override
    ("Zero\u200bwidth", "U+200B"),               # zero-width space
    ("\u2066Isolated\u2069 title", "U+2066"),    # bidi isolate
], ids=["long-multibyte", "rtl-override", "zero-width", "bidi-isolate"])
def test_bad_titles_are_one_line_errors(title, why, vault, vault_env):
    with case():
        before = hash_tree(vault)
        r = run_cli("remember", "--type", "learning", "--title", title, "--summary", "A summary.", env=vault_env)
        count("bad_inputs")
        assert r.returncode != 0
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and why in lines[0], r.stderr
        assert hash_tree(vault) == before


def test_emoji_and_persian_joiners_are_kept(vault, vault_env):
    with case():
        for title in ("👩\u200d💻 Pairing notes", "می\u200cخواهم یاد بگیرم"):
            r = run_cli("remember", "--type", "learning", "--title", title, "--summary", f"About {title}.",
                        "--force", env=vault_env)
            assert r.returncode == 0, r.stderr


def test_body_file_with_a_nul_byte_is_refused(vault, vault_env, tmp_path):
    with case():
        body = tmp_path / "utf16.txt"
        body.write_bytes("hello from a UTF-16 file".encode("utf-16-le"))
        before = hash_tree(vault)
        r = run_cli("remember", "--type", "learning", "--title", "Nul body", "--summary", "A summary.",
                    "--body-file", str(body), env=vault_env)
        count("bad_inputs")
        assert r.returncode != 0
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: ") and "NUL" in lines[0], r.stderr
        assert hash_tree(vault) == before
