"""Edit a note's properties by changing lines of its YAML text, never by re-dumping the YAML.

Everything outside the changed keys (other properties, comments, key order, the body, the BOM and
the line endings) stays byte-for-byte.
"""
from __future__ import annotations

import datetime as _dt
import json
import re

from . import frontmatter as _fm
from ..core.errors import VaultError

TYPE_CHECKING = False  # typing and difflib are not imported on the hooks' paths (a few ms each)
if TYPE_CHECKING:
    from typing import Any

# Strings safe to write unquoted: a letter first, then letters, digits, spaces, - _ / and dots.
_PLAIN = re.compile(r"^[^\W\d_][\w\-/. ]*(?<![ .])$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def render(value: Any) -> str:
    """A YAML value that Obsidian and PyYAML both read back as `value`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(render(v) for v in value) + "]"
    s = str(value)
    if _PLAIN.match(s) and s.lower() not in _YAML_WORDS:
        return s
    # A JSON string is a valid YAML double-quoted scalar.
    return json.dumps(s, ensure_ascii=False)


def _newline(text: str) -> str:
    """The line break the text's first line ends with (LF when it has none)."""
    m = _fm.BREAK_RE.search(text)
    return m.group(0) if m else "\n"


class PropEditError(VaultError):
    """A property edit that cannot be made with certainty: the file is left as it was."""


def _refuse(why: str) -> PropEditError:
    return PropEditError(f"cannot change its properties: {why}; the file is unchanged")


def _comparable(data: dict) -> list:
    """Loaded properties as comparable text (NaN equals NaN, dates compare as written)."""
    return [(str(k), json.dumps(v, default=str, sort_keys=True)) for k, v in data.items()]


def set_props(text: str, changes: list[tuple[str, Any]]) -> str:
    """`text` with each (key, value) set: the key's lines (as YAML reads the key and its value)
    replaced, or a line added at the end of the properties. A note without properties gets a
    frontmatter block. Every other line stays byte for byte, and the result is read back: when the
    other properties or the note's privacy would not come out the same, or the properties cannot be
    read with certainty (invalid YAML, a block never closed, a flow mapping, a key twice), nothing is
    changed and PropEditError says why."""
    from . import privacy

    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    nl = _newline(body)
    block = _fm.locate(body)
    if block is None:
        fresh = [f"---{nl}"] + [f"{k}: {render(v)}{nl}" for k, v in changes] + [f"---{nl}"]
        return ("\ufeff" if bom else "") + "".join(fresh) + body
    if block.close is None:
        raise _refuse("its properties block is never closed with `---` (close it by hand)")
    old_data = _load(block.yaml)
    root = _compose(block.yaml)
    yaml_lines = _fm.split_lines(block.yaml)
    lines = list(block.lines)
    spans, adds = [], []
    for key, value in changes:
        span = _key_span(root, yaml_lines, key)
        new_line = f"{key}: {render(value)}{nl}"
        if span:
            spans.append((span[0] + 1, span[1] + 1, new_line))  # +1: the opening fence line
        else:
            adds.append(new_line)
    for start, stop, new_line in sorted(spans, reverse=True):
        lines[start:stop] = [new_line]
    close = len(lines) - 1
    if adds and not _fm.BREAK_RE.search(lines[close - 1]) and close > 0:
        lines[close - 1] += nl
    lines[close:close] = adds
    new_body = "".join(lines) + body[block.body_start:]
    new_block = _fm.locate(new_body)
    new_data = _load(new_block.yaml) if new_block and new_block.close is not None else None
    changed = {k for k, _ in changes}
    want = {k: _load(f"v: {render(v)}")["v"] for k, v in changes}
    if new_data is None or \
            _comparable({k: v for k, v in new_data.items() if k not in changed}) != \
            _comparable({k: v for k, v in old_data.items() if k not in changed}) or \
            _comparable({k: new_data.get(k) for k in want}) != _comparable(want) or \
            privacy.says_private(new_body) != privacy.says_private(body):
        raise _refuse("the other properties would not read back the same")
    return ("\ufeff" if bom else "") + new_body


def edit_prop_lines(text: str, key: str, edit) -> tuple[str, Any]:
    """(`text` with `edit(line) -> line` applied to each line holding top-level property `key`, the
    key's value as YAML reads it back). Every other line stays byte for byte; when the other
    properties or the note's privacy would not read back the same, PropEditError. A note without
    that key (or without properties) comes back as it was, with None."""
    from . import privacy

    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    block = _fm.locate(body)
    if block is None or block.close is None:
        return text, None
    old_data = _load(block.yaml)
    span = _key_span(_compose(block.yaml), _fm.split_lines(block.yaml), key)
    if span is None:
        return text, None
    lines = list(block.lines)
    for i in range(span[0] + 1, span[1] + 1):  # +1: the opening fence line
        lines[i] = edit(lines[i])
    new_body = "".join(lines) + body[block.body_start:]
    new_block = _fm.locate(new_body)
    new_data = _load(new_block.yaml) if new_block and new_block.close is not None else None
    if new_data is None or key not in new_data or \
            _comparable({k: v for k, v in new_data.items() if k != key}) != \
            _comparable({k: v for k, v in old_data.items() if k != key}) or \
            privacy.says_private(new_body) != privacy.says_private(body):
        raise _refuse("the other properties would not read back the same")
    return ("\ufeff" if bom else "") + new_body, new_data[key]


def _load(yaml_text: str) -> dict:
    """The properties as YAML reads them, or PropEditError."""
    from ..core.yamlread import load_yaml, props_too_big

    try:
        data = load_yaml(yaml_text) if yaml_text.strip() else {}
    except Exception as e:  # yaml.YAMLError and the odd C-loader error
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark else ""
        raise _refuse(f"its properties are not valid YAML{where} (fix them by hand)") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _refuse("its properties are not a key: value mapping")
    if props_too_big(data):
        raise _refuse("its properties are too large to read back")
    return data


def _compose(yaml_text: str):
    """The properties' node tree (with each node's line marks), or PropEditError."""
    import yaml

    try:
        root = yaml.compose(yaml_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        raise _refuse("its properties are not valid YAML (fix them by hand)") from None
    if root is not None and (not isinstance(root, yaml.MappingNode) or root.flow_style):
        raise _refuse("its properties are not a block of key: value lines")
    return root


def _key_span(root, lines: list[str], key: str) -> tuple[int, int] | None:
    """[start, stop) of the lines (of the YAML text, `lines`) that hold top-level `key` and its value,
    as YAML reads them (`root`, from _compose); None when the key is not there. A line after the value
    belongs to what follows even when it is indented, unless YAML reads it as part of the value."""
    import yaml

    if root is None:
        return None
    found = [(k, v) for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == key]
    if len(found) > 1:
        raise _refuse(f"the key {key!r} is there twice")
    if not found:
        return None
    k, v = found[0]
    if k.start_mark.column != 0:
        raise _refuse(f"the key {key!r} does not start its line")
    stop = v.end_mark.line + (1 if v.end_mark.column else 0)
    stop = max(stop, k.start_mark.line + 1)
    while stop - 1 > k.start_mark.line and (not lines[stop - 1].strip() or
                                            lines[stop - 1].lstrip().startswith("#")):
        stop -= 1  # blank and comment lines after the value belong to what follows
    return k.start_mark.line, stop


def diff(path: str, old: str, new: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}", n=1))


def as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, list):
        return [v for v in value if v is not None]
    return [value]
