"""`memory-plugin doctor`: check the installation end to end and explain what is wrong."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ..core.config import Config
from ..core.textutil import plural


SESSION_END_MS = 1000  # doctor's budget for one SessionEnd (Claude Code allows 1,500 ms for all of them)
TIMING_RUNS = 3  # SessionEnd is timed up to this many times; the fastest run is judged


def _check(ok: bool, what: str, fix: str = "") -> dict:
    return {"ok": ok, "check": what, "fix": "" if ok else fix}


def _warn(what: str, fix: str) -> dict:
    """Not a fault (doctor still exits 0), but likely a mistake: shown as WARN, with its fix."""
    return {"ok": True, "warn": True, "check": what, "fix": fix}


def plugin_command(settings: dict) -> str | None:
    """The executable the plugin's hooks/run would run, searched in its order: MEMORY_PLUGIN_BIN, PATH,
    ~/.local/bin, then the .venv of the plugin root (where Claude Code's plugin records put it)."""
    env = settings.get("env") if isinstance(settings.get("env"), dict) else {}
    home = Path(os.path.expanduser("~"))
    cands = [env.get("MEMORY_PLUGIN_BIN") or os.environ.get("MEMORY_PLUGIN_BIN"),
             shutil.which("memory-plugin", path=env.get("PATH") or os.environ.get("PATH")),
             str(home / ".local" / "bin" / "memory-plugin")]
    cands += [str(Path(root) / ".venv" / "bin" / "memory-plugin") for root in _plugin_roots(settings, home)]
    return next((c for c in cands if isinstance(c, str) and c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


def _plugin_roots(settings: dict, home: Path) -> list[str]:
    """CLAUDE_PLUGIN_ROOT of each enabled memory-plugin: a directory marketplace's own folder, or the
    plugin's install path (from ~/.claude/plugins/known_marketplaces.json and installed_plugins.json)."""
    markets = _read_json(home / ".claude" / "plugins" / "known_marketplaces.json")
    installed = _read_json(home / ".claude" / "plugins" / "installed_plugins.json").get("plugins")
    roots = []
    for key, on in settings["enabledPlugins"].items():
        if not (key.startswith("memory-plugin@") and on):
            continue
        market = markets.get(key.split("@", 1)[1])
        if isinstance(market, dict):
            roots.append(market.get("installLocation"))
        if isinstance(installed, dict) and isinstance(installed.get(key), list):
            roots += [e.get("installPath") for e in installed[key] if isinstance(e, dict)]
    return [r for r in roots if isinstance(r, str)]


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cache_checks(cfg: Config) -> list[dict]:
    """The index's integrity (PRAGMA quick_check), files left by an interrupted rebuild, free space."""
    import sqlite3

    from ..index.store import free_bytes, index_path, stale_generations

    out: list[dict] = []
    p = index_path(cfg)
    if p.exists():
        try:
            conn = sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=5)
            try:
                rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchmany(3)]
            finally:
                conn.close()
            ok = rows == ["ok"]
            out.append(_check(ok, "index passes PRAGMA quick_check" if ok else
                              f"index fails PRAGMA quick_check: {'; '.join(map(str, rows))[:300]}",
                              "run `memory-plugin rebuild` (the index is a cache of the vault: nothing is lost)"))
        except sqlite3.DatabaseError as e:
            out.append(_check(False, f"index cannot be checked ({e})",
                              "run `memory-plugin rebuild` (the index is a cache of the vault: nothing is lost)"))
    stale = stale_generations(cfg)
    if stale:
        mb = sum(f.stat().st_size for f in stale if f.exists()) / 1e6
        out.append(_check(False, f"{plural(len(stale), 'index file')} ({mb:.1f} MB) left by an interrupted rebuild",
                          "run `memory-plugin rebuild` (it removes them)"))
    need = (p.stat().st_size if p.exists() else 0) * 2 + (16 << 20)
    free = free_bytes(cfg)
    out.append(_check(free >= need, f"cache disk has {free >> 20} MB free", f"free space on the disk of "
                      f"{cfg.cache_dir} (a rebuild needs about {need >> 20} MB), or set cache_dir elsewhere"))
    return out


def _skills_check(settings: dict, sp: Path, plugin_on: bool) -> dict:
    """Whether Claude may run the skills' `memory-plugin` commands through Bash without asking."""
    from . import install as I

    can = I.skills_can_run(settings)
    if can:
        return _check(True, f"skills can run their commands ({sp} allows {I.PERMISSION})")
    if can is False:
        return _check(False, f"a deny or ask rule in {sp} covers `memory-plugin`: the skills' commands are refused "
                             "under `claude -p` and need approval each time otherwise",
                      f"remove that rule from `permissions` in {sp}")
    if I.installed_entry(sp).get("permission_skipped"):
        return _check(True, f"skills ask before each memory-plugin command (installed with --no-permissions; "
                            f"under `claude -p` they are refused)")
    fix = "run `memory-plugin install --permissions-only`" if plugin_on else "run `memory-plugin install`"
    return _check(False, f"skills cannot run their commands without approval: no {I.PERMISSION} rule in {sp} "
                         "(under `claude -p` Claude gets \"This command requires approval\")", fix)


def _lock_age(cfg: Config) -> int | None:
    """Seconds the index lock has been held by a build, None when nobody holds it."""
    from ..index.store import index_lock

    lock = index_lock(cfg, 0)
    try:
        lock.acquire()
        lock.release()
        return None
    except Exception:  # noqa: BLE001
        p = cfg.path("index.lock")
        return int(time.time() - p.stat().st_mtime) if p.exists() else 0


def run(cfg: Config, settings_path: Path | None = None) -> list[dict]:
    from . import install as I

    out: list[dict] = []
    sp = settings_path or I.default_settings_path()
    try:
        _, settings = I.read_settings(sp)
        out.append(_check(True, f"{sp} is valid JSON"))
    except Exception as e:  # noqa: BLE001
        settings = {}
        out.append(_check(False, str(e), "fix the file, then run `memory-plugin install`"))
    hooks = settings.get("hooks") if isinstance(settings.get("hooks"), dict) else {}
    plugin_on = any(k.startswith("memory-plugin@") and v for k, v in
                    (settings.get("enabledPlugins") or {}).items()) if isinstance(settings.get("enabledPlugins"), dict) else False
    found = plugin_command(settings) if plugin_on else None
    for event in (h.event for h in I.HOOKS):
        ours = [h for g in hooks.get(event, []) if isinstance(g, dict)
                for h in (g.get("hooks") or []) if I.is_ours(h)]
        if ours:
            cmd = ours[0]["command"]
            exists = os.path.isfile(cmd) and os.access(cmd, os.X_OK)
            out.append(_check(exists, f"{event} hook registered: {cmd} {' '.join(ours[0].get('args', []))}",
                              f"{cmd} does not exist any more: run `memory-plugin install` again"))
        elif plugin_on:
            out.append(_check(found is not None, f"{event} hook provided by the enabled memory-plugin plugin"
                              + (f", which runs {found}" if found else ", but its hooks/run finds no "
                                 "`memory-plugin` executable"),
                              "put `memory-plugin` on the PATH Claude Code starts with (e.g. `ln -s "
                              f"{Path(sys.executable).parent / 'memory-plugin'} ~/.local/bin/`), or set "
                              "MEMORY_PLUGIN_BIN to its path in the environment or in the settings' `env`"))
        else:
            out.append(_check(False, f"{event} hook not registered in {sp}",
                              "run `memory-plugin install --vault PATH` (or install the plugin)"))
    out.append(_skills_check(settings, sp, plugin_on))
    # vault
    if cfg.vault is None:
        out.append(_check(False, "no vault configured", "run `memory-plugin install --vault PATH`"))
        return out
    try:
        cfg.require_vault()
    except Exception as e:  # noqa: BLE001
        out.append(_check(False, str(e), "fix the path with `memory-plugin install --vault PATH`"))
        return out
    from .install import no_notes

    empty = no_notes(cfg)
    out.append(_warn(f"{empty} (the vault is readable)", "give the folder of your notes: "
                     "`memory-plugin install --vault PATH`") if empty else _check(True, f"vault {cfg.vault} is readable"))
    # index
    from ..core.errors import CacheFull
    from ..index.store import IndexMissing, get_meta, index_lock, open_index

    try:
        conn = open_index(cfg)
        try:
            changed = float(get_meta(conn, "synced_at") or 0)
            n = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        finally:
            conn.close()
        from ..outputs.brief import CLOCK_SLACK

        age_h = (time.time() - changed) / 3600
        future = age_h < -CLOCK_SLACK / 3600  # stamped in the future: the clock moved, its age is unknown
        out.append(_check(not future and age_h <= cfg.stale_after_hours,
                          f"index holds {plural(n, 'note')}, synced "
                          + ("at an unknown time (its stamp lies in the future)" if future else f"{age_h:.1f} h ago"),
                          "run `memory-plugin sync` (SessionStart also starts one)"))
    except IndexMissing as e:
        building = _lock_age(cfg)
        out.append(_check(building is not None,
                          str(e) if building is None else f"the index is being built (for {building} s): "
                          "sessions meanwhile get a brief read from the convention and hub notes",
                          "run `memory-plugin rebuild` (the first session builds a small vault's index too)"))
    except CacheFull as e:
        out.append(_check(False, str(e), f"free space on the disk of {cfg.cache_dir}, then run `memory-plugin rebuild`"))
    out += cache_checks(cfg)
    from ..semantic import vectors as semantic  # which search mode is on, and whether the model fits the stored vectors

    try:
        conn = open_index(cfg)
    except (IndexMissing, CacheFull):
        conn = None
    try:
        out.extend(_check(*c) for c in semantic.doctor_checks(cfg, conn))
    finally:
        if conn is not None:
            conn.close()
    lock_file = cfg.path("index.lock")
    lock = index_lock(cfg, 0)
    try:
        lock.acquire()
        lock.release()
        out.append(_check(True, "no process holds the index lock"))
    except Exception:  # noqa: BLE001
        age = time.time() - lock_file.stat().st_mtime if lock_file.exists() else 0
        out.append(_check(age < 600, f"the index lock is held (for {int(age)} s)",
                          "a rebuild or sync is running; if it stays held, find it with `fuser "
                          f"{lock_file}`"))
    # errors
    from .hooks import read_errors

    errs = read_errors(str(cfg.cache_dir))
    if errs:
        for hook, e in errs.items():
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.get("time", 0)))
            out.append(_check(False, f"unresolved {hook} hook error at {when}: {e.get('message')}",
                              f"see {cfg.path('hooks.log')}"))
    else:
        out.append(_check(True, "no unresolved hook errors"))
    # SessionEnd budget: run the real hook in its no-write mode, as a whole process
    exe = Path(sys.executable).parent / "memory-plugin"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memory_plugin"]
    env = {**os.environ, "MEMORY_PLUGIN_VAULT": str(cfg.vault), "MEMORY_PLUGIN_CACHE_DIR": str(cfg.cache_dir)}
    ms = float("inf")
    for _ in range(TIMING_RUNS):  # the best of a few: one run can meet a busy moment of the machine
        t0 = time.perf_counter()
        subprocess.run(cmd + ["hook", "session-end"], input=json.dumps({"session_id": "doctor", "doctor": True}),
                       capture_output=True, text=True, env=env, timeout=30)
        ms = min(ms, (time.perf_counter() - t0) * 1000)
        if ms < SESSION_END_MS:
            break
    out.append(_check(ms < SESSION_END_MS, f"SessionEnd hook took {ms:.0f} ms (Claude Code allows 1,500 ms for all "
                                 "SessionEnd hooks together)", "check the vault's disk and hooks.log"))
    return out
