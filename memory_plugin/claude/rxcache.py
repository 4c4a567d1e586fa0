"""Compiled regular expressions kept between processes (speed only: every pattern is the one
`re.compile` makes).

The capture detector's cue patterns are long alternations; compiling them (re's parser and code
generator, in Python) cost each prompt hook 20-170M instructions, more than the rest of a
capture-only run. What `re` hands to `_sre.compile` for a pattern (its flags, code words, groups) is
plain data: it is kept in cache_root()/regex-<python build>.marshal and the next process builds the
same pattern object from it without parsing. The file is tied to the interpreter build (name and
content: sys.version, _sre.MAGIC), keyed by the pattern's text and flags (a changed pattern is a new
entry), checked by `_sre` itself when the object is built (invalid code raises; the pattern is then
compiled as usual), and written atomically, once per process and only when that process compiled a
pattern the file did not have. Only static patterns go through here (a bounded set); anything
unexpected falls back to `re.compile`.
"""
from __future__ import annotations

import re
import sys

_DEBUG = 128  # re.DEBUG: such a pattern prints its code when compiled; never kept
MAX_ENTRIES = 256  # more than the static patterns of every version in use: the file stays small
# "kept": {(pattern, flags): parts} read from the file (None: no cache), "new": what this process added,
# "path": the file
_state: dict = {}


def _tag() -> str | None:
    try:
        import _sre

        return f"{sys.implementation.name}-{sys.hexversion:x}-{_sre.MAGIC}-{_sre.CODESIZE}"
    except Exception:  # noqa: BLE001 - not CPython's re: no cache
        return None


def _file() -> str:
    """The file, as a string: the hook path does without pathlib (~4 ms of imports)."""
    import os

    from ..core.config import _cache_root

    return os.path.join(_cache_root(), f"regex-{_tag()}.marshal")


def path():
    from pathlib import Path

    return Path(_file())


def _read() -> dict:
    import marshal

    try:
        with open(_state["path"], "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not (isinstance(data, dict) and data.get("version") == sys.version and isinstance(data.get("entries"), dict)):
        return {}
    return data["entries"]


def _parts(pattern: str, flags: int) -> tuple:
    """What re._compiler.compile passes to _sre.compile for `pattern` (Python 3.11+)."""
    from re import _compiler, _parser  # noqa: PLC2701 - the same steps as re._compiler.compile

    p = _parser.parse(pattern, flags)
    code = _compiler._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup = [None] * p.state.groups
    for k, i in groupindex.items():
        indexgroup[i] = k
    # the code words as bytes: a smaller file than marshal makes of a list of ints, read ~10x faster
    return (int(flags | p.state.flags), _array(code).tobytes(), int(p.state.groups - 1), groupindex, tuple(indexgroup))


def _array(code=()):
    """The code words as an array of _sre's code size (4 bytes on every CPython build in use)."""
    import array
    import _sre

    a = array.array("I", code)
    if a.itemsize != _sre.CODESIZE:
        raise TypeError("no array type of _sre's code size")
    return a


def _build(pattern: str, parts) -> re.Pattern:
    import _sre

    flags, code, groups, groupindex, indexgroup = parts
    if not (isinstance(flags, int) and isinstance(code, bytes) and isinstance(groups, int)
            and isinstance(groupindex, dict) and isinstance(indexgroup, tuple)):
        raise TypeError("not a kept pattern")
    words = _array()
    words.frombytes(code)
    return _sre.compile(pattern, flags, words.tolist(), groups, groupindex, indexgroup)


def _load() -> None:
    """Read the file once per process; where it is read is where save() writes (the environment may
    change later, as in tests)."""
    _state.update(kept=None, new={}, path=None)
    if _tag():
        try:
            _state["path"] = _file()
        except Exception:  # noqa: BLE001 - no home to keep it in: compile as usual
            return
        _state["kept"] = _read()


def compile(pattern: str, flags: int = 0) -> re.Pattern:  # noqa: A001 - re.compile's name and signature
    """re.compile(pattern, flags) for a static str pattern, from the kept file when it has it."""
    if not _state:
        _load()
    kept = _state["kept"]
    if kept is None or type(pattern) is not str or not isinstance(flags, int) or flags & _DEBUG:
        return re.compile(pattern, flags)
    flags = int(flags)  # a RegexFlag as re._compile takes it (and marshal keeps plain ints only)
    key = (pattern, flags)
    parts = kept.get(key)
    if parts is not None:
        try:
            return _build(pattern, parts)
        except Exception:  # noqa: BLE001 - damaged or foreign entry: compile it again
            pass
    try:
        parts = _parts(pattern, flags)
        rx = _build(pattern, parts)
    except Exception:  # noqa: BLE001 - re's internals changed: the ordinary way, nothing kept
        return re.compile(pattern, flags)
    if not _state["new"]:
        import atexit

        atexit.register(save)
    _state["new"][key] = parts
    return rx


def save() -> None:
    """Add this process's new patterns to the file (atomically; never raises)."""
    new = _state.get("new")
    if not new or _state.get("path") is None:
        return
    try:
        import marshal

        from ..core.fsutil import atomic_write

        entries = dict(_read())
        if len(entries) + len(new) > MAX_ENTRIES:
            entries = {}
        entries.update(new)
        atomic_write(_state["path"], marshal.dumps({"version": sys.version, "entries": entries}))
        _state["kept"] = entries
        _state["new"] = {}
    except Exception:  # noqa: BLE001 - a cache: next time compiles again
        pass
