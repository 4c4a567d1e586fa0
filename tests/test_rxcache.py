"""rxcache: compiled patterns kept between processes are the patterns re.compile makes; a changed,
damaged or foreign file is compiled around and rewritten; nothing is written when nothing is new."""
from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys

import pytest

from memory_plugin.claude import capture, rxcache

PATTERNS = [(p, 0) for p in capture.CUES.values()] + [
    (r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.S), (r"(?P<word>[a-z]+)-(?P<num>\d+)|(x)", re.I | re.M)]


@pytest.fixture
def fresh(monkeypatch):
    """A process's first use of rxcache, in this test's cache root."""
    monkeypatch.setattr(rxcache, "_state", {})
    monkeypatch.setattr("atexit.register", lambda f: None)  # save() is called by hand here

    def start():
        rxcache._state.clear()
    return start


def test_kept_patterns_are_the_ones_re_compiles(fresh):
    fresh()
    cold = [rxcache.compile(p, f) for p, f in PATTERNS]
    assert len(rxcache._state["new"]) == len(PATTERNS)
    rxcache.save()
    assert rxcache.path().is_file()
    fresh()
    warm = [rxcache.compile(p, f) for p, f in PATTERNS]
    assert rxcache._state["new"] == {}  # all from the file
    for (p, f), a, b in zip(PATTERNS, cold, warm):
        ref = re.compile(p, f)
        assert a == ref and b == ref  # Pattern equality compares the pattern, the flags and the code
        assert (b.flags, b.groups, dict(b.groupindex)) == (ref.flags, ref.groups, dict(ref.groupindex))
    m = warm[-1].search("see ABC-12 here")
    assert m and m.group("word", "num") == ("ABC", "12")


def test_capture_answers_the_same_from_the_file(fresh):
    prompts = ["Remember: the payments API rate-limits at 100 requests per second.", "run the tests",
               "no, we use pnpm, not npm", "from now on in this function use i", "we decided to keep SQLite."]
    fresh()
    before = [capture.best(p, exhaustive=True) for p in prompts]
    fresh()
    capture._rx.clear()
    for p, f in PATTERNS[:len(capture.CUES)]:
        rxcache.compile(p, f)
    rxcache.save()
    fresh()
    capture._rx.clear()
    after = [capture.best(p, exhaustive=True) for p in prompts]
    assert rxcache._state["new"] == {}
    assert after == before


def test_a_changed_pattern_is_compiled_and_added(fresh):
    fresh()
    rxcache.compile(r"alpha|beta")
    rxcache.save()
    fresh()
    rx = rxcache.compile(r"alpha|gamma")
    assert list(rxcache._state["new"]) == [(r"alpha|gamma", 0)]
    assert rx == re.compile(r"alpha|gamma") and rx.search("a gamma ray")
    rxcache.save()
    entries = marshal.loads(rxcache.path().read_bytes())["entries"]
    assert set(entries) == {(r"alpha|beta", 0), (r"alpha|gamma", 0)}


@pytest.mark.parametrize("damage", ["garbage", "other_python", "bad_entry"])
def test_a_damaged_or_foreign_file_is_compiled_around(fresh, damage):
    fresh()
    p = rxcache.path()
    p.parent.mkdir(parents=True, exist_ok=True)
    if damage == "garbage":
        p.write_bytes(b"\x00not marshal")
    elif damage == "other_python":
        p.write_bytes(marshal.dumps({"version": "2.7.18", "entries": {("a+", 0): (0, b"", 0, {}, ())}}))
    else:  # code words _sre refuses
        p.write_bytes(marshal.dumps({"version": sys.version, "entries": {("a+", 0): (32, b"\xff" * 12, 0, {}, ())}}))
    rx = rxcache.compile("a+")
    assert rx == re.compile("a+") and rx.fullmatch("aaa")
    rxcache.save()
    fresh()
    assert rxcache.compile("a+") == re.compile("a+") and rxcache._state["new"] == {}


def test_nothing_is_written_when_nothing_is_new(fresh):
    fresh()
    rxcache.compile(r"x\d+")
    rxcache.save()
    before = rxcache.path().stat().st_mtime_ns
    os.utime(rxcache.path(), ns=(before - 10**9, before - 10**9))
    fresh()
    rxcache.compile(r"x\d+")
    rxcache.save()
    assert rxcache.path().stat().st_mtime_ns == before - 10**9


def test_the_file_stays_bounded(fresh, monkeypatch):
    monkeypatch.setattr(rxcache, "MAX_ENTRIES", 3)
    fresh()
    for w in ("a", "b", "c"):
        rxcache.compile(w + "+")
    rxcache.save()
    fresh()
    rxcache.compile("d+")
    rxcache.save()
    assert set(marshal.loads(rxcache.path().read_bytes())["entries"]) == {("d+", 0)}


def test_the_hook_writes_it_once_and_answers_the_same(tmp_path, isolated_home):
    """Two capture-only prompt hooks, as Claude Code runs them: the first writes the file (at exit,
    atomically), the second reads it; the same output."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nsome note\n")
    cfg = tmp_path / "config.yaml"
    cfg.write_text("prompt_recall: false\n")
    env = {**os.environ, "MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CONFIG": str(cfg)}
    inp = json.dumps({"session_id": "s", "prompt": "Remember: the payments API rate-limits at 100 requests per second."})
    runs = [subprocess.run([sys.executable, "-m", "memory_plugin", "hook", "user-prompt-submit"], input=inp,
                           capture_output=True, text=True, env=env) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and "states something to keep" in runs[0].stdout
    kept = list((isolated_home / ".cache" / "memory-plugin").glob("regex-*.marshal"))
    assert len(kept) == 1
    assert not list(kept[0].parent.glob(".*.tmp"))
