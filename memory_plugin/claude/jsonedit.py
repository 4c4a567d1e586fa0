"""Change a JSON file the way its owner wrote it: what is unchanged keeps its original text.

`parse` reads a document (one that json.loads accepts) into Nodes that remember each value's own
text and the whitespace around its members, and refuses an object with a key twice (JSON parsers
keep one of them silently, so a rewrite would lose the other). `dump` writes a changed value: every
part equal to the original is copied as it was written (`1e2` stays `1e2`, `"\\u00e9"` stays
escaped, a one-line array stays on one line); what changed is laid out like its surroundings
(indent unit, tabs, line ends, `": "`), in the value's own key order.
"""
from __future__ import annotations

import json
import re
from json.decoder import scanstring
from json.scanner import NUMBER_RE

_WS = re.compile(r"[ \t\n\r]*")
_CONSTANTS = {"true": True, "false": False, "null": None, "NaN": float("nan"), "Infinity": float("inf"),
              "-Infinity": float("-inf")}


class DuplicateKey(ValueError):
    def __init__(self, key_path: str, line: int):
        super().__init__(f"the key `{key_path}` appears twice (line {line})")
        self.key_path, self.line = key_path, line


class Node:
    """One value of the document: `value` (plain Python), `text` (as written); for a container the
    whitespace before its first member (`open_ws`), after its first comma (`sep_ws`, None with one
    member) and before its closing bracket (`close_ws`); an object's `members` (key -> (key as
    written, text between key and value, Node)) and first `colon`; an array's `items`."""

    __slots__ = ("value", "text", "open_ws", "sep_ws", "close_ws", "colon", "members", "items")

    def __init__(self, value, text: str):
        self.value, self.text = value, text
        self.open_ws = self.close_ws = ""
        self.sep_ws = self.colon = None
        self.members: dict[str, tuple[str, str, Node]] = {}
        self.items: list[Node] = []


class Document:
    def __init__(self, text: str, root: Node, start: int, end: int):
        self.text, self.root = text, root
        self.prefix, self.suffix = text[:start], text[end:]
        self.newline = "\r\n" if "\r\n" in text else "\n"
        # one level of indentation: what precedes the root's first member on its line
        self.unit = root.open_ws.rsplit("\n", 1)[1] if "\n" in root.open_ws else "  "


def parse(text: str) -> Document:
    """The document's Nodes. `text` must be JSON that json.loads accepts; DuplicateKey when an
    object has a key twice. Recursive: a document nested ~1,000 deep raises RecursionError."""
    start = _WS.match(text).end()
    root, end = _value(text, start, "")
    return Document(text, root, start, end)


def _key_path(parent: str, key: str) -> str:
    shown = json.dumps(key, ensure_ascii=False)[1:-1]  # newlines and quotes escaped: the path is one line
    return f"{parent}.{shown}" if parent else shown


def _value(s: str, i: int, where: str) -> tuple[Node, int]:
    c = s[i]
    if c == "{":
        return _object(s, i, where)
    if c == "[":
        return _array(s, i, where)
    if c == '"':
        v, end = scanstring(s, i + 1)
        return Node(v, s[i:end]), end
    for word, v in _CONSTANTS.items():
        if s.startswith(word, i):
            return Node(v, word), i + len(word)
    m = NUMBER_RE.match(s, i)
    integer, frac, exp = m.groups()
    v = float(integer + (frac or "") + (exp or "")) if frac or exp else int(integer)
    return Node(v, m.group()), m.end()


def _open(s: str, i: int, node: Node, close: str) -> tuple[Node, int, bool]:
    """The whitespace after an opening bracket at `i`; (node, the first item's offset, False), or
    (node, the offset past it, True) when the container is empty."""
    j = _WS.match(s, i + 1).end()
    node.open_ws = s[i + 1:j]
    if s[j] == close:
        node.text, node.open_ws = s[i:j + 1], ""
        node.close_ws = s[i + 1:j]
        return node, j + 1, True
    return node, j, False


def _after_item(s: str, i: int, j: int, node: Node) -> tuple[int, int | None]:
    """After an item ending at `j`: (the next item's offset, None) after a comma, keeping the first
    separator's whitespace; else (j, the offset past the closing bracket) with the text recorded."""
    ws_end = _WS.match(s, j).end()
    if s[ws_end] == ",":
        nxt = _WS.match(s, ws_end + 1).end()
        if node.sep_ws is None:
            node.sep_ws = s[ws_end + 1:nxt]
        return nxt, None
    node.close_ws = s[j:ws_end]
    node.text = s[i:ws_end + 1]
    return j, ws_end + 1


def _object(s: str, i: int, where: str) -> tuple[Node, int]:
    node, j, empty = _open(s, i, Node({}, ""), "}")
    if empty:
        return node, j
    while True:
        kstart = j
        key, kend = scanstring(s, j + 1)
        path = _key_path(where, key)
        if key in node.members:
            raise DuplicateKey(path, s.count("\n", 0, kstart) + 1)
        j = _WS.match(s, kend).end() + 1  # past ':'
        j = _WS.match(s, j).end()
        colon = s[kend:j]
        node.colon = node.colon if node.colon is not None else colon
        child, j = _value(s, j, path)
        node.members[key] = (s[kstart:kend], colon, child)
        node.value[key] = child.value
        j, end = _after_item(s, i, j, node)
        if end is None:
            continue
        return node, end


def _array(s: str, i: int, where: str) -> tuple[Node, int]:
    node, j, empty = _open(s, i, Node([], ""), "]")
    if empty:
        return node, j
    while True:
        child, j = _value(s, j, f"{where}[{len(node.items)}]")
        node.items.append(child)
        node.value.append(child.value)
        j, end = _after_item(s, i, j, node)
        if end is None:
            continue
        return node, end


def same(a, b) -> bool:
    """Equal as JSON values, types and key order included (1, 1.0 and true are three values)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


def dump(value, doc: Document | None) -> str:
    """`value` as the text of a document that was `doc` (None: a new file, two-space indents)."""
    if doc is None:
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    return doc.prefix + _dump(value, doc.root, doc.newline, doc.unit, ": ") + doc.suffix


def _dump(v, n: Node | None, line: str, unit: str, colon: str) -> str:
    """`v` where `n` was, on a line that starts with `line` (a line end and that line's indentation;
    no line end: inside a one-line container, so `v` stays on one line too)."""
    if n is not None and same(v, n.value):
        return n.text
    if not isinstance(v, (dict, list)) or not v:
        return json.dumps(v, ensure_ascii=False)
    was = n if n is not None and type(n.value) is type(v) and n.value else None
    if was is not None:
        open_ws, close_ws = was.open_ws, was.close_ws
        sep_ws = was.sep_ws if was.sep_ws is not None else (open_ws if "\n" in open_ws else " ")
        colon = was.colon if was.colon is not None else colon
    elif "\n" in line:
        open_ws = sep_ws = line + unit
        close_ws = line
    else:
        open_ws, sep_ws, close_ws = "", " ", ""
    # the line its members start on (a blank line before the first member is not repeated)
    inner = ("\r\n" if "\r\n" in open_ws else "\n") + open_ws.rsplit("\n", 1)[1] if "\n" in open_ws else ""
    if isinstance(v, dict):
        members = was.members if was is not None else {}
        parts = []
        for k, x in v.items():
            key_text, key_colon, child = members.get(k) or (json.dumps(k, ensure_ascii=False), colon, None)
            parts.append(key_text + key_colon + _dump(x, child, inner, unit, colon))
        brackets = "{}"
    else:
        parts = [_dump(x, child, inner, unit, colon) for x, child in _pair_items(v, was.items if was else [])]
        brackets = "[]"
    return brackets[0] + open_ws + ("," + sep_ws).join(parts) + close_ws + brackets[1]


def _pair_items(new: list, old: list[Node]) -> list[tuple[object, Node | None]]:
    """Each new item with the original item it is (an equal one, in order) or most likely came from
    (the next unused original of the same kind), so unchanged items keep their text when others are
    added, removed or edited."""
    out: list[tuple[object, Node | None]] = []
    cursor = 0
    for x in new:
        hit = next((j for j in range(cursor, len(old)) if same(x, old[j].value)), None)
        if hit is not None:
            out.append((x, old[hit]))
            cursor = hit + 1
        elif cursor < len(old) and type(old[cursor].value) is type(x) and isinstance(x, (dict, list)):
            out.append((x, old[cursor]))
            cursor += 1
        else:
            out.append((x, None))
    return out
