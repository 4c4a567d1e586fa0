"""The duplicate judge's evidence by meaning, used only when semantic mode is on (the `semantic`
extra installed and an embedding model set) and the index's vectors come from that model.

A note's vector is the normalised mean of its stored chunk vectors (semantic/vectors.py's `chunks` table,
current ones only: a note changed since it was embedded counts as not embedded, and is judged
lexically). A would-be note of `remember` is cut and embedded on the fly the same way (chunks.py),
so both sides are alike. The rule that uses the cosine is `dupes.combine`; the closest passages
quoted for a match by meaning are the pair of sentences, one of each note, whose vectors are
closest. The model is loaded only by CLI commands (`remember`, `reorganize`), never by hooks.
"""
from __future__ import annotations

import re
import sqlite3
from typing import Iterable

from . import dupes
from ..core.sqlutil import rows_in

MAX_SENTENCES = 40     # sentences per note compared for the closest passages
MIN_SENTENCE_WORDS = 3  # shorter fragments (a heading, "See X.") are no passage
BLOCK = 1024           # rows per block of the all-pairs product in reorganize (bounds memory at 10k notes)
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#{1,6}|>)\s*")


def active(cfg, conn: sqlite3.Connection) -> bool:
    """Semantic mode is on and the index holds this model's vectors (cheap: no numpy, no model)."""
    from ..semantic import vectors as S

    if S.mode(cfg)[0] != "semantic":
        return False
    try:
        model = S._get_meta(conn, "embedding_model")
    except sqlite3.Error:
        return False
    return model == S.model_id(cfg)


def _unit(m):
    import numpy as np

    v = m.mean(axis=0)
    n = float(np.linalg.norm(v))
    return v / n if n else v


def stored(conn: sqlite3.Connection, paths: Iterable[str] | None = None) -> dict:
    """{path: unit note vector} of the notes (all, or `paths`) whose vectors are current."""
    import numpy as np

    sql = ("SELECT c.path, c.vec FROM chunks c JOIN notes n ON n.path = c.path AND n.hash = c.note_hash "
           "WHERE n.private = 0")
    rows: list = []
    if paths is None:
        rows = conn.execute(sql + " ORDER BY c.path, c.seq").fetchall()
    else:
        rows = list(rows_in(conn, sql + " AND c.path IN ({in}) ORDER BY c.path, c.seq", dict.fromkeys(paths)))
    by: dict[str, list[bytes]] = {}
    for p, v in rows:
        by.setdefault(p, []).append(v)
    return {p: _unit(np.frombuffer(b"".join(vs), dtype=np.float32).reshape(len(vs), -1)) for p, vs in by.items()}


def embed_doc(cfg, doc: dupes.Doc):
    """The unit note vector of a would-be note, cut into chunks as the index would cut it."""
    from ..semantic import vectors as S
    from ..semantic.chunks import chunk_note

    body = doc.body if doc.body.lstrip().startswith("# ") else f"# {doc.title}\n\n{doc.body or doc.summary}"
    cs = chunk_note(doc.title, doc.summary, body)
    return _unit(S.embed(cfg, [c.text for c in cs]))


def similar(mat, vec, paths: list[str], floor: float) -> list[tuple[str, float]]:
    """(path, cosine) of the rows of `mat` at or above `floor` against `vec`, best first."""
    import numpy as np

    if not paths:
        return []
    scores = mat @ vec
    order = np.argsort(-scores, kind="stable")
    return [(paths[i], float(scores[i])) for i in order if scores[i] >= floor]


def pairs_above(mat, floor: float) -> dict[tuple[int, int], float]:
    """{(i, j): cosine} for i < j of the rows of `mat` at or above `floor`, a block at a time."""
    import numpy as np

    out: dict[tuple[int, int], float] = {}
    n = mat.shape[0]
    for s in range(0, n, BLOCK):
        block = mat[s:s + BLOCK] @ mat.T
        ii, jj = np.nonzero(block >= floor)
        for i, j in zip(ii.tolist(), jj.tolist()):
            if s + i < j:
                out[(s + i, j)] = float(block[i, j])
    return out


def sentences(doc: dupes.Doc) -> list[str]:
    from ..semantic.chunks import _clean

    out = []
    for part in _SENT.split(f"{doc.summary}\n{doc.text()}"):
        s = _clean(_MARK.sub("", part))
        if len(s.split()) >= MIN_SENTENCE_WORDS and s not in out:
            out.append(s)
        if len(out) >= MAX_SENTENCES:
            break
    return out


def closest(cfg, a: dupes.Doc, b: dupes.Doc) -> tuple[str, str] | None:
    """The sentence of `a` and the sentence of `b` closest in meaning (one model call)."""
    return closest_many(cfg, [(a, b)])[0]


def closest_many(cfg, pairs: list[tuple[dupes.Doc, dupes.Doc]]) -> list[tuple[str, str] | None]:
    """`closest` for many pairs, each note's sentences embedded once, in one batched model call."""
    from ..semantic import vectors as S

    sents: dict[int, list[str]] = {}
    for a, b in pairs:
        for d in (a, b):
            if id(d) not in sents:
                sents[id(d)] = sentences(d)
    flat = [s for ss in sents.values() for s in ss]
    if not flat:
        return [None] * len(pairs)
    vecs = S.embed(cfg, list(dict.fromkeys(flat)))
    row = {s: i for i, s in enumerate(dict.fromkeys(flat))}
    out: list[tuple[str, str] | None] = []
    for a, b in pairs:
        sa, sb = sents[id(a)], sents[id(b)]
        if not sa or not sb:
            out.append(None)
            continue
        sims = vecs[[row[s] for s in sa]] @ vecs[[row[s] for s in sb]].T
        i, j = divmod(int(sims.argmax()), len(sb))
        out.append((sa[i], sb[j]))
    return out
