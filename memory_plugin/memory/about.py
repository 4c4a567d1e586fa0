"""The code a memory is about: `remember --about PATH[:LINES]` records it in the note's `files:`
property with a fingerprint of the cited lines, and `validate` records the fingerprints again.

An entry reads `path/from/the/top-level#L10-L20 fp=<fingerprint>` (a whole file: the path alone and
the fingerprint of the file); vault/anchors.from_files_prop reads it back and index/code.py compares
the code with it, so a later change of those lines is exact and lines that only moved are followed.
"""
from __future__ import annotations

import os
import re

from ..core.errors import MemoryPluginError
from ..index import code
from ..vault import anchors, propedit

# PATH, then :10 or :10-20, or #L10 or #L10-L20
SPEC_RE = re.compile(r"^(.+?)(?::(\d+)(?:-(\d+))?|#L(\d+)(?:-L?(\d+))?)?$")
FP_TOKEN_RE = re.compile(r"(?<![\w-])fp=([0-9a-f]{8,64})\b")


class AboutError(MemoryPluginError):
    pass


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def resolve(specs, cwd: str) -> list[dict]:
    """Each `--about` spec as the `files:` entry to record: [{entry, file, lines, fp}], in the order
    given, once each. Every spec is checked before anything is written: a file of the working
    folder's git repository (relative to the working folder, or absolute), lines inside it."""
    specs = [s for s in specs if s is not None]
    if not specs:
        return []
    repo = code.repo_root(cwd)
    if repo is None:
        raise AboutError(f"--about {specs[0]}: the working folder {cwd} is not in a git repository; "
                         "run remember from inside the repository the memory is about")
    top = os.path.realpath(repo)
    out: list[dict] = []
    for spec in specs:
        m = SPEC_RE.match(spec.strip())
        if not m or not m.group(1).strip():
            raise AboutError(f"--about {spec!r}: give a file, optionally with lines: PATH, PATH:10, PATH:10-20 "
                             "or PATH#L10-L20")
        path = m.group(1).strip()
        l1 = m.group(2) or m.group(4)
        l2 = m.group(3) or m.group(5) or l1
        full = path if os.path.isabs(path) else os.path.join(cwd, path)
        real = os.path.realpath(full)
        rel = os.path.relpath(real, top).replace(os.sep, "/")
        if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
            raise AboutError(f"--about {spec}: {path} is outside the repository {top}: cite a file of it")
        if rel == "." or os.path.isdir(real):
            raise AboutError(f"--about {spec}: {path} is a folder: cite a file (and its lines)")
        if rel.split("/")[0] == ".git":
            raise AboutError(f"--about {spec}: {path} is inside .git: cite a file of the repository")
        if not os.path.isfile(real):
            raise AboutError(f"--about {spec}: no file {path} (looked for {full}): check the path")
        text = code.read_code(real)
        if text is None:
            raise AboutError(f"--about {spec}: {path} is binary or larger than {code.MAX_CODE_BYTES // 1_000_000} MB: "
                             "cite a source file")
        file_lines = text.split("\n")
        if l1:
            a, b = int(l1), int(l2)
            n = _line_count(text)
            if a < 1 or b < a or b > n:
                raise AboutError(f"--about {spec}: {path} has {n} line{'s' if n != 1 else ''}; give lines "
                                 f"from 1 to {n}, the first before the last")
            lines = code.block(file_lines, a, b)
            entry = f"{rel}#L{a}" + (f"-L{b}" if b != a else "")
        else:
            a = b = None
            lines = file_lines
            entry = rel
        if not code._norm(lines):
            raise AboutError(f"--about {spec}: {'those lines are' if a else 'the file is'} blank: cite lines with code")
        fp = code.fingerprint(lines)
        entry += f" fp={fp}"
        back = anchors.from_files_prop([entry])
        if len(back) != 1 or (back[0].file, back[0].line1, back[0].line2, back[0].fp) != (rel, a, b, fp):
            raise AboutError(f"--about {spec}: the path {rel} has characters a note's citation cannot hold "
                             "(spaces, quotes): cite it in the body instead")
        if all(d["entry"] != entry for d in out):
            out.append({"entry": entry, "file": rel, "lines": [a, b] if a else None, "fp": fp})
    return out


def merged(current, new: list[dict]) -> list[str]:
    """A `files:` value with the new entries: an entry citing the same file and lines is replaced."""
    keep = [str(v) for v in propedit.as_list(current)]
    for d in new:
        keep = [v for v in keep if FP_TOKEN_RE.sub("", v).strip() != d["entry"].rsplit(" fp=", 1)[0]]
    return keep + [d["entry"] for d in new]


def files_key(props: dict) -> str | None:
    """The property a note lists its code in (`files`, `file` or `code`, any case), or None."""
    return next((k for k in props if str(k).lower() in anchors.FILES_PROPS), None)


# ---------------------------------------------------------------- validate: the fingerprints again

def _judge_entry(a: anchors.Anchor, repo: str, texts: dict) -> tuple[str, str | None]:
    """(state, the fingerprint to record now or None) of one `files:` entry that has a fingerprint."""
    if a.file not in texts:
        texts[a.file] = code.read_code(os.path.join(repo, a.file))
    text = texts[a.file]
    if text is None:
        return "missing", None
    file_lines = text.split("\n")
    if a.line1 and (a.line2 or a.line1) > _line_count(text):
        return "missing", None
    row = {"kind": a.kind, "file": a.file, "line1": a.line1, "line2": a.line2, "fp": a.fp}
    state, _, _ = code.state_of(row, a.file, text, None)
    if state != "changed":
        return state, None  # current, or moved: the same code elsewhere (followed, fingerprint kept)
    lines = code.block(file_lines, a.line1, a.line2 or a.line1) if a.line1 else file_lines
    return state, (code.fingerprint(lines) if code._norm(lines) else None)


def refresh(text: str, props: dict, repo: str | None) -> tuple[str, dict | None]:
    """(`text` with the fingerprints of its `files:` entries whose code changed recorded from the
    code as it is in `repo` now, what was found: {"repository", "anchors": [{cite, state,
    recorded}]}). Only the `fp=` tokens change; an entry whose file or lines are gone keeps its
    fingerprint (the citation needs a person). None: the note records no fingerprint."""
    key = files_key(props)
    if key is None:
        return text, None
    entries = [str(v) for v in propedit.as_list(props[key])]
    parsed = [(v, (anchors.from_files_prop([v]) or [None])[0]) for v in entries]
    with_fp = [(v, a) for v, a in parsed if a is not None and a.fp]
    if not with_fp:
        return text, None
    info: dict = {"repository": repo, "anchors": []}
    new_fps: list[str] = []
    texts: dict = {}
    for v, a in with_fp:
        cite = code.cite_text({"kind": a.kind, "file": a.file, "line1": a.line1, "line2": a.line2})
        state, fp = ("unknown", None) if repo is None else _judge_entry(a, repo, texts)
        info["anchors"].append({"cite": cite, "state": state, "recorded": fp is not None})
        new_fps.append(fp or a.fp)
    if new_fps == [a.fp for _, a in with_fp]:
        return text, info
    it = iter(zip([a.fp for _, a in with_fp], new_fps))

    def edit(line: str) -> str:
        def one(m):
            old, new = next(it, (None, None))
            if old != m.group(1):
                raise AboutError("its `files:` fingerprints are not written one per entry: record them "
                                 "again by hand")
            return f"fp={new}"
        return FP_TOKEN_RE.sub(one, line)

    pos = {id(a): fp for (_, a), fp in zip(with_fp, new_fps)}
    want = [_with_fp(v, pos[id(a)]) if a is not None and id(a) in pos else v for v, a in parsed]
    try:
        new_text, value = propedit.edit_prop_lines(text, key, edit)
    except AboutError as e:
        raise propedit.PropEditError(f"cannot record the fingerprints again: {e}") from None
    if [str(v) for v in propedit.as_list(value)] != want:
        raise propedit.PropEditError("cannot record the fingerprints again: its `files:` would not read back "
                                     "as the same entries; the file is unchanged")
    return new_text, info


def _with_fp(entry: str, fp: str) -> str:
    """`entry` with its fingerprint (the last `fp=` token) replaced by `fp`."""
    m = anchors.FP_RE.search(entry)
    return entry[:m.start(1)] + fp + entry[m.end(1):] if m else entry
