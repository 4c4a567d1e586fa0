"""Claude Code hook entry points: read stdin, do the work, print the one allowed shape, exit 0.

Hooks never fail a session. Every error is logged with a timestamp to hooks.log in the cache dir,
kept in errors.json until the same hook succeeds again, and shown in the next SessionStart brief.
Nothing heavy (click, networkx, yaml unless there is a config file) is imported on these paths.
"""
from __future__ import annotations

import json
import os
import sys
import time

MAX_STDIN = 16 * 1024 * 1024
# PostToolUse indexes a note this size or smaller itself (well inside its 150 ms on an idle machine);
# a bigger one goes to a detached worker, bounded by note_seconds and worker_seconds.
INLINE_NOTE_BYTES = 512 * 1024
# Above this many notes PostToolUse and the CLI's write commands leave the brief's refresh to a
# detached worker: collecting it reads every supersedes link and makes the project catalogue again,
# about 60 µs a note (0.6 s at 10,000: bench/bench_query.py's `remember`), so inline only while it
# fits well inside PostToolUse's 150 ms and `remember`'s 300 ms.
BRIEF_INLINE_MAX_NOTES = 2_000
DISABLE = "MEMORY_PLUGIN_DISABLE"
CODE_REPO_ENV = "MEMORY_PLUGIN_SESSION_CWD"  # SessionStart's working folder, for its worker (code baselines)


# ---------------------------------------------------------------- plumbing

def _emit_context(text: str) -> None:
    out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    sys.stdout.write(json.dumps(out, ensure_ascii=False))
    sys.stdout.flush()


def _fallback_log_dir() -> str:
    from ..core.config import cache_root

    return os.environ.get("MEMORY_PLUGIN_CACHE_DIR") or str(cache_root())


def log(cache_dir: str | None, hook: str, level: str, message: str) -> None:
    d = cache_dir or _fallback_log_dir()
    try:
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, "hooks.log")
        try:
            if os.path.getsize(p) > 2_000_000:
                os.replace(p, p + ".1")
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        line = f"{stamp} {hook} {level} {' '.join(str(message).split())[:2000]}\n"
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8", errors="replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def _errors_path(cache_dir: str) -> str:
    return os.path.join(cache_dir, "errors.json")


def read_errors(cache_dir: str | None) -> dict:
    try:
        with open(_errors_path(cache_dir or _fallback_log_dir()), encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _set_error(cache_dir: str | None, hook: str, message: str | None) -> None:
    """Record (message) or clear (None) the unresolved error of one hook."""
    d = cache_dir or _fallback_log_dir()
    if message is None and all(k != hook and (k in HANDLERS or k == "background") for k in read_errors(d)):
        return  # nothing to clear (the common case: no file to write)
    try:
        from ..core.fsutil import atomic_write, file_lock

        os.makedirs(d, exist_ok=True)
        with file_lock(os.path.join(d, "errors.lock"), timeout=2):
            errs = read_errors(d)
            if message is None:
                errs.pop(hook, None)
                for k in [k for k in errs if k not in HANDLERS and k != "background"]:
                    errs.pop(k)  # left by an older version for an event that never runs (`hook --help`)
            else:
                errs[hook] = {"time": time.time(), "message": message}
            atomic_write(_errors_path(d), json.dumps(errs))
    except Exception:  # diagnostics must never break a hook
        pass


def latest_error(cache_dir: str | None) -> str | None:
    errs = read_errors(cache_dir)
    if not errs:
        return None
    hook, e = max(errs.items(), key=lambda kv: kv[1].get("time", 0) if isinstance(kv[1], dict) else 0)
    if not isinstance(e, dict):
        return None
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.get("time", 0)))
    return f"{hook} hook at {when}: {e.get('message')}"


def typed_by_hand() -> bool:
    """stdin is a terminal: a person typed `memory-plugin hook ...` (Claude Code always pipes the JSON)."""
    try:
        return bool(sys.stdin) and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def _read_stdin() -> str:
    try:
        data = sys.stdin.buffer.read(MAX_STDIN + 1) if sys.stdin else b""
    except (OSError, ValueError):
        return ""
    return data.decode("utf-8", errors="replace")


def project_name(cwd) -> str:
    """The git top-level folder's name, else the working directory's name (index/project.py's walk)."""
    from ..core.paths import git_top

    if not isinstance(cwd, str) or not cwd:
        cwd = os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    d = os.path.abspath(cwd)
    top = git_top(d)
    return os.path.basename(top or d) or d


def _cwd(cwd) -> str | None:
    return cwd if isinstance(cwd, str) and cwd else None


def _sessions_dir(cache_dir: str) -> str:
    return os.path.join(cache_dir, "sessions")


def _session_file(cache_dir: str, session_id) -> str:
    sid = "".join(c for c in str(session_id or "unknown") if c.isalnum() or c in "-_")[:80] or "unknown"
    return os.path.join(_sessions_dir(cache_dir), sid + ".txt")


# Detached workers run at this niceness and at the lowest best-effort I/O priority (Linux): a sync or an
# embedding must leave the cores and the disk to the session that started it (SessionStart's worker
# took a core from the hook composing the brief). 10, as `nice` gives with no option.
WORKER_NICE = 10
# ioprio_set and ioprio_get by machine (Linux has no libc wrapper for them); elsewhere only the niceness.
IOPRIO_SYSCALLS = {"x86_64": (251, 252), "aarch64": (30, 31), "riscv64": (30, 31)}
IOPRIO_BE_LOWEST = (2 << 13) | 7  # class best-effort (2), level 7 (the lowest)


def start_worker(cfg, mode: str, *args: str, keep_fd: int | None = None) -> None:
    """A fully detached `sync` or `rebuild` (double fork, new session, no inherited pipes) at
    WORKER_NICE from its first instruction: this hook never waits for it, and Claude Code's pipes
    close when the hook exits. `keep_fd` (a lock this hook holds) is handed to the worker as fd 3, so
    the lock passes to it with no moment unheld."""
    env = dict(os.environ)
    env["MEMORY_PLUGIN_VAULT"] = str(cfg.vault_str)
    env["MEMORY_PLUGIN_CACHE_DIR"] = cfg.cache_str
    argv = [sys.executable, "-m", "memory_plugin", "hook", "worker", mode, *args]
    sys.stdout.flush()
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:  # first child: leave the session, fork the worker, exit at once
        os.setsid()
        if os.fork():
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        if keep_fd is not None:
            if keep_fd != HANDED_FD:
                os.dup2(keep_fd, HANDED_FD)
            os.set_inheritable(HANDED_FD, True)
        os.closerange(3 if keep_fd is None else HANDED_FD + 1, 4096)
        os.chdir(cfg.cache_str)
        # Niced last, then exec at once: until then the hook's pages are shared copy-on-write, and a
        # child waiting for the CPU would make the exiting hook copy each page it touches.
        try:
            os.nice(max(0, WORKER_NICE - os.nice(0)))
        except OSError:
            pass
        os.execve(sys.executable, argv, env)
    finally:
        os._exit(0)


def lower_priority() -> None:
    """This process (and what it starts) at WORKER_NICE and the lowest best-effort I/O priority, never
    raised from lower ones; what the platform refuses is left as it is."""
    try:
        os.nice(max(0, WORKER_NICE - os.nice(0)))
    except OSError:
        pass
    calls = IOPRIO_SYSCALLS.get(os.uname().machine) if sys.platform.startswith("linux") else None
    if calls is None:
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        now = libc.syscall(calls[1], 1, 0)  # IOPRIO_WHO_PROCESS, this process
        if now >= 0 and now >> 13 != 3:  # class idle (3) is lower already
            libc.syscall(calls[0], 1, 0, IOPRIO_BE_LOWEST)
    except Exception:  # noqa: BLE001 - a priority we cannot lower costs nothing but speed
        pass


# ---------------------------------------------------------------- the large-note queue
# A note over INLINE_NOTE_BYTES is indexed by a detached worker. One worker per edit would start
# thirty at once for thirty edits (hundreds of MB), so the vault has one queue (JSON lines, each
# append and each take under flock on the queue file) and one drainer, which holds LARGE_LOCK
# for its whole life: a hook appends, then starts a drainer only when it can take that lock itself,
# and hands its lock to the drainer (fd 3). A drainer that finds the queue empty lets the lock go
# and looks once more, so an edit queued while it was finishing is never left behind.

LARGE_QUEUE = "large-notes.queue"
LARGE_LOCK = "large-notes.lock"
HANDED_FD = 3


def _queue_large(cfg, rel: str) -> None:
    import fcntl

    cache = cfg.cache_str
    fd = os.open(os.path.join(cache, LARGE_QUEUE), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, (json.dumps(rel) + "\n").encode("utf-8"))
    finally:
        os.close(fd)
    lock = _try_lock(os.path.join(cache, LARGE_LOCK))
    if lock is None:
        return  # the drainer at work reads the queue again before it exits
    try:
        start_worker(cfg, "queue", keep_fd=lock)
    finally:
        os.close(lock)  # the worker holds its own copy of the lock


def _try_lock(path: str) -> int | None:
    """An fd holding an exclusive flock on `path`, or None when another process holds it."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _take_queue(cache: str) -> list[str]:
    """Everything queued (each path once, in order), leaving the queue empty."""
    import fcntl

    try:
        fd = os.open(os.path.join(cache, LARGE_QUEUE), os.O_RDWR)
    except FileNotFoundError:
        return []
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        os.ftruncate(fd, 0)
    finally:
        os.close(fd)
    rels: list[str] = []
    for line in b"".join(chunks).decode("utf-8", errors="replace").splitlines():
        try:
            rel = json.loads(line)
        except ValueError:
            continue
        if isinstance(rel, str) and rel not in rels:
            rels.append(rel)
    return rels


def _requeue(cache: str, rels: list[str]) -> None:
    import fcntl

    fd = os.open(os.path.join(cache, LARGE_QUEUE), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, "".join(json.dumps(r) + "\n" for r in rels).encode("utf-8"))
    finally:
        os.close(fd)


def _queued(cache: str) -> bool:
    try:
        return os.path.getsize(os.path.join(cache, LARGE_QUEUE)) > 0
    except OSError:
        return False


def _handed_lock(cache: str) -> int | None:
    """The drainer's lock: fd 3 when the hook handed it over, else taken here (None: another drainer)."""
    path = os.path.join(cache, LARGE_LOCK)
    try:
        st, mine = os.stat(path), os.fstat(HANDED_FD)
        if (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino):
            return HANDED_FD
    except OSError:
        pass
    return _try_lock(path)


def _drain_large(cfg) -> bool:
    """Index what the queue holds until it stays empty; True when something was indexed."""
    from ..index import store as index
    from ..outputs import pipeline

    cache = cfg.cache_str
    lock = _handed_lock(cache)
    changed = False
    while lock is not None:
        rels = _take_queue(cache)
        if not rels:
            os.close(lock)
            lock = _try_lock(os.path.join(cache, LARGE_LOCK)) if _queued(cache) else None
            continue
        try:
            rels = [r for r in rels if index.to_rel(cfg, r) == r]  # moved out of the vault meanwhile: not ours
            try:
                stats = index.reindex(cfg, rels, lock_timeout=60)
            except index.IndexMissing:
                stats = pipeline.sync(cfg, lock_timeout=60)
        except BaseException:
            if not _cache_gone(cache):
                _requeue(cache, rels)  # the next drainer (the next large edit) tries them again
            raise
        changed = changed or bool(stats.get("reindexed") or stats.get("removed") or stats.get("rebuilt"))
    return changed


def _rebuild_due(cfg) -> bool:
    """The weekly rebuild is due: the last one is older than rebuild_after_days, or its stamp lies in
    the future (the clock was wrong or jumped back since), so its age is unknown."""
    from ..outputs.brief import CLOCK_SLACK

    try:
        age = time.time() - os.stat(cfg.cache_file("rebuild.stamp")).st_mtime
    except OSError:
        return True
    return age < -CLOCK_SLACK or age > cfg.rebuild_after_days * 86400


def _load_cfg():
    from ..core.config import load_config

    return load_config()


def _configured_cache_dir() -> str | None:
    """Where the next brief and `doctor` look for errors; None (the fallback dir) when the config
    itself cannot be loaded."""
    try:
        return str(_load_cfg().cache_dir)
    except Exception:  # noqa: BLE001 - the error being reported matters more
        return None


class HookContext:
    """What a handler leaves for run_hook, which logs and records it: `cache_dir` (where the error
    goes; None until the config is read), `emitted` (SessionStart printed its context: a failure after
    that prints no second one), `error` (done, but something went wrong on the way) and `doctor`
    (`memory-plugin doctor` times this run: nothing is written)."""
    __slots__ = ("cache_dir", "emitted", "error", "doctor")

    def __init__(self, doctor: bool = False):
        self.cache_dir: str | None = None
        self.emitted = False
        self.error: str | None = None
        self.doctor = doctor


class _Quiet(Exception):
    """Nothing to do (not an error)."""


# ---------------------------------------------------------------- SessionStart

def session_start(payload: dict, ctx: HookContext) -> None:
    from ..outputs import brief

    cfg = _load_cfg()
    ctx.cache_dir = cfg.cache_str
    if isinstance(payload.get("cwd"), str) and cfg.code_context:  # the worker records the cited code as it is now
        os.environ[CODE_REPO_ENV] = payload["cwd"]
    if cfg.vault_str is None:
        _emit_context("memory-plugin is installed but no vault is configured: run "
                      "`memory-plugin install --vault PATH` to give sessions the vault's memory.")
        ctx.emitted = True
        return
    cfg.check_vault()
    cfg.ensure_cache_dir()
    error = latest_error(cfg.cache_str)
    have_index = os.path.exists(cfg.cache_file("index.sqlite"))
    # brief.json cut for this session (brief.for_session), else whole
    found = brief.for_session(cfg.cache_str, _cwd(payload.get("cwd"))) if have_index else None
    data, match = found or (brief.load(cfg.cache_str) if have_index else None, None)
    mode = "rebuild" if (not have_index or _rebuild_due(cfg)) else "sync"
    syncing = f"a background {mode} has started"
    if data is None:  # the vault's first session (or a lost cache): see coldstart.py
        from . import coldstart

        seen = coldstart.survey(cfg)
        if seen["small"] and coldstart.build_inline(cfg):
            data, mode = brief.load(cfg.cache_str), "sync"  # the sync writes graph.json and the report
            syncing = "built just now for this first session"
        else:
            data = coldstart.bounded_data(cfg, seen["candidates"], seen["notes"])
            size = "" if seen["small"] else \
                f" of this large vault ({seen['notes']}{'' if seen['complete'] else '+'} notes)"
            syncing = (f"the index{size} is still being built in the background; this brief is read "
                       "directly from its convention and hub notes")
    try:
        text, match = _session_text(payload, cfg, data, error, syncing, match)
        _emit_context(text)
        ctx.emitted = True
        if data is not None:  # the notes the brief showed, for the session's later hooks
            _record_brief(cfg, payload, data, text, match)
    finally:  # once the brief is out, at low priority: the hook's own work is done then (it only exits)
        start_worker(cfg, mode)


def _session_text(payload: dict, cfg, data: dict | None, error: str | None, syncing: str,
                  match=None) -> tuple[str, object]:
    """The brief and the project match it was composed for (None when there is no brief yet);
    `match`, when given, is the one brief.for_session found."""
    from ..core.fence import escape_vault_text as esc  # the vault's path and an error may name notes
    from ..outputs import brief

    if data is None:
        return (f"memory-plugin: the memory of the vault {esc(cfg.vault_str)} is being built in the "
                "background; it will be in the next session's brief."
                + (f" Last hook error: {esc(error)}" if error else "")), None
    synced_at = None
    for stamp in ("sync.stamp", "rebuild.stamp"):  # the later one; a future one makes the brief say stale
        try:
            synced_at = max(synced_at or 0, os.stat(cfg.cache_file(stamp)).st_mtime)
        except OSError:
            pass
    if match is None:
        from ..index import project

        match = project.detect(brief.catalog_of(data), cwd=_cwd(payload.get("cwd")))
    named = None
    if not match.project and not match.ambiguous and match.own:  # notes may name the folder all the same
        paths = brief.named_for(cfg.cache_str, match.own)
        named = brief.named_items(cfg, paths) if paths else None
    return brief.compose(data, brief_chars=cfg.brief_chars, match=match, error=error,
                         stale_after_hours=cfg.stale_after_hours, syncing=syncing, synced_at=synced_at,
                         code_states=_code_states(cfg, payload), named=named), match


def _code_states(cfg, payload: dict) -> dict | None:
    """The notes whose cited code in the session's repository was last found changed (index/code.py)."""
    cwd = _cwd(payload.get("cwd"))
    if not cwd or not cfg.code_context or not os.path.exists(cfg.cache_file("code.sqlite")):
        return None
    from ..index import code

    repo = code.repo_root(cwd)
    return code.last_states(cfg.cache_str, repo) if repo else None


def _record_brief(cfg, payload: dict, data: dict, text: str, match) -> None:
    """The notes this brief showed (not those it left out for room), for the later hooks of the
    session: they add nothing Claude already has (prompt_hook.py, code_hook.py)."""
    from . import session

    shown = _shown(session._brief_paths(cfg.cache_str, data), text)
    st = {"shown": shown, "injected": [], "project": [_cwd(payload.get("cwd")) or "",
                                                     match.project["name"] if match and match.project else ""]}
    session.save_state(cfg.cache_str, payload.get("session_id"), st)


def _shown(paths: list[str], text: str) -> list[str]:
    """The paths the brief `text` shows, as "(escaped path)". Looking for each of the thousands of
    paths a large vault's brief.json lists took 20 ms at 10k notes; the text's parenthesised spans
    are a set instead."""
    import re

    from ..core.fence import escape_vault_text as esc

    spans = set(re.findall(r"\(([^()\n]*)\)", text))
    out = []
    for p in paths:
        q = esc(p)
        if (q in spans) if "(" not in q and ")" not in q else (f"({q})" in text):
            out.append(p)
    return out


# ---------------------------------------------------------------- PostToolUse

def post_tool_use(payload: dict, ctx: HookContext) -> None:
    ti = payload.get("tool_input")
    if not isinstance(ti, dict):
        raise _Quiet
    fp = ti.get("file_path") or ti.get("notebook_path")
    if not isinstance(fp, str) or not fp:
        raise _Quiet
    cfg = _load_cfg()
    ctx.cache_dir = cfg.cache_str  # strings: no pathlib until there is work (core/config.py)
    if cfg.vault_str is None:
        raise _Quiet
    from ..core.paths import vault_rel

    rel = vault_rel(cfg.vault_str, fp, cfg.exclude) if fp.lower().endswith(".md") else None
    if rel is None:  # a repository file: the notes citing it (code_hook.py); never the vault's own
        from ..core.paths import real_rel

        if not cfg.code_context or real_rel(os.path.realpath(cfg.vault_str), fp) is not None:  # the vault's own files
            raise _Quiet
        from . import code_hook

        text = code_hook.respond(cfg, payload, fp)
        if text:
            code_hook.emit(text)
        return
    if payload.get("tool_name") == "Read":
        raise _Quiet  # reading a note changes nothing
    cfg.ensure_cache_dir()
    _record_touch(cfg.cache_str, payload.get("session_id"), rel)
    if not os.path.exists(cfg.cache_file("index.sqlite")):
        start_worker(cfg, "rebuild")
        return
    try:
        size = os.stat(os.path.join(str(cfg.vault_str), rel)).st_size
    except OSError:
        size = 0
    if size > INLINE_NOTE_BYTES:  # reading it could take longer than the hook's budget: detached
        _queue_large(cfg, rel)
        return
    from ..index import store as index

    stats = index.reindex(cfg, [rel], lock_timeout=1.0)
    if stats.get("reindexed") or stats.get("removed"):
        if brief_notes(cfg) > BRIEF_INLINE_MAX_NOTES:
            start_worker(cfg, "brief")  # collecting the brief scans the vault's links: too long for a hook here
        else:
            refresh_brief(cfg)
    if (stats.get("reindexed") or stats.get("queued")) and _embedding_on(cfg):
        start_worker(cfg, "embed")  # the model is never loaded here: a detached worker embeds the note


def brief_notes(cfg) -> int:
    """How many notes the last brief was collected from (brief.json is small: no index query)."""
    from ..outputs import brief

    data = brief.load(cfg.cache_str) or {}
    n = data.get("notes")
    return n if isinstance(n, int) else 0


def _embedding_on(cfg) -> bool:
    """Semantic search is configured and has run here once (its stamp): no numpy, no model."""
    from ..semantic.models import is_off

    return not is_off(str(cfg.values.get("embedding_model") or "")) and os.path.exists(cfg.cache_file("embed.stamp"))


def _record_touch(cache_dir: str, session_id, rel: str) -> None:
    os.makedirs(_sessions_dir(cache_dir), exist_ok=True)
    fd = os.open(_session_file(cache_dir, session_id), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (rel + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def refresh_brief(cfg) -> bool:
    from ..outputs import brief

    return brief.refresh(cfg)


# ---------------------------------------------------------------- SessionEnd

def session_end(payload: dict, ctx: HookContext) -> None:
    from ..memory import journal

    cfg = _load_cfg()
    ctx.cache_dir = cfg.cache_str
    if cfg.vault_str is None:
        raise _Quiet
    cfg.require_vault()
    cfg.ensure_cache_dir()
    now = time.time()
    sid = payload.get("session_id") if isinstance(payload.get("session_id"), str) else ""
    reason = payload.get("reason") if isinstance(payload.get("reason"), str) else "other"
    sfile = _session_file(cfg.cache_str, sid)
    touched: list[str] = []
    try:
        with open(sfile, encoding="utf-8") as f:
            for line in f:
                p = line.strip()
                if p and p not in touched:
                    touched.append(p)
    except OSError:
        pass
    if touched:
        touched = _public_now(cfg, touched, ctx)
    req = journal.first_request(payload.get("transcript_path"))
    request = journal.request_line(req, emails=cfg.redact_emails) if req else None
    # the vault's daily note (its app's settings: a few small files) unless journal_folder is set
    dialect = cfg.values.get("dialect", "plain")
    rel = journal.journal_rel(cfg.journal_folder, now, str(cfg.vault_str), dialect,
                              user_set=cfg.sources.get("journal_folder", "default") != "default")
    line = journal.entry_line(when=now, project=project_name(payload.get("cwd")), session_id=sid,
                              reason=reason, touched=touched, request=request)
    if ctx.doctor:  # `memory-plugin doctor` times this path without writing
        return
    journal.append(str(cfg.vault_str), cfg.cache_str, rel, line, now,
                   journal.new_day_text(str(cfg.vault_str), rel, now, dialect))
    try:
        os.unlink(sfile)
    except OSError:
        pass
    if os.path.exists(cfg.cache_file("index.sqlite")):
        start_worker(cfg, "reindex", rel)  # indexing the journal note may wait on a lock: detached


def _public_now(cfg, paths: list[str], ctx: HookContext) -> list[str]:
    """The touched notes that are public at this moment: the file is still where it was, inside the
    vault by its real path and outside excluded folders, its own frontmatter does not say private
    (privacy.says_private, the parser's definition) and the index does not say private either. A note
    moved or deleted since it was touched, or unreadable, is left out: its last state may have been
    private. An index that cannot be read leaves the file check alone and is reported."""
    from ..index import store as index
    from ..core.paths import vault_rel
    from ..vault.privacy import file_says_private

    private: set[str] = set()
    if os.path.exists(cfg.cache_file("index.sqlite")):
        try:
            conn = index.open_index(cfg)
            try:
                marks = ",".join("?" * len(paths))
                private = {r[0] for r in conn.execute(
                    f"SELECT path FROM notes WHERE private=1 AND path IN ({marks})", paths)}
            finally:
                conn.close()
        except Exception as e:  # noqa: BLE001 - a broken index must not cost the journal entry
            ctx.error = f"private notes checked from their files only: {type(e).__name__}: {e}"
    out = []
    for p in paths:
        if p in private or vault_rel(cfg.vault, p, cfg.exclude) != p:
            continue
        if file_says_private(os.path.join(cfg.vault_str, p)) is False:
            out.append(p)
    return out


# ---------------------------------------------------------------- background worker

_WORKER: dict = {}


def _dir_id(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _cache_gone(cache: str) -> bool:
    """The worker's cache dir was removed (or removed and made again, by a lock file's creation)."""
    return "cache_id" in _WORKER and _dir_id(cache) != _WORKER["cache_id"]


def _tidy_recreated(cache: str) -> None:
    """Remove what this worker's locks put in a cache dir made again after it was deleted."""
    try:
        names = os.listdir(cache)
        if all(n.endswith(".lock") for n in names):
            for n in names:
                os.unlink(os.path.join(cache, n))
            os.rmdir(cache)
    except OSError:
        pass


class WorkerStopped(BaseException):
    """A detached worker ran past `worker_seconds`, or its vault or cache dir disappeared."""


def _watchdog(cfg) -> None:
    """Stop this worker (SIGALRM raises WorkerStopped in the main thread, so cleanup runs) when it
    runs past `worker_seconds` or its vault or cache dir disappears; 10 s later, exit regardless."""
    import signal
    import threading

    limit = float(cfg.worker_seconds)
    end = time.monotonic() + limit
    vault, cache = str(cfg.vault_str), cfg.cache_str
    vault_id, _WORKER["cache_id"] = _dir_id(vault), _dir_id(cache)
    why: list[str] = []

    def on_alarm(signum, frame):
        raise WorkerStopped(why[0] if why else f"ran longer than worker_seconds ({limit:g} s)")

    def watch():
        while True:
            time.sleep(0.25)
            if time.monotonic() > end:
                why.append(f"stopped after worker_seconds ({limit:g} s)")
            elif _dir_id(vault) != vault_id:
                why.append(f"stopped: the vault {vault} is gone")
            elif _cache_gone(cache):
                why.append("stopped: the cache dir is gone")
            else:
                continue
            os.kill(os.getpid(), signal.SIGALRM)
            time.sleep(10)
            if os.path.isdir(cache):
                log(cache, "background", "ERROR", f"background worker {why[0]}; killed after 10 s more")
            os._exit(3)

    signal.signal(signal.SIGALRM, on_alarm)
    threading.Thread(target=watch, daemon=True).start()


def worker(mode: str, *args: str) -> None:
    from ..index import store as index
    from ..outputs import pipeline

    lower_priority()  # niced by start_worker already; the I/O priority, and a worker run by hand
    cfg = _load_cfg()
    if cfg.vault_str is not None and cfg.worker_seconds:
        _watchdog(cfg)
    try:
        if mode in ("sync", "rebuild"):
            _record_code(cfg)
        if mode == "reindex":
            from ..memory import journal

            journal.drain(str(cfg.vault_str), cfg.cache_str)  # lines queued by a SessionEnd that could not wait
            try:
                stats = index.reindex(cfg, list(args), lock_timeout=60)
            except index.IndexMissing:  # missing or broken: build it (the notes are in it then)
                stats = pipeline.sync(cfg, lock_timeout=60)
            if stats.get("reindexed") or stats.get("removed") or stats.get("rebuilt"):
                refresh_brief(cfg)
        elif mode == "queue":
            if _drain_large(cfg):
                refresh_brief(cfg)
        elif mode == "brief":
            refresh_brief(cfg)
            _warm_style(cfg)
        elif mode == "rebuild" and _rebuild_due(cfg):
            pipeline.rebuild(cfg, lock_timeout=0, only_if=lambda: _rebuild_due(cfg))
        elif mode != "embed":
            pipeline.sync(cfg, lock_timeout=0)
    except index.Busy:
        if mode != "embed":
            return
    _embed_in_background(cfg)
    _set_error(cfg.cache_str, "background", None)


def _warm_style(cfg) -> None:
    """The vault's note shape for the index's new state (memory/vaultstyle.py, kept in style.json), so
    that the next `remember` finds it made: the brief worker runs after each write to the vault."""
    from ..index import store
    from ..memory import vaultstyle

    try:
        conn = store.open_index(cfg)
    except store.IndexMissing:
        return
    try:
        vaultstyle.of(cfg, conn)
    finally:
        conn.close()


def _record_code(cfg) -> None:
    """The baselines of the code the vault's notes cite in the session's repository (index/code.py),
    before the sync: a later edit is compared with the code as the session found it."""
    cwd = os.environ.get(CODE_REPO_ENV)
    if not cwd or not os.path.exists(cfg.cache_file("index.sqlite")):
        return
    from ..index import code
    from ..index import store as index
    from . import session

    repo = code.repo_root(cwd)
    if repo is None:
        return
    try:
        conn = index.open_index(cfg)
    except index.IndexMissing:
        return
    try:
        from ..outputs import brief

        code.record_repo(conn, cfg.cache_str, repo, session._project(brief.load(cfg.cache_str) or {}, cwd))
    finally:
        conn.close()


def _embed_in_background(cfg) -> None:
    """Embed what changed, when semantic search is on; quietly lexical when it is off or unavailable
    (status and doctor say why). One runner at a time: a second worker returns at once."""
    from ..semantic import models, vectors as semantic

    if models.is_off(str(cfg.values.get("embedding_model") or "")):
        return

    if semantic.mode(cfg)[0] != "semantic":
        return
    from ..outputs.pipeline import embed

    _, err = embed(cfg)
    if err is not None:
        raise err


def user_prompt_submit(payload: dict, ctx: HookContext) -> None:
    """Recall and capture for one prompt (prompt_hook.py); nothing to do is quiet."""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise _Quiet
    cfg = _load_cfg()
    ctx.cache_dir = cfg.cache_str
    if cfg.vault_str is None or not (cfg.prompt_recall or cfg.prompt_capture):
        raise _Quiet
    from ..semantic import models
    from . import prompt_hook

    models.EXTRACT = False  # a hook never writes the model (the package's copy is extracted by commands)
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    out = prompt_hook.respond(cfg, prompt, session_id=payload.get("session_id"), cwd=cwd)
    if out["text"]:
        prompt_hook.emit(out["text"])
    if out["notice"]:  # answered lexically: logged, and surfaced in the next brief and by doctor
        ctx.error = out["notice"]


# ---------------------------------------------------------------- the events, in one table

class Hook:
    """One Claude Code hook event the plugin answers: `event` (Claude Code's name), `verb` (the
    argument of `memory-plugin hook` and of the plugin's hooks/run), `matcher` (None: every
    occurrence), `timeout` (seconds) and `handler`. install writes the settings entries from it,
    run_hook dispatches by it and tests/test_install.py checks hooks/hooks.json against it."""
    __slots__ = ("event", "verb", "matcher", "timeout", "handler")

    def __init__(self, event: str, verb: str, matcher: str | None, timeout: int, handler):
        self.event, self.verb, self.matcher, self.timeout, self.handler = event, verb, matcher, timeout, handler


# Timeouts are the same in hooks.json and settings.json, though Claude Code reads them differently:
# a plugin's SessionEnd timeout does not raise that event's shared 1.5 s budget, a settings file's
# does (up to 60 s); session_end stays well inside 1.5 s either way (its slow part is detached).
HOOKS = (
    Hook("SessionStart", "session-start", "startup|resume|clear|compact", 10, session_start),
    Hook("UserPromptSubmit", "user-prompt-submit", None, 10, user_prompt_submit),
    # NotebookEdit carries notebook_path; MultiEdit no longer exists (kept: harmless, and older versions
    # send it); Read: the notes citing a repository file reach Claude when it opens that file
    Hook("PostToolUse", "post-tool-use", "Read|Write|Edit|MultiEdit|NotebookEdit", 10, post_tool_use),
    Hook("SessionEnd", "session-end", None, 10, session_end),
)
HANDLERS = {h.verb: h.handler for h in HOOKS}


def run_hook(argv: list[str]) -> int:
    event = argv[0] if argv else ""
    if os.environ.get(DISABLE, "").strip().lower() in ("1", "true", "yes", "on"):
        return 0
    if event == "worker":
        try:
            worker(*(argv[1:] or ["sync"]))
        except BaseException as e:  # noqa: BLE001 - a detached worker reports, never raises
            d = os.environ.get("MEMORY_PLUGIN_CACHE_DIR")
            if d and (not os.path.isdir(d) or _cache_gone(d)):
                _tidy_recreated(d)
                return 0  # the cache dir was removed under the worker: leave nothing behind
            msg = f"background {argv[1:] or 'sync'} failed: {type(e).__name__}: {e}"
            log(d, "background", "ERROR", msg)
            _set_error(d, "background", msg)
        return 0
    handler = HANDLERS.get(event)
    ctx = HookContext()
    raw = _read_stdin()
    try:
        if handler is None:
            raise ValueError(f"unknown hook event {event!r}: expected one of {', '.join(HANDLERS)}")
        if len(raw) > MAX_STDIN:
            raise ValueError(f"hook input larger than {MAX_STDIN} bytes: ignored")
        try:
            payload = json.loads(raw) if raw.strip() else {}
        except ValueError as e:
            raise ValueError(f"hook input is not JSON ({e})") from None
        except RecursionError:  # nested deeper than the decoder goes: no hook input looks like that
            raise ValueError("hook input is not JSON (nested too deep)") from None
        if not isinstance(payload, dict):
            raise ValueError("hook input is not a JSON object")
        ctx.doctor = payload.get("doctor") is True
        handler(payload, ctx)  # may leave ctx.error: done, but something went wrong on the way
    except _Quiet:
        return 0
    except BaseException as e:  # noqa: BLE001 - hooks never fail a session
        ctx.error = f"{type(e).__name__}: {e}"
        ctx.cache_dir = ctx.cache_dir or _configured_cache_dir()
        if event == "session-start" and not ctx.emitted:
            try:
                from ..core.fence import escape_vault_text

                _emit_context(f"memory-plugin could not load the vault's memory this time "
                              f"({escape_vault_text(ctx.error[:300])}). "
                              "Details are in hooks.log; `memory-plugin doctor` explains.")
            except Exception:
                pass
    if ctx.error:
        log(ctx.cache_dir, event, "ERROR", ctx.error + (" (doctor timing run)" if ctx.doctor else ""))
    if not ctx.doctor:  # `memory-plugin doctor` times SessionEnd: that run neither clears nor adds errors
        _set_error(ctx.cache_dir, event, ctx.error)
    return 0
