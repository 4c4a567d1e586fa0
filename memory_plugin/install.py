"""Register the hooks in ~/.claude/settings.json and the skills in ~/.claude/skills, reversibly.

Our entries are recognised by their command (the `memory-plugin` executable with `hook` arguments):
install strips and re-adds them (idempotent), uninstall removes exactly them; every other key and
hook is left as it was. The old file is backed up, the new one written atomically.
"""
from __future__ import annotations

import difflib
import json
import os
import shutil
import sys
from collections.abc import Collection
from pathlib import Path

from .errors import SettingsFileError
from .fsutil import atomic_write

EVENTS = {
    "SessionStart": ("startup|resume|clear|compact", "session-start"),
    "UserPromptSubmit": (None, "user-prompt-submit"),
    "PostToolUse": ("Write|Edit|NotebookEdit", "post-tool-use"),
    "SessionEnd": (None, "session-end"),
}
SKILLS = ("memory-query", "memory-write", "memory-reorganize")
MARKER = ".installed-by-memory-plugin"


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
    here = Path(__file__).resolve().parent
    for cand in (here.parent / "skills", here / "skills"):
        if all((cand / s / "SKILL.md").exists() for s in SKILLS):
            return cand
    raise SettingsFileError(f"the skills folder was not found next to {here}: run install from a checkout")


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
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as e:
        raise SettingsFileError(f"{path} cannot be read ({e}): fix it and run install again") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise SettingsFileError(f"{path} is not valid JSON (line {e.lineno}): fix it and run install again") from None
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
        return ["hooks", *(f"hooks.{e}" for e in EVENTS)]
    return [f"hooks.{e}" for e in EVENTS if e not in hooks]


def with_ours(settings: dict, exe: str) -> dict:
    out = strip_ours(settings, created=())
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsFileError("`hooks` in the settings file is not an object: fix it and run install again")
    for event, (matcher, arg) in EVENTS.items():
        group: dict = {}
        if matcher:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": exe, "args": ["hook", arg], "timeout": 10}]
        hooks.setdefault(event, [])
        if not isinstance(hooks[event], list):
            raise SettingsFileError(f"`hooks.{event}` in the settings file is not a list: fix it and run install again")
        hooks[event].append(group)
    return out


def render(settings: dict) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def diff(old: str | None, new: str, path: Path) -> str:
    return "".join(difflib.unified_diff((old or "").splitlines(True), new.splitlines(True),
                                        f"{path} (now)", f"{path} (after)"))


def _write_settings(path: Path, old_text: str | None, new: dict) -> bool:
    text = render(new)
    if old_text is not None and (text == old_text or json.loads(old_text or "{}") == new):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    if old_text is not None:
        atomic_write(path.with_name(path.name + ".memory-plugin.bak"), old_text, skip_unchanged=False)
    atomic_write(path, text)
    return True


def _set_vault(vault: Path) -> str:
    """Record the vault in the user config file, changing only its `vault:` line."""
    from .config import user_config_path

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
    from .config import user_config_path

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
            exe: str | None = None) -> list[str]:
    path = settings_path or default_settings_path()
    old_text, old = read_settings(path)
    exe = exe or executable()
    if not dry_run:
        skills_source()  # fail before anything is written
    new = with_ours(old, exe)
    msgs = []
    if vault is not None:
        vault = vault.expanduser().absolute()
        if not vault.is_dir():
            raise SettingsFileError(f"vault {vault} is not a folder: check the path")
    if dry_run:
        d = diff(old_text, render(new), path)
        msgs.append(d or f"{path}: nothing to change")
        if vault is not None:
            msgs.append(f"would set vault: {vault} in the user config file")
        return msgs
    changed = _write_settings(path, old_text, new)
    if changed and strip_ours(old) == old:  # a first install: remember what it added, for uninstall
        state = _read_state()
        state.setdefault("settings", {})[str(path.absolute())] = {
            "created_file": old_text is None, "created_keys": _added_keys(old)}
        _write_state(state)
    msgs.append(f"{path}: {'hooks registered' if changed else 'hooks already registered, nothing changed'}"
                + (f" (backup: {path.name}.memory-plugin.bak)" if changed and old_text is not None else ""))
    if vault is not None:
        msgs.append(_set_vault(vault))
    msgs += install_skills()
    return msgs


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
    remove_file = bool(added and added["created_file"] and new == {})  # nothing else was added since
    if dry_run:
        if remove_file:
            return [f"{path}: would be removed (install created it)"]
        return [diff(old_text, render(new), path) or f"{path}: nothing to remove"]
    msgs = []
    if remove_file:
        path.unlink(missing_ok=True)
        path.with_name(path.name + ".memory-plugin.bak").unlink(missing_ok=True)
        msgs.append(f"{path}: removed (install created it)")
    elif old_text is None or json.loads(old_text or "{}") == new:
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
