"""Settings: defaults < user config file < environment < command line, validated in one place."""
from __future__ import annotations

import os

TYPE_CHECKING = False  # importing typing itself costs every hook ~2 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

from .errors import ConfigError

# key: (type, default). `config.yaml` at the repository top documents each one; a test keeps them equal.
SCHEMA: dict[str, tuple[type | tuple, Any]] = {
    "vault": ((str, type(None)), None),
    "cache_dir": ((str, type(None)), None),
    "exclude": (list, [".trash", "Templates"]),
    "max_note_bytes": (int, 5_000_000),
    "note_seconds": ((int, float), 5),
    "worker_seconds": ((int, float), 900),
    "hub_count": (int, 10),
    "hub_types": (list, ["hub", "moc"]),
    "hub_tags": (list, ["hub", "moc"]),
    "hub_folders": (list, []),
    "hub_title_patterns": (list, ["MOC *", "* MOC", "Map of *", "* Map of Content"]),
    "convention_tag_prefix": (str, "convention"),
    "brief_chars": (int, 6000),  # BRIEF_MIN_CHARS..BRIEF_HARD_CAP
    "journal_folder": (str, "journal"),
    "rebuild_after_days": ((int, float), 7),
    "stale_after_hours": ((int, float), 24),
    "cold_start_max_notes": (int, 3000),  # coldstart.py: measured in bench/RESULTS.md
    "resolve_aliases": (bool, False),
    "comment_links": (bool, True),
    "report_max_items": (int, 25),
    "type_folders": (dict, {
        "decision": "Decisions", "pitfall": "Pitfalls", "pattern": "Patterns",
        "learning": "Learnings", "convention": "Conventions", "note": "Inbox",
    }),
    "confidence_default": ((int, float), 0.7),
    "confidence_half_life_days": ((int, float), 180),
    "prune_threshold": ((int, float), 0.2),
    "query_budget_tokens": (int, 1500),
    "html_max_nodes": (int, 1500),
    "redact_emails": (bool, False),
    # a model name (models cache / `memory-plugin model download`) or a local folder; "off": lexical only
    "embedding_model": (str, "sentence-transformers/all-MiniLM-L6-v2"),
    "code_context": (bool, True),  # PostToolUse on a repository file adds the notes citing it (claude/code_hook.py)
    # on: its figures hold (bench/RESULTS.md, "UserPromptSubmit recall and capture": the blind prompt sets,
    # and the code-memory sets replayed through the installed hooks)
    "prompt_recall": (bool, True),
    "prompt_recall_max_items": (int, 3),  # 0..3
    "prompt_capture": (bool, True),
}

BRIEF_HARD_CAP = 10_000
BRIEF_MIN_CHARS = 1200  # the brief's frame (fence, vault line, last error, how to ask) always fits


class Config:
    """Resolved settings: `vault` and `cache_dir` (Paths), and every SCHEMA key as an attribute.

    The two folders are kept as strings (`vault_str`, `cache_str`) and made Paths on first use:
    importing pathlib costs ~17M instructions, as much as all else a file event on code no note cites
    adds to bare interpreter start, and that hook needs no Path (claude/code_hook.py)."""

    def __init__(self, vault: str | os.PathLike | None, cache_dir: str | os.PathLike,
                 values: dict[str, Any] | None = None, sources: dict[str, str] | None = None):
        self.vault_str = None if vault is None else os.fspath(vault)
        self.cache_str = os.fspath(cache_dir)
        self._paths: dict[str, Path] = {}
        self.values, self.sources = values or {}, sources or {}

    def _as_path(self, key: str, value: str) -> Path:
        p = self._paths.get(key)
        if p is None:
            from pathlib import Path

            p = self._paths[key] = Path(value)
        return p

    @property
    def vault(self) -> Path | None:
        return None if self.vault_str is None else self._as_path("vault", self.vault_str)

    @property
    def cache_dir(self) -> Path:
        return self._as_path("cache_dir", self.cache_str)

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    def check_vault(self) -> str:
        """The vault, checked: an existing, readable directory (as a string: no pathlib)."""
        from .errors import VaultError

        v = self.vault_str
        if v is None:
            raise VaultError("no vault configured: pass --vault PATH, set MEMORY_PLUGIN_VAULT, "
                             "or set `vault:` in the config file")
        if not os.path.exists(v):
            raise VaultError(f"vault {v} does not exist: check the path")
        if not os.path.isdir(v):
            raise VaultError(f"vault {v} is a file, not a folder: point --vault at the vault folder")
        if not os.access(v, os.R_OK | os.X_OK):
            raise VaultError(f"vault {v} cannot be read: check its permissions")
        return v

    def require_vault(self) -> Path:
        """The vault, checked (check_vault), as a Path."""
        self.check_vault()
        return self.vault

    def path(self, name: str) -> Path:
        return self.cache_dir / name

    def cache_file(self, name: str) -> str:
        """path(name) as a string (the hooks' paths: no pathlib)."""
        return os.path.join(self.cache_str, name)

    def ensure_cache_dir(self) -> None:
        from .errors import CacheError

        d = self.cache_str
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as e:
            raise CacheError(f"cache dir {d} cannot be created ({e.strerror}): "
                             "set MEMORY_PLUGIN_CACHE_DIR or --cache-dir to a writable folder") from None
        if not os.access(d, os.W_OK | os.X_OK):
            raise CacheError(f"cache dir {d} is not writable: "
                             "set MEMORY_PLUGIN_CACHE_DIR or --cache-dir to a writable folder")


def user_config_path() -> Path:
    from pathlib import Path

    return Path(_user_config_file())


def _user_config_file() -> str:
    env = os.environ.get("MEMORY_PLUGIN_CONFIG")
    if env:
        return os.path.expanduser(env)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "memory-plugin", "config.yaml")


def vault_id(vault: str | os.PathLike) -> str:
    import re
    import zlib  # not hashlib: loading OpenSSL costs every hook ~2 ms

    real = os.path.realpath(vault)
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", os.path.basename(real)).strip("-") or "vault"
    return f"{slug[:40]}-{zlib.crc32(real.encode('utf-8', 'surrogateescape')):08x}"


def cache_root() -> Path:
    """memory-plugin's folder in the user's cache ($XDG_CACHE_HOME or ~/.cache): vaults' caches, models."""
    from pathlib import Path

    return Path(_cache_root())


def _cache_root() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "memory-plugin")


def default_cache_dir(vault: str | os.PathLike | None) -> Path:
    from pathlib import Path

    return Path(_default_cache_dir(vault))


def _default_cache_dir(vault: str | os.PathLike | None) -> str:
    return os.path.join(_cache_root(), vault_id(vault) if vault else "no-vault")


def _check(key: str, value: Any, source: str) -> Any:
    if key not in SCHEMA:
        raise ConfigError(f"{source}: unknown key `{key}`: remove it or check its spelling "
                          f"(known keys are listed in config.yaml)")
    typ, default = SCHEMA[key]
    # bool is an int in Python; keep them apart so `hub_count: true` is an error.
    ok = isinstance(value, typ) and not (isinstance(value, bool) and bool not in _as_tuple(typ))
    if not ok:
        want = " or ".join(t.__name__ for t in _as_tuple(typ) if t is not type(None))
        raise ConfigError(f"{source}: key `{key}` must be {want}, not {type(value).__name__} ({value!r})")
    if isinstance(value, list) and not all(isinstance(x, str) for x in value):
        raise ConfigError(f"{source}: key `{key}` must be a list of strings")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise ConfigError(f"{source}: key `{key}` must not be negative ({value})")
    if key == "brief_chars" and value > BRIEF_HARD_CAP:
        raise ConfigError(f"{source}: key `brief_chars` must be at most {BRIEF_HARD_CAP} "
                          "(Claude Code saves longer SessionStart context to a file)")
    if key == "brief_chars" and value < BRIEF_MIN_CHARS:
        raise ConfigError(f"{source}: key `brief_chars` must be at least {BRIEF_MIN_CHARS} "
                          "(the brief's frame alone takes up to that)")
    if key == "journal_folder" and (_path(value).is_absolute() or ".." in _path(value).parts):
        raise ConfigError(f"{source}: key `journal_folder` must be a folder inside the vault, not {value!r}")
    if key == "prompt_recall_max_items" and value > 3:
        raise ConfigError(f"{source}: key `prompt_recall_max_items` must be at most 3 (the prompt hook adds "
                          "at most 600 characters)")
    if key == "type_folders":
        for k, v in value.items():
            if not isinstance(v, str) or v.startswith("/") or ".." in _path(v).parts:
                raise ConfigError(f"{source}: key `type_folders.{k}` must be a folder inside the vault")
    return value


def _path(p: str) -> Path:
    from pathlib import Path  # for keys a config file seldom has: pathlib only then

    return Path(p)


def _as_tuple(t):
    return t if isinstance(t, tuple) else (t,)


def _read_file(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot be read ({e}): fix or remove it") from None
    data = _parse_yaml(path, text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must be a mapping of keys to values")
    return data


# Importing yaml costs every hook and command ~25 ms of CPU (its reader compiles a large regex):
# what it made of the config file's text last time is kept as JSON, and used while the text is
# the same. Only values that JSON gives back as they were (str, int, float, bool, None, lists,
# mappings with string keys) are kept; a file with a date, say, is parsed by yaml each time.
PARSED_CONFIG = "config-parsed.json"  # in cache_root()


def _parse_yaml(path: str, text: str):
    import json

    kept = os.path.join(_cache_root(), PARSED_CONFIG)
    try:
        with open(kept, encoding="utf-8") as f:
            last = json.load(f)
        if isinstance(last, dict) and last.get("text") == text:
            return last.get("data")
    except (OSError, ValueError, RecursionError):
        pass
    import yaml  # only when there is a file: the hooks pay for it only then
    try:
        # libyaml's loader when PyYAML has it: it refuses a 3,000-deep file in milliseconds, where
        # the pure-Python one recurses for seconds before it fails
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = " ".join(str(getattr(e, "problem", None) or "").split())
        where = ", ".join(x for x in (problem, f"line {mark.line + 1}" if mark else "") if x)
        raise ConfigError(f"{path}: is not valid YAML{f' ({where})' if where else ''}: fix it") from None
    except RecursionError:
        raise ConfigError(f"{path}: nests too deep to be read: fix it") from None
    from .yamlread import MAX_PROP_DEPTH, MAX_PROP_VALUES, props_too_big

    # a note's limits: an alias bomb (a few hundred bytes, a billion values once expanded) would
    # otherwise make every walk below, and so every hook and command, run for ever
    if isinstance(data, (dict, list)) and props_too_big(data):
        raise ConfigError(f"{path}: holds more than {MAX_PROP_VALUES} values once YAML aliases are expanded, "
                          f"or nests deeper than {MAX_PROP_DEPTH} levels: write its values out without YAML "
                          "aliases (`*name`) or deep nesting")
    if _json_exact(data):
        from .fsutil import atomic_write

        try:
            atomic_write(kept, json.dumps({"text": text, "data": data}))
        except OSError:  # no cache to write to: yaml again next time
            pass
    return data


def _json_exact(v) -> bool:
    """Does a JSON round trip give `v` back exactly (types included)?"""
    if v is None or isinstance(v, (str, bool, int)):
        return True
    if isinstance(v, float):
        return v == v and v not in (float("inf"), float("-inf"))
    if isinstance(v, list):
        return all(_json_exact(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _json_exact(x) for k, x in v.items())
    return False


# The app a vault is written for, told by the files the app keeps at the vault's root: its title and
# link rules differ (vault/dialect.py). A few stats, no reading: every hook loads the config.
DIALECT_MARKERS = (
    ("dendron", "dendron.yml"),             # a Dendron workspace (or self-contained vault)
    ("dendron", "root.schema.yml"),         # Dendron writes root.md and root.schema.yml in every vault
    ("dendron", "dendron.code-workspace"),
    ("logseq", os.path.join("logseq", "config.edn")),
    ("foam", os.path.join(".foam", "")),           # Foam's workspace folder (templates live in it)
    ("foam", os.path.join(".vscode", "foam.json")),  # what foam-vscode activates on in a workspace
    ("obsidian", os.path.join(".obsidian", "")),   # Obsidian's settings folder
)


def detect_dialect(vault: str | os.PathLike | None) -> str:
    """"dendron", "logseq", "foam", "obsidian", or "plain" for a folder no app has marked."""
    if vault is not None:
        for dialect, marker in DIALECT_MARKERS:
            where = os.path.join(vault, marker)
            if os.path.isdir(where) if marker.endswith(os.sep) else os.path.isfile(where):
                return dialect
    return "plain"


def load_config(vault: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None,
                config_file: str | os.PathLike | None = None,
                overrides: dict[str, Any] | None = None) -> Config:
    values = {k: (v.copy() if isinstance(v, (list, dict)) else v) for k, (_, v) in SCHEMA.items()}
    sources = {k: "default" for k in SCHEMA}
    if config_file:
        from pathlib import Path

        path = str(Path(config_file).expanduser())
    else:
        path = _user_config_file()
    if config_file and not os.path.exists(path):
        raise ConfigError(f"{path}: config file does not exist")
    for key, value in _read_file(path).items():
        values[key] = _check(str(key), value, str(path))
        sources[key] = str(path)
    for key, env in (("vault", "MEMORY_PLUGIN_VAULT"), ("cache_dir", "MEMORY_PLUGIN_CACHE_DIR"),
                     ("embedding_model", "MEMORY_PLUGIN_EMBEDDING_MODEL")):
        if os.environ.get(env) is not None and (os.environ[env] or key == "embedding_model"):
            values[key] = os.environ[env]
            sources[key] = f"${env}"
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = _check(key, value, "command line")
            sources[key] = "command line"
    if vault is not None:
        values["vault"], sources["vault"] = str(vault), "command line"
    if cache_dir is not None:
        values["cache_dir"], sources["cache_dir"] = str(cache_dir), "command line"
    vpath = _absolute(values["vault"]) if values["vault"] else None
    cpath = _absolute(values["cache_dir"]) if values["cache_dir"] else _default_cache_dir(vpath)
    # computed, not a setting: cfg.values carries it to the parse stage (and its worker processes)
    values["dialect"] = detect_dialect(vpath)
    return Config(vault=vpath, cache_dir=cpath, values=values, sources=sources)


def _absolute(path: str) -> str:
    """Path(path).expanduser().absolute() as a string (the Path made of it is the same)."""
    p = os.path.expanduser(path)
    return p if os.path.isabs(p) else os.path.join(os.getcwd(), p)
