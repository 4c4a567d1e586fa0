"""Register the hooks in ~/.claude/settings.json and the skills in ~/.claude/skills, reversibly.

Our entries are recognised by their command (the `memory-plugin` executable with `hook` arguments):
install strips and re-adds them (idempotent), uninstall removes exactly them; every other key and
hook is left as it was, in its original text (numbers as written, indentation, key order: see
jsonedit). A settings file that is a symlink (dotfiles) is written through: the file it points to is
replaced atomically and the link stays. Before install first changes a file, its text is kept in
`settings.json.memory-plugin.bak`, which nothing overwrites afterwards.
"""
from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import sys
from collections.abc import Collection
from pathlib import Path

from . import jsonedit
from .hooks import HOOKS, Hook
from ..core.errors import SettingsFileError
from ..core.fsutil import atomic_write
from ..core.textutil import plural

PLUGIN_COMMAND = "${CLAUDE_PLUGIN_ROOT}/hooks/run"  # the plugin route's hooks/hooks.json runs this
SKILLS = ("memory-query", "memory-write", "memory-reorganize")
MARKER = ".installed-by-memory-plugin"
# Lets Claude run the skills' `memory-plugin ...` commands through its Bash tool without asking
# each time (under `claude -p` an unapproved command gets "This command requires approval").
PERMISSION = "Bash(memory-plugin:*)"


def default_settings_path() -> Path:
    return Path(os.path.expanduser("~")) / ".claude" / "settings.json"


def skills_home() -> Path:
    return Path(os.path.expanduser("~")) / ".claude" / "skills"


def executable() -> str:
    """The absolute path of the installed `memory-plugin` console script."""
    beside = Path(sys.executable).parent / "memory-plugin"
    if beside.exists():
        return str(beside.absolute())
    found = shutil.which("memory-plugin")
    if found:
        return os.path.abspath(found)
    raise SettingsFileError("cannot find the installed `memory-plugin` executable: install the package "
                            "(pip install -e .) and run install again")


def skills_source() -> Path:
    from ..core.resources import path

    cand = path("skills")
    if all((cand / s / "SKILL.md").exists() for s in SKILLS):
        return cand
    raise SettingsFileError(f"the skills are missing from {cand}: reinstall the package "
                            "(pip install --force-reinstall memory-plugin)")


def is_ours(hook: dict) -> bool:
    if not isinstance(hook, dict):
        return False
    cmd = hook.get("command")
    if not isinstance(cmd, str):
        return False
    args = hook.get("args")
    if isinstance(args, list) and args[:1] == ["hook"] and os.path.basename(cmd) == "memory-plugin":
        return True
    return "memory-plugin hook " in cmd or cmd.rstrip().endswith(("memory-plugin/hooks/run",))


def read_settings(path: Path) -> tuple[str | None, dict]:
    try:
        with open(path, encoding="utf-8", newline="") as f:  # newline="": CRLF line ends are kept
            text = f.read()
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as e:
        raise SettingsFileError(f"{path} cannot be read ({e}): fix it and run install again") from None
    if not text.strip():
        return text, {}
    try:
        json.loads(text)
        data = jsonedit.parse(text).root.value
    except json.JSONDecodeError as e:
        raise SettingsFileError(f"{path} is not valid JSON (line {e.lineno}): fix it and run install again") from None
    except jsonedit.DuplicateKey as e:
        # JSON readers keep one of the two silently; a rewrite would drop the other for good
        raise SettingsFileError(f"{path} has the key `{e.key_path}` twice (line {e.line}): keep one of them "
                                "and run install again") from None
    except RecursionError:
        raise SettingsFileError(f"{path} nests too deep to be read: fix it and run install again") from None
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} is not a JSON object: fix it and run install again")
    return text, data


def strip_ours(settings: dict, created: Collection[str] | None = None) -> dict:
    """The settings without our hook entries. A hook list (`hooks.<Event>`) or `hooks` left empty by
    that is deleted when it is in `created` (install added it); None means any key so emptied."""
    out = json.loads(json.dumps(settings))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    removed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for g in groups:
            if isinstance(g, dict) and isinstance(g.get("hooks"), list) and any(is_ours(h) for h in g["hooks"]):
                rest = [h for h in g["hooks"] if not is_ours(h)]
                if rest:
                    kept.append({**g, "hooks": rest})
            else:
                kept.append(g)
        if kept == groups:
            continue
        removed = True
        if kept or (created is not None and f"hooks.{event}" not in created):
            hooks[event] = kept
        else:
            del hooks[event]
    if removed and not hooks and (created is None or "hooks" in created):
        del out["hooks"]
    return out


def _added_keys(settings: dict) -> list[str]:
    """The keys with_ours adds to these settings (so that uninstall takes away only those)."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return ["hooks", *(f"hooks.{h.event}" for h in HOOKS)]
    return [f"hooks.{h.event}" for h in HOOKS if h.event not in hooks]


def with_permission(settings: dict) -> dict:
    """The settings with PERMISSION in `permissions.allow` (appended; kept where it already is)."""
    out = json.loads(json.dumps(settings))
    perms = out.setdefault("permissions", {})
    if not isinstance(perms, dict):
        raise SettingsFileError("`permissions` in the settings file is not an object: fix it and run install again")
    allow = perms.setdefault("allow", [])
    if not isinstance(allow, list):
        raise SettingsFileError("`permissions.allow` in the settings file is not a list: fix it and run install again")
    if PERMISSION not in allow:
        allow.append(PERMISSION)
    return out


def without_permission(settings: dict, created: Collection[str] | None = None) -> dict:
    """The settings without PERMISSION; `permissions.allow` and `permissions` left empty by that
    are deleted when install created them (`created`; None: whenever emptied)."""
    out = json.loads(json.dumps(settings))
    perms = out.get("permissions")
    if not isinstance(perms, dict) or not isinstance(perms.get("allow"), list) or PERMISSION not in perms["allow"]:
        return out
    perms["allow"] = [r for r in perms["allow"] if r != PERMISSION]
    if not perms["allow"] and (created is None or "permissions.allow" in created):
        del perms["allow"]
    if not perms and (created is None or "permissions" in created):
        del out["permissions"]
    return out


def skills_can_run(settings: dict) -> bool | None:
    """Whether these settings let Claude run `memory-plugin` through Bash without asking: True (an
    allow rule covers it and no deny or ask rule does), False (a deny or ask rule), None (no rule)."""
    perms = settings.get("permissions") if isinstance(settings.get("permissions"), dict) else {}

    def covers(rules) -> bool:
        return isinstance(rules, list) and any(
            isinstance(r, str) and (r.strip() in ("Bash", "Bash(*)") or re.fullmatch(
                r"Bash\(\s*memory-plugin(:\*|\s*\*|)\s*\)", r.strip()) is not None) for r in rules)

    if covers(perms.get("deny")) or covers(perms.get("ask")):
        return False
    return True if covers(perms.get("allow")) else None


def with_ours(settings: dict, exe: str) -> dict:
    out = strip_ours(settings, created=())
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsFileError("`hooks` in the settings file is not an object: fix it and run install again")
    for h in HOOKS:
        event, group = h.event, hook_group(h, exe, ["hook", h.verb])
        hooks.setdefault(event, [])
        if not isinstance(hooks[event], list):
            raise SettingsFileError(f"`hooks.{event}` in the settings file is not a list: fix it and run install again")
        hooks[event].append(group)
    return out


def hook_group(h: Hook, command: str, args: list[str]) -> dict:
    """The entry of one event in a settings file's or hooks.json's `hooks.<Event>` list."""
    group: dict = {"matcher": h.matcher} if h.matcher else {}
    group["hooks"] = [{"type": "command", "command": command, "args": args, "timeout": h.timeout}]
    return group


def plugin_hooks() -> dict:
    """What hooks/hooks.json's `hooks` must be (tests/test_install.py checks the file against it)."""
    return {h.event: [hook_group(h, PLUGIN_COMMAND, [h.verb])] for h in HOOKS}


def render(settings: dict, old_text: str | None = None) -> str:
    """The settings as text: written like `old_text` (what did not change keeps its text), or with
    two-space indents for a new file."""
    return jsonedit.dump(settings, jsonedit.parse(old_text) if old_text and old_text.strip() else None)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".memory-plugin.bak")


def _check_link(path: Path) -> None:
    """A settings file that is a symlink is written where it points; a link to a file that does not
    exist gets it created (as Claude Code or an editor writing through the link would), but not
    folders: a missing folder means an unmounted or not-yet-cloned dotfiles dir."""
    if not path.is_symlink():
        return
    target = Path(os.path.realpath(path))
    if not target.exists() and not target.parent.is_dir():
        raise SettingsFileError(f"{path} is a symlink to {target}, whose folder does not exist: create "
                                f"{target.parent} (or replace the link) and run install again")


def diff(old: str | None, new: str, path: Path) -> str:
    return "".join(difflib.unified_diff((old or "").splitlines(True), new.splitlines(True),
                                        f"{path} (now)", f"{path} (after)"))


def _write_settings(path: Path, old_text: str | None, new: dict, backup: bool = False) -> bool:
    """Write `new` over the settings whose text was `old_text`; with `backup` (install), keep
    `old_text` first in the backup file unless there is one already: it holds the text from before
    the first install, which a later install or an uninstall must not replace."""
    text = render(new, old_text)
    if text == old_text or (old_text is not None and not old_text.strip() and new == {}):
        return False  # an empty file stays empty when there is nothing to add
    _check_link(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    bak = backup_path(path)
    if backup and old_text is not None and not (bak.exists() or bak.is_symlink()):
        atomic_write(bak, old_text, new_mode=path.stat().st_mode & 0o7777)  # the settings may hold secrets
    atomic_write(path, text, follow_symlinks=True)
    return True


def _set_vault(vault: Path) -> str:
    """Record the vault in the user config file, changing only its `vault:` line."""
    from ..core.config import user_config_path

    p = user_config_path()
    line = f"vault: {json.dumps(str(vault))}\n"
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    lines = text.splitlines(True)
    state = _read_state()
    if "config" not in state:  # remember what was there before the first install, for uninstall
        previous = next((l for l in lines if l.startswith("vault:")), None)
        _write_state({**state, "config": str(p), "created": not p.exists(), "vault_line": previous})
    for i, l in enumerate(lines):
        if l.startswith("vault:"):
            if l == line:
                return f"{p}: vault already {vault}"
            lines[i] = line
            break
    else:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.append(line)
    atomic_write(p, "".join(lines))
    return f"{p}: vault set to {vault}"


def _state_path() -> Path:
    from ..core.config import user_config_path

    return user_config_path().parent / "installed.json"


def _read_state() -> dict:
    """What install changed, for uninstall: the user config's previous `vault:` line (`config`,
    `created`, `vault_line`) and, per settings file, whether install created it and which keys."""
    try:
        state = json.loads(_state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _write_state(state: dict) -> None:
    if state:
        atomic_write(_state_path(), json.dumps(state))
    else:
        _state_path().unlink(missing_ok=True)


def _restore_vault() -> str | None:
    state = _read_state()
    if "config" not in state:
        return None
    p = Path(state.pop("config"))
    try:
        lines = p.read_text(encoding="utf-8").splitlines(True)
    except FileNotFoundError:
        lines = []
    prev = state.pop("vault_line", None)
    lines = [(prev if prev else None) if l.startswith("vault:") else l for l in lines]
    lines = [l for l in lines if l is not None]
    if state.pop("created", False) and not "".join(lines).strip():
        p.unlink(missing_ok=True)
    else:
        atomic_write(p, "".join(lines))
    _write_state(state)
    return f"{p}: vault setting restored to what it was before install"


def install(settings_path: Path | None = None, vault: Path | None = None, dry_run: bool = False,
            exe: str | None = None, permissions: bool = True, hooks: bool = True) -> list[str]:
    """Register the hooks (unless `hooks` is False: the plugin route has its own), allow the skills'
    commands (PERMISSION, unless `permissions` is False), record the vault, install the skills."""
    path = settings_path or default_settings_path()
    old_text, old = read_settings(path)
    key = str(path.absolute())
    entry = (_read_state().get("settings") or {}).get(key)
    exe = exe or (executable() if hooks else "")
    if not dry_run and hooks:
        skills_source()  # fail before anything is written
    new = with_ours(old, exe) if hooks else json.loads(json.dumps(old))
    if permissions:
        new = with_permission(new)
    elif entry and entry.get("permission_added"):  # allowed by an earlier install: take it back
        new = without_permission(new, entry.get("created_keys", []))
    msgs = []
    if vault is not None:
        vault = vault.expanduser().absolute()
        if not vault.is_dir():
            raise SettingsFileError(f"vault {vault} is not a folder: check the path")
    if dry_run:
        d = diff(old_text, render(new, old_text), path)
        msgs.append(d or f"{path}: nothing to change")
        if permissions and skills_can_run(old) is not True:
            msgs.append(f"the rule {PERMISSION} lets Claude run the skills' memory-plugin commands without asking "
                        "(--no-permissions leaves it out)")
        if vault is not None:
            msgs.append(f"would set vault: {vault} in the user config file")
        return msgs
    changed = _write_settings(path, old_text, new, backup=True)
    _record(key, old, old_text, new, entry, hooks, permissions)
    what = "hooks registered" if hooks else "settings updated"
    msgs.append(f"{path}: {what if changed else 'nothing changed'}"
                + (f" (backup: {backup_path(path).name})" if changed and backup_path(path).exists() else ""))
    if permissions:
        msgs.append(f"{path}: {PERMISSION} allowed: the skills run their commands without asking")
    else:
        msgs.append(f"{path}: no {PERMISSION} rule: Claude asks before each memory-plugin command "
                    "(under `claude -p` the skills' commands are refused)")
    if vault is not None:
        msgs.append(_set_vault(vault))
    if hooks:
        msgs += install_skills()
    return msgs


def _record(key: str, old: dict, old_text: str | None, new: dict, entry: dict | None, hooks: bool,
            permissions: bool) -> None:
    """Remember what install added to this settings file, for uninstall (and doctor)."""
    if entry is None:
        if jsonedit.same(old, new):
            return  # nothing added, nothing to take back
        first = hooks and strip_ours(old) == old  # hook keys install added (unknown for older installs)
        entry = {"created_file": old_text is None, "created_keys": _added_keys(old) if first else []}
    entry = dict(entry)
    perms = old.get("permissions") if isinstance(old.get("permissions"), dict) else None
    had = perms is not None and isinstance(perms.get("allow"), list) and PERMISSION in perms["allow"]
    if permissions and not had:
        entry["permission_added"] = True
        entry["created_keys"] = [k for k in entry.get("created_keys", []) if not k.startswith("permissions")] + (
            ["permissions", "permissions.allow"] if perms is None else ([] if "allow" in perms else ["permissions.allow"]))
    if not permissions:
        entry["permission_added"] = False
    entry["permission_skipped"] = not permissions
    state = _read_state()
    state.setdefault("settings", {})[key] = entry
    _write_state(state)


def installed_entry(settings_path: Path | None = None) -> dict:
    """What install recorded for this settings file ({} when nothing)."""
    path = settings_path or default_settings_path()
    return (_read_state().get("settings") or {}).get(str(path.absolute())) or {}


def install_skills() -> list[str]:
    src, dst_root = skills_source(), skills_home()
    msgs = []
    for name in SKILLS:
        dst = dst_root / name
        if dst.exists() and not (dst / MARKER).exists():
            msgs.append(f"{dst}: exists and was not installed by memory-plugin: left alone")
            continue
        tmp = dst_root / f".{name}.tmp-{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        shutil.copytree(src / name, tmp)
        (tmp / MARKER).write_text("installed by `memory-plugin install`; removed by `memory-plugin uninstall`\n")
        if dst.exists():
            same = all((dst / f.relative_to(tmp)).exists() and (dst / f.relative_to(tmp)).read_bytes() == f.read_bytes()
                       for f in tmp.rglob("*") if f.is_file())
            if same:
                shutil.rmtree(tmp)
                continue
            shutil.rmtree(dst)
        os.replace(tmp, dst)
        msgs.append(f"{dst}: skill installed")
    return msgs or [f"{dst_root}: skills already installed"]


def uninstall(settings_path: Path | None = None, dry_run: bool = False) -> list[str]:
    path = settings_path or default_settings_path()
    old_text, old = read_settings(path)
    state = _read_state()
    added = (state.get("settings") or {}).get(str(path.absolute()))
    new = strip_ours(old, added["created_keys"] if added else None)
    if added is None or added.get("permission_added"):
        new = without_permission(new, added["created_keys"] if added else None)
    remove_file = bool(added and added["created_file"] and new == {})  # nothing else was added since
    if dry_run:
        if remove_file:
            return [f"{path}: would be removed (install created it)"]
        return [diff(old_text, render(new, old_text), path) or f"{path}: nothing to remove"]
    msgs = []
    if remove_file:
        # through a symlink install created the file it points to: remove that, leave the link
        Path(os.path.realpath(path)).unlink(missing_ok=True)
        msgs.append(f"{path}: removed (install created it)")
    elif old_text is None or jsonedit.same(old, new):
        msgs.append(f"{path}: no memory-plugin hooks registered")
    else:
        _write_settings(path, old_text, new)
        msgs.append(f"{path}: memory-plugin hooks removed")
    if added:
        del state["settings"][str(path.absolute())]
        if not state["settings"]:
            del state["settings"]
        _write_state(state)
    for name in SKILLS:
        dst = skills_home() / name
        if (dst / MARKER).exists():
            shutil.rmtree(dst)
            msgs.append(f"{dst}: skill removed")
    restored = _restore_vault()
    if restored:
        msgs.append(restored)
    return msgs


INSTALL_INLINE_MAX_NOTES = 20000  # install waits for the build up to here (about 5 s on 2 cores), else detaches


def no_notes(cfg) -> str | None:
    """One line when the vault holds no note (no .md file outside dot-folders and `exclude`, by
    coldstart's bounded walk): its path may be wrong. None when it holds some, or when the walk
    stopped before the end (a large folder: notes may lie further on)."""
    from . import coldstart

    seen = coldstart.survey(cfg)
    if seen["notes"] or not seen["complete"]:
        return None
    return (f"vault {cfg.vault} holds no notes (no .md file outside dot-folders and `exclude`): "
            "the path may be wrong")


def build(cfg, progress=None) -> str:
    """Build the vault's index for the first session (a sync when there is one already): in this
    process up to INSTALL_INLINE_MAX_NOTES notes, else in a detached worker. Returns what it did."""
    from . import coldstart, hooks
    from ..outputs import pipeline
    from ..index.store import Busy

    cfg.require_vault()
    cfg.ensure_cache_dir()
    if cfg.path("index.sqlite").exists():
        try:
            pipeline.sync(cfg, lock_timeout=5)
        except Busy:
            return f"{cfg.vault}: a build is already under way"
        return f"{cfg.vault}: index up to date"
    seen = coldstart.survey(cfg)
    if seen["complete"] and seen["notes"] <= INSTALL_INLINE_MAX_NOTES:
        try:
            stats = pipeline.rebuild(cfg, progress=progress, lock_timeout=5)
        except Busy:
            return f"{cfg.vault}: a build is already under way"
        return (f"{cfg.vault}: index built ({plural(stats['notes'], 'note')} in {stats['seconds']} s); the first session's "
                "brief is ready")
    hooks.start_worker(cfg, "rebuild")
    return (f"{cfg.vault}: a large vault ({seen['notes']}{'' if seen['complete'] else '+'} notes): its index is being "
            "built in the background (`memory-plugin status` shows when it is done); sessions meanwhile get a "
            "brief read from its convention and hub notes")
