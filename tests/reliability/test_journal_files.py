"""The journal's files: nothing outside the vault through a symlink (folder or file), and one vault
lock for journal appends and note writes, so SessionEnds racing `remember --merge` lose nothing."""
from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

from conftest import run_cli
from rel_helpers import count, feed, held_locks, popen, run_bytes, wait_idle

CANARY = "CANARY-JOURNAL-OUTSIDE-7731"


def _session_end(env: dict, tmp_path: Path, sid: str, request: str = "hello") -> None:
    t = tmp_path / f"{sid}.jsonl"
    t.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": request}}) + "\n")
    r = run_bytes("hook", "session-end", data=json.dumps(
        {"session_id": sid, "cwd": str(tmp_path), "reason": "other", "transcript_path": str(t)}).encode(), env=env)
    assert r.returncode == 0 and r.stdout == "", r.stderr


def _todays_journal_cleared(vault: Path) -> Path:
    """Today's journal file's path, with nothing at it (the journal folder made)."""
    jdir = vault / "journal"
    jdir.mkdir(exist_ok=True)
    today = jdir / time.strftime("%Y-%m-%d.md")
    if today.exists() or today.is_symlink():
        today.unlink()
    return today


def _listing(root: Path) -> dict:
    return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in root.rglob("*")}


def test_journal_folder_symlinked_outside_is_refused(vault, cache_dir, tmp_path):
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    outside = tmp_path / "outside-journal"
    outside.mkdir()
    (outside / "keep.md").write_text(CANARY)
    jdir = vault / "journal"
    if jdir.exists():
        import shutil
        shutil.rmtree(jdir)
    jdir.symlink_to(outside, target_is_directory=True)
    before = _listing(outside)
    _session_end(env, tmp_path, "symdir01")
    assert _listing(outside) == before, "SessionEnd wrote through the symlinked journal folder"
    log = (cache_dir / "hooks.log").read_text()
    assert "session-end ERROR" in log and "outside the vault" in log
    assert "session-end" in json.loads((cache_dir / "errors.json").read_text())
    count("operations")
    count("leaks", int(_listing(outside) != before))


def test_journal_file_symlinked_outside_is_refused(vault, cache_dir, tmp_path):
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    secret = tmp_path / "secret.md"
    secret.write_text(f"---\ntype: note\n---\n{CANARY}\n")
    today = _todays_journal_cleared(vault)
    today.symlink_to(secret)
    _session_end(env, tmp_path, "symfil01")
    assert today.is_symlink(), "the symlink was replaced"
    assert secret.read_text() == f"---\ntype: note\n---\n{CANARY}\n"
    assert "symlink" in (cache_dir / "hooks.log").read_text()
    wait_idle(cache_dir)
    assert run_cli("sync", env=env).returncode == 0
    for p in cache_dir.rglob("*"):
        if p.is_file() and not p.name.startswith("hooks.log"):
            assert CANARY.encode() not in p.read_bytes(), p
    for p in vault.rglob("*.md"):
        if not p.is_symlink():
            assert CANARY not in p.read_text(errors="replace"), p
    count("operations")


def test_session_ends_racing_remember_merge_lose_nothing(vault, cache_dir, tmp_path):
    """SessionEnd hooks and `remember --merge journal/DAY.md` at the same instant, three rounds: every
    journal entry and every merged section is there afterwards (one lock for both writers)."""
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    day = time.strftime("%Y-%m-%d")
    jfile = vault / "journal" / f"{day}.md"
    jfile.parent.mkdir(exist_ok=True)
    # a long day: each remember --merge reads, diffs and rewrites it, which widens the race
    jfile.write_text(f"---\ntype: journal\ndate: {day}\ntags: [journal]\n---\n# {day}\n\n"
                     + "".join(f"- 00:{i % 60:02d} · project old · session old{i:05d} · other · no notes touched\n"
                               for i in range(3000)))
    assert run_cli("rebuild", env=env).returncode == 0
    want_sessions, want_merges = [], []
    for rnd in range(3):
        procs = []
        for i in range(10):
            sid = f"r{rnd}{i:06d}"
            t = tmp_path / f"{sid}.jsonl"
            t.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": f"req {sid}"}}) + "\n")
            data = json.dumps({"session_id": sid, "cwd": str(tmp_path), "reason": "other",
                               "transcript_path": str(t)}).encode()
            procs.append((popen("hook", "session-end", env=env), data))
            want_sessions.append(sid)
        for i in range(6):
            mark = f"mergemark{rnd}x{i}"
            procs.append((popen("remember", "--type", "learning", "--title", f"Merged {mark}", "--summary",
                                f"{mark} summary", "--merge", f"journal/{day}.md", env=env), b""))
            want_merges.append(mark)
        for p, data in procs:
            feed(p, data)
        for p, _ in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        count("operations", len(procs))
    assert wait_idle(cache_dir)
    text = jfile.read_text()
    lost = [s for s in want_sessions if f"session {s}" not in text] + [m for m in want_merges if m not in text]
    count("lost", len(lost))
    assert not lost, f"lost {len(lost)} of {len(want_sessions) + len(want_merges)}: {lost}"
    assert text.count("\n---\n") == 1 and text.startswith("---\n")
    assert not list((cache_dir / "journal-queue").glob("*.json")) if (cache_dir / "journal-queue").exists() else True
    assert not held_locks(cache_dir)


def test_a_journal_line_queued_behind_the_lock_is_appended_later(vault, cache_dir, tmp_path):
    """A SessionEnd that cannot get the vault lock in time queues its line; the next writer appends it."""
    from filelock import FileLock

    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    lock = FileLock(str(cache_dir / "vault.lock"))
    lock.acquire()
    try:
        _session_end(env, tmp_path, "queued01")
    finally:
        lock.release()
    assert list((cache_dir / "journal-queue").glob("*.json"))
    _session_end(env, tmp_path, "after001")
    text = (vault / "journal" / time.strftime("%Y-%m-%d.md")).read_text()
    assert text.index("session queued01") < text.index("session after001")
    assert not list((cache_dir / "journal-queue").glob("*.json"))
    count("operations", 2)


def test_a_line_queued_behind_a_commands_lock_is_appended_when_the_command_releases_it(vault, cache_dir, tmp_path):
    """remember (like supersede and reorganize) holds the same vault lock as SessionEnd: a line queued
    behind it is appended when the command releases the lock, not left for the next session's hook."""
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    q = cache_dir / "journal-queue"
    q.mkdir(exist_ok=True)
    rel = "journal/" + time.strftime("%Y-%m-%d.md")
    (q / "00000000000000000001-1.json").write_text(json.dumps({"rel": rel, "line": "- queued behind remember"}))
    r = run_cli("remember", "--type", "learning", "--title", "Hand over lesson", "--summary",
                "a queued journal line is appended by the lock holder", env=env)
    assert r.returncode == 0, r.stderr
    assert "- queued behind remember" in (vault / rel).read_text()
    assert not list(q.glob("*.json"))
    count("operations", 1)


def test_a_fifo_in_the_journal_files_place_does_not_hang_session_end(vault, cache_dir, tmp_path):
    """A named pipe where today's journal note should be: SessionEnd refuses it at once (a blocking
    open would hang the hook until Claude Code kills it), says so in the log, and leaves it a pipe."""
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    today = _todays_journal_cleared(vault)
    os.mkfifo(today)
    r = run_bytes("hook", "session-end", data=json.dumps(
        {"session_id": "fifo0001", "cwd": str(tmp_path), "reason": "other"}).encode(), env=env, timeout=20)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    assert stat.S_ISFIFO(os.lstat(today).st_mode)
    assert "not a regular file" in (cache_dir / "hooks.log").read_text()
    count("operations")
