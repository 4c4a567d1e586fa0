"""The smaller points of the second probe: a symlinked folder is one note for rebuild and hooks alike,
a private note is never named or shown by an error, an ambiguity list or a diff, large-note work
is one queue per vault, JSON of any depth that does not decode is "not JSON", and a stamp in the
future is stale."""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from conftest import run_cli
from rel_helpers import case, count, fresh_snapshot, run_bytes, snap, wait_idle

HOOKS = ("session-start", "user-prompt-submit", "post-tool-use", "session-end")


def _env(vault: Path, cache: Path) -> dict:
    return {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}


def _hook(event: str, payload: dict | bytes, env: dict):
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    r = run_bytes("hook", event, data=data, env=env, timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return r


# ---------------------------------------------------------------- symlinks inside the vault

def _alias_vault(root: Path, real: str, alias: str, alias_first: bool, file_alias: bool) -> Path:
    """A vault with `real/Tide.md` reached through a folder symlink `alias -> real` (made before or
    after the folder: directory order follows creation on some file systems, names on others) and,
    with `file_alias`, a note symlink `Shortcut.md -> real/Tide.md`."""
    v = root / "vault"
    v.mkdir(parents=True)
    if alias_first:
        (v / alias).symlink_to(real, target_is_directory=True)
    (v / real).mkdir()
    if not alias_first:
        (v / alias).symlink_to(real, target_is_directory=True)
    (v / real / "Tide.md").write_text("# Tide\n\nThe tide table. See [[Home]].\n")
    (v / "Home.md").write_text("# Home\n\nStart at [[Tide]].\n")
    if file_alias:
        (v / "Shortcut.md").symlink_to(Path(real) / "Tide.md")
    return v


LAYOUTS = [("a", "b", False, False), ("a", "b", True, False), ("b", "a", False, False),
           ("b", "a", True, False), ("a", "b", False, True)]


def test_a_symlink_inside_the_vault_is_one_note_for_rebuild_and_hooks(tmp_path):
    """The real path wins: rebuild indexes the note once, under its real path, whatever the order
    the folders are listed in; an edit through the alias (folder or file) reaches that note, and
    the index then equals a rebuild from scratch."""
    for i, (real, alias, alias_first, file_alias) in enumerate(LAYOUTS):
        with case():
            root = tmp_path / f"layout{i}"
            vault = _alias_vault(root, real, alias, alias_first, file_alias)
            cache = root / "cache"
            env = _env(vault, cache)
            r = run_cli("rebuild", env=env)
            assert r.returncode == 0, r.stderr
            paths = {row[0] for row in _rows(cache, "SELECT path FROM notes")}
            assert paths == {"Home.md", f"{real}/Tide.md"}, paths
            via = vault / ("Shortcut.md" if file_alias else f"{alias}/Tide.md")
            via.write_text("# Tide\n\nThe tide table, edited through the alias. See [[Home]].\n")
            _hook("post-tool-use", {"session_id": "s1", "tool_name": "Edit", "hook_event_name": "PostToolUse",
                                    "tool_input": {"file_path": str(via)}}, env)
            assert wait_idle(cache)
            assert {row[0] for row in _rows(cache, "SELECT path FROM notes")} == {"Home.md", f"{real}/Tide.md"}
            assert snap(cache) == fresh_snapshot(vault, root / "fresh"), "index differs from a rebuild"
            count("operations")


def _rows(cache: Path, sql: str, args: tuple = ()) -> list[tuple]:
    from memory_plugin.index import store as I

    conn = I.connect(cache / "index.sqlite")
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


# ---------------------------------------------------------------- private notes in errors and diffs

SECRET_FOLDER = "Zqvault"
SECRET_TEXT = "Zqxsecret"


def _namesake_vault(vault: Path) -> None:
    (vault / "Public").mkdir(parents=True)
    (vault / "Other").mkdir()
    (vault / SECRET_FOLDER).mkdir()
    (vault / "Home.md").write_text("# Home\n\nSee [[Public/Twin]] and [[Trio]].\n")
    (vault / "Public" / "Twin.md").write_text("# Twin\n\nThe public twin. Back to [[Home]].\n")
    (vault / "Public" / "Trio.md").write_text("# Trio\n\nOne of three.\n")
    (vault / "Other" / "Trio.md").write_text("# Trio\n\nTwo of three.\n")
    for name in ("Twin", "Trio"):
        (vault / SECRET_FOLDER / f"{name}.md").write_text(
            f"---\nprivate: true\n---\n# {name}\n\n{SECRET_TEXT} {name.lower()} body.\n")
    (vault / SECRET_FOLDER / "Hidden plan.md").write_text(
        f"---\ntype: decision\nprivate: true\ncodename: {SECRET_TEXT}-code\nstatus: current\n---\n"
        f"# Hidden plan\n\nFirst line.\nLast line of {SECRET_TEXT} plan.\n")


def _no_secret(r, what: str) -> None:
    out = r.stdout + r.stderr
    assert SECRET_FOLDER not in out and SECRET_TEXT not in out, f"{what} names the private note: {out!r}"


def test_a_private_namesake_is_never_named_in_an_ambiguity_list(tmp_path):
    vault = tmp_path / "vault"
    _namesake_vault(vault)
    env = _env(vault, tmp_path / "cache")
    assert run_cli("rebuild", env=env).returncode == 0
    with case():  # one public note and a private one of the same name: the public one, no list
        for args in (("explain", "Twin"), ("explain", "Twin", "--json"), ("backlinks", "Twin"),
                     ("path", "Home", "Twin")):
            r = run_cli(*args, env=env)
            _no_secret(r, " ".join(args))
            assert r.returncode == 0 and "ambiguous" not in r.stderr, (args, r.stderr)
            assert "Public/Twin.md" in r.stdout, (args, r.stdout)
        r = run_cli("remember", "--type", "note", "--title", "Tide notes", "--summary", "Tides.",
                    "--link", "Twin", "--dry-run", "--no-project", env=env)
        _no_secret(r, "remember --link")
        assert r.returncode == 0 and "related: Public/Twin.md" in r.stdout, r.stdout + r.stderr
    with case():  # two public notes and a private one: the list names the two public ones only
        for args in (("explain", "Trio"), ("backlinks", "Trio"), ("path", "Home", "Trio"),
                     ("remember", "--type", "note", "--title", "Tide notes", "--summary", "Tides.",
                      "--link", "Trio", "--dry-run", "--no-project")):
            r = run_cli(*args, env=env)
            _no_secret(r, " ".join(args))
            assert r.returncode != 0 and "ambiguous: Other/Trio.md, Public/Trio.md: give the path" in r.stderr, \
                (args, r.stderr)
    with case():  # a link made ambiguous only by the private namesake is not reported as ambiguous
        info = json.loads(run_cli("explain", "Home", "--json", env=env).stdout)
        assert not [l for l in info["outgoing"] if l["target"] and l["ambiguous"]
                    and l["target"].endswith("Twin.md")], info["outgoing"]


def test_a_title_taken_by_a_private_note_says_taken_and_nothing_more(tmp_path):
    vault = tmp_path / "vault"
    _namesake_vault(vault)
    env = _env(vault, tmp_path / "cache")
    assert run_cli("rebuild", env=env).returncode == 0
    before = (vault / SECRET_FOLDER / "Hidden plan.md").read_bytes()
    with case():
        for extra in ((), ("--force",), ("--dry-run",)):
            r = run_cli("remember", "--type", "decision", "--title", "hidden PLAN", "--summary", "A plan.",
                        "--no-project", *extra, env=env)
            assert r.returncode != 0 and r.stderr.strip() == "Error: that title is taken: choose another", \
                (extra, r.stderr)
            _no_secret(r, "remember --title")
            assert "--merge" not in r.stdout + r.stderr
        assert sorted(p.name for p in vault.rglob("*.md")).count("hidden PLAN.md") == 0
    with case():  # the user names the private note: the change is shown, the note's text is not
        for args in (("remember", "--type", "decision", "--title", "Addendum", "--summary", "More to it.",
                      "--merge", f"{SECRET_FOLDER}/Hidden plan.md", "--dry-run"),
                     ("remember", "--type", "decision", "--title", "Addendum", "--summary", "More to it.",
                      "--merge", f"{SECRET_FOLDER}/Hidden plan.md", "--dry-run", "--json"),
                     ("retract", f"{SECRET_FOLDER}/Hidden plan.md", "--dry-run"),
                     ("validate", f"{SECRET_FOLDER}/Hidden plan.md", "--dry-run", "--json")):
            r = run_cli(*args, env=env)
            assert r.returncode == 0, (args, r.stderr)
            out = r.stdout + r.stderr
            assert SECRET_TEXT not in out and "First line" not in out and "private: true" not in out, (args, out)
            assert "More to it." in out or "retracted" in out or "last_validated" in out, (args, out)
        assert (vault / SECRET_FOLDER / "Hidden plan.md").read_bytes() == before


# ---------------------------------------------------------------- the large-note queue

def _workers(cache: Path) -> list[int]:
    """Detached workers (`hook worker ...`) of this cache dir, found in /proc."""
    mine = f"MEMORY_PLUGIN_CACHE_DIR={cache}".encode()
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if b"hook" not in argv or b"worker" not in argv:
                continue
            if mine in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                out.append(int(pid))
        except OSError:
            continue
    return out


def test_thirty_edits_of_large_notes_start_one_worker_at_a_time(tmp_path):
    from memory_plugin.claude.hooks import INLINE_NOTE_BYTES

    vault, cache = tmp_path / "vault", tmp_path / "cache"
    (vault / "Big").mkdir(parents=True)
    filler = ("Tide tables and harbour notes, line after line. " * 20 + "\n") * (INLINE_NOTE_BYTES // 900 + 8)
    for i in range(30):
        (vault / "Big" / f"Log {i:02d}.md").write_text(f"# Log {i:02d}\n\n{filler}")
    (vault / "Home.md").write_text("# Home\n\n" + " ".join(f"[[Log {i:02d}]]" for i in range(30)) + "\n")
    env = _env(vault, cache)
    assert run_cli("rebuild", env=env).returncode == 0
    assert wait_idle(cache)
    for i in range(30):
        note = vault / "Big" / f"Log {i:02d}.md"
        note.write_text(note.read_text() + f"\nEdited: marker{i:02d}qz.\n")
        assert note.stat().st_size > INLINE_NOTE_BYTES
    seen: list[int] = []
    peak = [0]
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            pids = _workers(cache)
            peak[0] = max(peak[0], len(pids))
            seen.extend(p for p in pids if p not in seen)
            time.sleep(0.01)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    with case():
        try:
            procs = []
            for i in range(30):
                payload = {"session_id": "big", "tool_name": "Edit", "hook_event_name": "PostToolUse",
                           "tool_input": {"file_path": str(vault / "Big" / f"Log {i:02d}.md")}}
                procs.append(threading.Thread(target=_hook, args=("post-tool-use", payload, env)))
            for p in procs:
                p.start()
            for p in procs:
                p.join(timeout=180)
            end = time.time() + 240
            quiet_since = None
            while time.time() < end:
                if _workers(cache):
                    quiet_since = None
                else:
                    quiet_since = quiet_since or time.time()
                    if time.time() - quiet_since > 1.5:
                        break
                time.sleep(0.05)
        finally:
            stop.set()
            t.join()
        count("operations", 30)
        assert peak[0] <= 1, f"{peak[0]} detached workers at once for 30 edits ({len(seen)} in all)"
        assert not _workers(cache), "a worker is still running"
        bodies = " ".join(b for (b,) in _rows(cache, "SELECT body FROM fts"))
        missing = [i for i in range(30) if f"marker{i:02d}qz" not in bodies]
        assert not missing, f"edits never indexed: {missing}"
        assert snap(cache) == fresh_snapshot(vault, tmp_path / "fresh")


# ---------------------------------------------------------------- bad JSON of any depth

@pytest.mark.parametrize("shape", ["array", "object"])
def test_json_nested_200k_deep_is_not_json_for_every_hook(vault, cache_dir, shape):
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    n = 200_000
    data = (b"[" * n + b"]" * n) if shape == "array" else \
        (b'{"tool_input": ' + b'{"a": ' * n + b"1" + b"}" * n + b"}")
    for event in HOOKS:
        with case():
            log = cache_dir / "hooks.log"
            seen = log.read_text() if log.exists() else ""
            r = _hook(event, data, env)
            if event == "session-start":
                out = json.loads(r.stdout)
                assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
            else:
                assert r.stdout == ""
            new = log.read_text()[len(seen):]
            assert f"{event} ERROR ValueError: hook input is not JSON" in new, new
            assert "RecursionError" not in new and "RecursionError" not in r.stdout, new
            count("bad_inputs")


# ---------------------------------------------------------------- a stamp in the future

@pytest.mark.parametrize("stamps", [("rebuild.stamp",), ("rebuild.stamp", "sync.stamp")])
def test_a_stamp_in_the_future_is_stale(vault_env, cache_dir, stamps):
    """The clock jumped back: a rebuild.stamp (or every stamp) a year ahead. SessionStart starts the
    rebuild, the brief does not call the memory fresh, and once rebuilt it is fresh again."""
    with case():
        ahead = time.time() + 365 * 86400
        for s in stamps:
            os.utime(cache_dir / s, (ahead, ahead))
        r = _hook("session-start", {"session_id": "s", "source": "startup", "hook_event_name": "SessionStart"},
                  vault_env)
        text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "a background rebuild has started" in text, text
        assert "(fresh)" not in text and "(stale)" in text, text
        end = time.time() + 120
        while os.stat(cache_dir / "rebuild.stamp").st_mtime > time.time() + 60 and time.time() < end:
            time.sleep(0.1)
        assert os.stat(cache_dir / "rebuild.stamp").st_mtime <= time.time() + 60, "the rebuild never ran"
        assert wait_idle(cache_dir)
        r = _hook("session-start", {"session_id": "s2", "source": "startup", "hook_event_name": "SessionStart"},
                  vault_env)
        text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "(fresh)" in text and "a background sync has started" in text, text


def test_doctor_does_not_call_an_index_synced_in_the_future_fresh(vault_env, cache_dir):
    import sqlite3

    with case():
        db = sqlite3.connect(cache_dir / "index.sqlite")
        db.execute("UPDATE meta SET value = ? WHERE key = 'synced_at'", (str(time.time() + 365 * 86400),))
        db.commit()
        db.close()
        r = run_cli("doctor", "--json", env=vault_env)
        check = next(c for c in json.loads(r.stdout) if "index holds" in c["check"])
        assert not check["ok"] and "unknown time" in check["check"], check
