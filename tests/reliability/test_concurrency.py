"""Many processes at once: hooks, rebuilds and writes never lose or interleave anything."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import gen_vault, run_cli
from rel_helpers import count, feed, fresh_snapshot, has_command, held_locks, popen, snap, wait_idle

ENTRY = re.compile(r'^- \d\d:\d\d · project (\S+) · session (\S{1,8}) · (\w+) · "(req-\d+-\d+) [a-z ]+"$')


def _transcript(path: Path, text: str) -> str:
    path.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n")
    return str(path)


def test_16_session_ends_at_once_lose_and_interleave_nothing(vault_env, vault, cache_dir, tmp_path):
    day = vault / "journal" / time.strftime("%Y-%m-%d.md")
    before = day.read_text() if day.exists() else ""
    expected = set()
    walls = []
    for rnd in range(3):
        procs = []
        for i in range(16):
            sid = f"r{rnd}p{i:02d}xx-session"
            req = f"req-{rnd}-{i} please look at the queue"
            payload = {"session_id": sid, "reason": "prompt_input_exit", "cwd": str(tmp_path / "atlas"),
                       "hook_event_name": "SessionEnd",
                       "transcript_path": _transcript(tmp_path / f"t{rnd}-{i}.jsonl", req)}
            expected.add(f"req-{rnd}-{i}")
            procs.append((popen("hook", "session-end", env=vault_env), json.dumps(payload).encode()))
        time.sleep(0.5)  # all 16 are up and blocked on stdin: release them together
        t0 = time.time()
        for p, data in procs:
            feed(p, data)
        for p, _ in procs:
            out, err = p.communicate(timeout=60)
            walls.append(time.time() - t0)
            assert p.returncode == 0 and out == b"" and b"Traceback" not in err
        count("operations", 16)
    text = day.read_text()
    assert text.startswith(before) if before else text.startswith("---\ntype: journal\n")
    assert text.count("\n---\n") + text.startswith("---\n") <= 2  # one frontmatter block
    new_lines = [l for l in text[len(before):].splitlines() if l.strip()]
    if not before:
        new_lines = [l for l in new_lines if l.startswith("- ")]
    got = []
    for line in new_lines:
        m = ENTRY.match(line)
        assert m, f"malformed or interleaved journal line: {line!r}"
        got.append(m.group(4))
    lost = expected - set(got)
    count("lost", len(lost))
    count("entries_checked", len(got))
    assert not lost, f"journal entries lost: {sorted(lost)}"
    assert len(got) == len(set(got)) == 48, "an entry was written twice"
    # every entry also reaches the index (queued behind the lock holder when busy)
    from memory_plugin.index import store as I

    def missing_from_index():
        conn = I.connect(cache_dir / "index.sqlite")
        try:
            row = conn.execute("SELECT f.body FROM fts f JOIN notes n ON n.id=f.rowid WHERE n.path=?",
                               (str(day.relative_to(vault)),)).fetchone()
        finally:
            conn.close()
        return [r for r in expected if not row or r not in row[0]]

    end = time.time() + 90  # the journal is indexed by detached workers, one after the other
    while missing_from_index() and time.time() < end:
        time.sleep(0.2)
    assert wait_idle(cache_dir)
    missing = missing_from_index()
    count("lost", len(missing))
    assert not missing, f"entries in the journal file but not in the index: {missing[:5]}"
    assert not held_locks(cache_dir)
    count("detail:session_end_max_wall_ms_16_at_once", int(max(walls) * 1000))


@pytest.mark.parametrize("delay", [0.0, 0.25, 0.6])
def test_post_tool_use_during_rebuild_equals_fresh_rebuild(tmp_path, cache_dir, delay):
    vault = gen_vault(tmp_path / "v", 1200, 7)
    env = {"MEMORY_PLUGIN_VAULT": str(vault)}
    assert run_cli("rebuild", env=env).returncode == 0
    notes = sorted(p for p in vault.rglob("*.md") if ".groundtruth" not in p.parts)
    targets = notes[::150][:8]
    rb = popen("rebuild", env=env)
    feed(rb)
    time.sleep(delay)
    hooks = []
    for i, p in enumerate(targets):
        with open(p, "a", encoding="utf-8") as f:
            f.write(f"\nEdited during rebuild {i}: see [[{notes[i].stem}]] and [[Brand new {i}]]\n#edited/x{i}\n")
        payload = {"session_id": f"edit{i}", "tool_name": "Edit", "tool_input": {"file_path": str(p)}}
        h = popen("hook", "post-tool-use", env=env)
        feed(h, json.dumps(payload).encode())
        hooks.append(h)
    new = vault / "Brand new 0.md"
    new.write_text("# Brand new 0\nwritten while the index was being rebuilt [[Brand new 1]]\n")
    h = popen("hook", "post-tool-use", env=env)
    feed(h, json.dumps({"session_id": "edit-new", "tool_input": {"file_path": str(new)}}).encode())
    hooks.append(h)
    for h in hooks + [rb]:
        out, err = h.communicate(timeout=120)
        assert h.returncode == 0 and b"Traceback" not in err, err
    count("operations", len(hooks) + 1)
    assert wait_idle(cache_dir)
    got = snap(cache_dir)
    want = fresh_snapshot(vault, tmp_path / "fresh")
    diff = {k: (len(set(want[k]) - set(got[k])) if isinstance(want[k], list) else want[k] - got[k])
            for k in want if got[k] != want[k]}
    count("lost", sum(abs(v) for v in diff.values()))
    assert got == want, f"index differs from a fresh rebuild: {diff}"
    assert not held_locks(cache_dir)


SITECUSTOMIZE = textwrap.dedent('''
    import os
    _f = os.environ.get("MP_REBUILD_COUNTER")
    if _f:
        import memory_plugin.index.store as _I
        _orig = _I._rebuild_locked
        def _counted(cfg, progress):
            with open(_f, "a") as fh:
                fh.write(f"{os.getpid()}\\n")
            return _orig(cfg, progress)
        _I._rebuild_locked = _counted
''')


def test_two_session_starts_with_no_index_start_one_rebuild(vault, cache_dir, tmp_path):
    """Observable: a sitecustomize in the hook's environment counts calls of index._rebuild_locked
    (the full build) across every process, the detached workers included."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    rounds, rebuilds = 4, []
    for rnd in range(rounds):
        cdir = tmp_path / f"cache{rnd}"
        counter = tmp_path / f"rebuilds{rnd}.txt"
        env = {"MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cdir),
               "PYTHONPATH": str(site), "MP_REBUILD_COUNTER": str(counter)}
        procs = [popen("hook", "session-start", env=env) for _ in range(2)]
        time.sleep(0.4)
        for p in procs:
            feed(p, json.dumps({"session_id": "s", "source": "startup", "cwd": "/"}).encode())
        for p in procs:
            out, _ = p.communicate(timeout=60)
            assert p.returncode == 0
            text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            # one builds the small vault inline; the other waits for nothing: it briefs from the
            # notes' files while that build holds the lock, or from the index once it is done
            assert "being built" in text or "## Conventions" in text
        end = time.time() + 60
        while time.time() < end and not ((cdir / "brief.json").exists() and (cdir / "rebuild.stamp").exists()):
            time.sleep(0.05)
        assert wait_idle(cdir)
        time.sleep(1.0)
        assert wait_idle(cdir)
        n = len(counter.read_text().split()) if counter.exists() else 0
        rebuilds.append(n)
        count("operations", 2)
    count("detail:rebuilds_per_two_session_starts", max(rebuilds))
    assert rebuilds == [1] * rounds, f"full rebuilds started per pair of SessionStarts: {rebuilds}"


def test_remember_from_8_processes(vault_env, vault, cache_dir):
    if not has_command("remember"):
        pytest.skip("`memory-plugin remember` does not exist yet (issue 4)")
    before = {p for p in vault.rglob("*.md")}
    titles = ["Kafka retention window", "Postgres vacuum tuning", "Nginx buffer sizes", "Terraform state locking",
              "Redis eviction policy", "Gradle daemon memory", "Celery prefetch multiplier", "Webpack chunk hashing"]
    procs = []
    for i, t in enumerate(titles):
        summary = f"{t}: fact {i * 7919} that only this note records."
        procs.append(popen("remember", "--type", "learning", "--title", t, "--summary", summary,
                           "--json", env=vault_env))
    for p in procs:
        feed(p)
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
        assert b"Traceback" not in err
        results.append(json.loads(out))
    count("operations", 8)
    new = sorted(set(vault.rglob("*.md")) - before)
    names = [p.stem for p in new if not p.parts[-2] == "journal"]
    lost = [t for t in titles if t not in names]
    count("lost", len(lost))
    assert not lost, f"notes lost: {lost}; created {names}"
    assert len(names) == 8, f"duplicates or extras: {names}"
    for p in new:
        text = p.read_text(encoding="utf-8")
        assert text.startswith("---\n") and text.count("\n---\n") >= 1 and text.endswith("\n"), p
        import yaml
        fm = yaml.safe_load(text.split("\n---\n", 1)[0][4:])
        assert fm["type"] == "learning" and fm.get("summary"), p
    assert not list(vault.rglob(".*.tmp")), "temp files left in the vault"
    assert wait_idle(cache_dir)
    conn = __import__("memory_plugin.index.store", fromlist=["x"]).connect(cache_dir / "index.sqlite")
    indexed = {r[0] for r in conn.execute("SELECT title FROM notes")} & set(titles)
    conn.close()
    assert indexed == set(titles)
