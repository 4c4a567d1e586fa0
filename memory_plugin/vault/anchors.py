"""Code anchors: the repository files, lines and symbols a note cites, the ways developers write them.

Read from a note's text with its fenced code blanked (a code sample is not a citation) and from its
`files:` property:
- a backticked or bare repository path: `starlette/routing.py`, `scripts/check` (whole file);
- `path:163`, `path:160-170`, `path#L10`, `path#L10-L20` (lines); a line range written after a
  path or a symbol in prose (`` `x.py` L675-L702 ``, "(same file, L459-L508)") belongs to the file
  cited last before it;
- a permalink, `https://github.com/OWNER/REPO/blob/COMMIT/path#L10-L20`: the lines as of that
  commit; a fenced block right after it is the code it quotes (the note's own record of those lines);
- a symbol: `` `Class.method()` ``, `` `Class.method` ``, `` `function()` ``. A bare word is a
  mention, not a citation (`BaseHTTPMiddleware`, `send`): an unqualified function counts when its name
  is an identifier no prose word is (`collapse_excgroups()`, `parseHeader()`), or when the note cites
  a file it can belong to (then it is looked up in those files only);
- `files:` entries, as paths with optional lines, and the fingerprint `remember --about` records:
  `starlette/formparsers.py#L160-L170 fp=1a2b3c4d5e6f`.

Nothing here knows a repository: an anchor names a path as written; index/code.py resolves it
against the repository Claude works in.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..core.textutil import identifier_like

# the property a note lists the code it is about in (remember --about writes it)
FILES_PROPS = ("files", "file", "code")
FP_RE = re.compile(r"\s+fp=([0-9a-f]{8,64})\s*$")
_HOSTS = r"(?:github\.com|gitlab\.com|codeberg\.org|bitbucket\.org|[\w.-]*gitea[\w.-]*|git\.[\w.-]+)"
PERMALINK_RE = re.compile(
    r"https?://" + _HOSTS + r"/([\w.-]+)/([\w.-]+)(?:/-)?/(?:blob|blame|src|tree)/([\w.-]+)/([^\s#?)\]>`'\"]+)"
    r"(?:#L(\d+)(?:-L?(\d+))?)?")
_SEG = r"\.?[\w@+-][\w.@+-]*"
PATH = rf"(?:\.{{0,2}}/)?(?:{_SEG}/)+{_SEG}|{_SEG}\.[A-Za-z][\w]{{0,9}}"
LINES = r"(?::(\d+)(?:[-–](\d+))?|#L(\d+)(?:-L?(\d+))?)?"  # after a path: :10, :10-20, #L10, #L10-L20
PATH_LINES_RE = re.compile(rf"^({PATH}){LINES}$")
# in `files:` any name is a file's (`Makefile`, `Dockerfile`)
PROP_PATH_RE = re.compile(rf"^([\w.@+-]+){LINES}$")
BARE_PATH_RE = re.compile(rf"(?<![\w/.`:@-])((?:{_SEG}/)+{_SEG}\.[A-Za-z]\w{{0,9}}){LINES}(?![\w/`])")
PROSE_LINES_RE = re.compile(r"\b(?:L(\d+)(?:\s*[-–]\s*L?(\d+))?|lines?\s+(\d+)(?:\s*[-–]\s*(\d+))?)\b")
SYMBOL_RE = re.compile(r"^((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)(\(\))?$")
CODE_SPAN_RE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FENCE_AFTER_RE = re.compile(r"[ \t]*\n(?:[ \t]*\n)?[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n(.*?)\n[ \t]{0,3}\1", re.S)
# A lone `name.ext` is a file when ext is a source, build or text file's (else `os.environ`,
# `Mount.matches` are a module's or a class's member); a path with a folder is a file whatever it ends in.
FILE_EXTS = frozenset("""py pyi pyx ipynb js mjs cjs jsx ts tsx vue svelte go rs rb php java kt kts scala swift m mm
c h cc cpp cxx hh hpp cs fs ex exs erl hs ml clj lua r jl dart zig nim sh bash zsh fish ps1 bat sql graphql proto
md rst txt adoc toml yaml yml json jsonc ini cfg conf env lock mod sum gradle xml html htm css scss less tf hcl
dockerfile make mk cmake nix el vim""".split())
MAX_QUOTE_LINES = 60


class Anchor(NamedTuple):
    kind: str               # "file", "lines", "symbol"
    file: str | None        # the path as the note writes it (POSIX, no leading ./)
    line1: int | None
    line2: int | None
    symbol: str | None      # the function/method name
    qual: str | None        # its class, when written (`Class.method`)
    commit: str | None      # a permalink's commit
    fp: str | None          # the fingerprint remember --about recorded
    quote: str | None       # the code a permalink's note quotes right after it


def _clean_path(p: str) -> str | None:
    p = p.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    if not p or p.startswith(("/", "~", "../")) or "://" in p or " " in p or p.endswith("/"):
        return None
    ext = p.rsplit("/", 1)[-1].rsplit(".", 1)
    if "/" not in p and (len(ext) < 2 or ext[1].lower() not in FILE_EXTS):
        return None  # a lone word, `1.2`, `os.environ`: no file
    return p


def _has_ext(p: str) -> bool:
    name = p.rsplit("/", 1)[-1]
    return "." in name.strip(".")


def _lines(a, b) -> tuple[int | None, int | None]:
    if not a:
        return None, None
    x, y = int(a), int(b) if b else int(a)
    return (x, y) if y >= x else (y, x)


def from_files_prop(value) -> list[Anchor]:
    vals = value if isinstance(value, list) else [value] if value is not None else []
    out = []
    for v in vals:
        if not isinstance(v, str):
            continue
        fp = None
        m = FP_RE.search(v)
        if m:
            fp, v = m.group(1), v[: m.start()]
        m = PATH_LINES_RE.match(v.strip()) or PROP_PATH_RE.match(v.strip())
        if not m:
            continue
        path = _clean_path(m.group(1))
        if path is None and "/" not in m.group(1):
            path = m.group(1)  # `files: [Makefile]`: the property says it is a file
        if path is None:
            continue
        l1, l2 = _lines(m.group(2) or m.group(4), m.group(3) or m.group(5))
        out.append(Anchor("lines" if l1 else "file", path, l1, l2, None, None, None, fp, None))
    return out


def extract(text: str, props: dict | None = None) -> list[Anchor]:
    """Every anchor of a note: `text` is its body with fenced code blanked (links.mask_blocks),
    `raw` blocks are looked up in `full` for a permalink's quote when given through extract_note."""
    return extract_note(text, text, props)


def extract_note(masked: str, body: str, props: dict | None = None) -> list[Anchor]:
    """Anchors of a note whose body is `body` and whose body with fenced code blanked is `masked`
    (same length, same offsets)."""
    out: list[Anchor] = []
    for k, v in (props or {}).items():
        if str(k).lower() in FILES_PROPS:
            out += from_files_prop(v)
    found: list[tuple[int, int, Anchor]] = []  # (start, end, anchor) in text order
    taken: list[tuple[int, int]] = []
    for m in PERMALINK_RE.finditer(masked):
        path = _clean_path(m.group(4))
        if path is None:
            continue
        ref = m.group(3)
        commit = ref if re.fullmatch(r"[0-9a-f]{7,40}", ref) else None
        l1, l2 = _lines(m.group(5), m.group(6))
        quote = None
        if commit and l1:
            q = FENCE_AFTER_RE.match(body, m.end())
            if q and q.group(2).count("\n") < MAX_QUOTE_LINES:
                quote = q.group(2)
        found.append((m.start(), m.end(), Anchor("lines" if l1 else "file", path, l1, l2, None, None, commit, None, quote)))
        taken.append((m.start(), m.end()))

    def free(a: int, b: int) -> bool:
        return not any(a < y and x < b for x, y in taken)

    for m in CODE_SPAN_RE.finditer(masked):
        if not free(m.start(), m.end()):
            continue
        inner = m.group(1).strip()
        pm = PATH_LINES_RE.match(inner)
        path = _clean_path(pm.group(1)) if pm else None
        if path is not None:
            l1, l2 = _lines(pm.group(2) or pm.group(4), pm.group(3) or pm.group(5))
            found.append((m.start(), m.end(), Anchor("lines" if l1 else "file", path, l1, l2, None, None, None, None, None)))
            taken.append((m.start(), m.end()))
            continue
        sm = SYMBOL_RE.match(inner)
        if sm:
            quals = [q for q in sm.group(1).split(".") if q]
            name, call = sm.group(2), bool(sm.group(3))
            qual = quals[-1] if quals else None
            if qual is not None and not (qual[:1].isupper() or qual.lstrip("_")[:1].isupper()):
                continue  # `request.stream()`, `json.loads`: an object's or a module's, not a class's
            if qual is None and not call:
                continue  # a bare word is a mention
            found.append((m.start(), m.end(), Anchor("symbol", None, None, None, name, qual, None, None, None)))
            taken.append((m.start(), m.end()))
    for m in BARE_PATH_RE.finditer(masked):
        if not free(m.start(), m.end()):
            continue
        path = _clean_path(m.group(1))
        if path is None:
            continue
        l1, l2 = _lines(m.group(2) or m.group(4), m.group(3) or m.group(5))
        found.append((m.start(), m.end(), Anchor("lines" if l1 else "file", path, l1, l2, None, None, None, None, None)))
        taken.append((m.start(), m.end()))
    found.sort(key=lambda t: t[0])
    # prose line ranges: to the file cited last before them (the same paragraph or not), outside code
    spans = [(m.start(), m.end()) for m in CODE_SPAN_RE.finditer(masked)]
    for m in PROSE_LINES_RE.finditer(masked):
        if not free(m.start(), m.end()) or any(x < m.end() and m.start() < y for x, y in spans):
            continue
        prev = [a for s, _, a in found if s < m.start() and a.file and _has_ext(a.file)]
        if not prev:
            continue
        l1, l2 = _lines(m.group(1) or m.group(3), m.group(2) or m.group(4))
        base = prev[-1]
        found.append((m.start(), m.end(), Anchor("lines", base.file, l1, l2, None, None, base.commit, None, None)))
    found.sort(key=lambda t: t[0])
    out += [a for _, _, a in found]
    files = {a.file for a in out if a.file}
    keep, seen = [], set()
    for a in out:
        if a.kind == "symbol" and a.qual is None and not identifier_like(a.symbol) and not files:
            continue  # `send()` in a note that cites no file: a word, not a place
        key = (a.kind, a.file, a.line1, a.line2, a.symbol, a.qual, a.commit)
        if key in seen:
            continue
        seen.add(key)
        keep.append(a)
    return keep
