"""Session 8 (s8-calib): the vault's cosine calibration measured from other pseudo-questions.

    python bench/s8_calib.py SOURCE VAULT CACHE_DIR

SOURCE is one of SOURCES below. Runs the product's embed pass (semantic.embed_pending) on CACHE_DIR, a
COPY of an embedded seed cache (it is written), with semantic.calibrate replaced by `calibrate` here
and the calibration forced (nothing is pending, so only the calibration runs); the result is stored
in the index meta as the product stores it, and `memory-plugin --vault VAULT --cache-dir CACHE_DIR
eval QUESTIONS --json` then reads it. No session-8 variant was accepted; session 9's V3
"no-date-questions" was (bench/eval/PROTOCOL.md, s9-calib), and SOURCE "no-date-questions" here is
the product's semantic.calibrate exactly; "titles" is the calibration before it (every title asked).
"""
from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_plugin.semantic import vectors as semantic  # noqa: E402
from memory_plugin.semantic.chunks import _clean  # noqa: E402

# What each pseudo-question is, and how the best cosines are summarised (PROTOCOL, s8-calib):
# "titles": the note's title, mean and sd (main). "summary" (V1): the first WORDS words of the
# note's indexed summary. "middle" (V2): the WORDS words of its body centred on the body's middle
# word (templates and boilerplate sit at a note's top). "robust" (V3): titles, median and MAD x MAD_SD.
# s8-calib2: "shape" (V1): titles, and each title's best cosine leaves out the notes whose title has
# the same shape (digit runs -> "0", letter runs -> "a"). "shape-common" (V2): "shape", and a sampled
# title whose shape more than SHAPE_COMMON of the sampled titles share is not asked.
# s8-calib3: "date-shape" (V1): as "shape" with date_shape (case-folded; month names -> "M", digit
# runs -> "0", nothing else folded), so only date-like and identical titles group.
# s9-calib: "date-like" (V2): a date-like title (date_like) leaves out every date-like note, other titles
# only themselves (as main). "no-date-questions" (V3): date-like titles are not asked; all notes stay
# match candidates.
SOURCES = ("titles", "summary", "middle", "robust", "shape", "shape-common", "date-shape", "date-like",
           "no-date-questions")
TITLE_SOURCES = ("titles", "robust", "shape", "shape-common", "date-shape", "date-like", "no-date-questions")
SHAPE_COMMON = 0.20  # V2: a shape held by more than this share of the sampled titles is not question-like
WORDS = 25        # words of a content pseudo-question: about a typed question's length
MIN_WORDS = 5     # a note with less text than this (a stub: "TBD", "go <url>") is not asked
MAD_SD = 1.4826   # MAD to sd of a normal distribution (robust scale)


def shape(title: str) -> str:
    """Every digit run -> "0", then every letter run -> "a", other characters kept (s8-calib2):
    "2023-08-01" -> "0-0-0", "Sep 14th, 2020" -> "a 0a, 0"."""
    return re.sub(r"[^\W\d_]+", "a", re.sub(r"\d+", "0", title or ""))


# s8-calib3's date_shape and s9-calib's date_like (V2/V3's rule) are the product's since s9-calib (V3 accepted)
date_shape, date_like = semantic.date_shape, semantic.date_like


def pseudo_questions(conn: sqlite3.Connection, have: set, source: str) -> list[tuple[str, str]]:
    """(path, text) of each note's pseudo-question, in main's sample order (sha1 of the path), at most
    semantic.CALIBRATION_TITLES; notes without enough text for it are left out."""
    rows = conn.execute("SELECT n.path, COALESCE(NULLIF(n.display_title, ''), n.title), COALESCE(n.summary, ''),"
                        " COALESCE(f.body, '') FROM notes n JOIN fts f ON f.rowid = n.id"
                        " WHERE n.private = 0 AND n.skipped = 0").fetchall()
    rows = sorted((r for r in rows if r[0] in have),
                  key=lambda r: hashlib.sha1(r[0].encode("utf-8", "surrogatepass")).hexdigest())
    out = []
    for path, title, summary, body in rows:
        if source in TITLE_SOURCES:
            if source == "no-date-questions" and date_like(title):
                continue
            text = title
        else:
            words = _clean(summary if source == "summary" else body).split()
            if len(words) < MIN_WORDS:
                continue
            if source == "summary":
                words = words[:WORDS]
            else:
                start = max(0, len(words) // 2 - WORDS // 2)
                words = words[start:start + WORDS]
            text = " ".join(words)
        if text:
            out.append((path, text))
        if len(out) >= semantic.CALIBRATION_TITLES:
            break
    return out


def calibrate(conn: sqlite3.Connection, encode, mid: str, source: str) -> dict:
    """semantic.calibrate with the pseudo-questions and summary of `source` -> the stored calibration."""
    import numpy as np

    dim = int(semantic._get_meta(conn, "embedding_dim") or 0)
    paths, _, mat = semantic._matrix(conn, dim) if dim else ([], [], None)
    paths = np.array(paths)
    have = set(paths.tolist())
    asked = pseudo_questions(conn, have, source) if len(have) >= semantic.CALIBRATION_MIN else []
    grouped = source.startswith("shape") or source in ("date-shape", "date-like")
    # the group of notes a title leaves out: those of its shape; "date-like": every date-like note for a
    # date-like title, and for any other title (None) nothing but itself
    shape_of = {"date-shape": date_shape, "date-like": lambda t: "date" if date_like(t) else None}.get(source, shape)
    if grouped:
        titles = dict(conn.execute("SELECT path, COALESCE(NULLIF(display_title, ''), title) FROM notes"))
        row_shape = np.array([shape_of(titles.get(p) or "") for p in paths.tolist()])
        if source == "shape-common" and asked:
            counts: dict = {}
            for _, t in asked:
                counts[shape(t)] = counts.get(shape(t), 0) + 1
            limit = SHAPE_COMMON * len(asked)
            asked = [(p, t) for p, t in asked if counts[shape(t)] <= limit]
    best = []
    if len(asked) >= 2:
        vecs = np.asarray(encode([t for _, t in asked]), dtype=np.float32)
        for (path, title), v in zip(asked, vecs):
            scores = mat @ v
            scores[paths == path] = -1.0
            if grouped and shape_of(title) is not None:
                out = (paths == path) | (row_shape == shape_of(title))
                if out.all():
                    continue  # no chunk of a different-shape note: this title is not asked
                scores[out] = -1.0
            best.append(float(scores.max()))
    cal = {"notes": len(have), "n": len(best), "model": mid, "source": source}
    if len(best) >= 2:
        if source == "robust":
            med = float(np.median(best))
            cal.update(mean=med, sd=max(float(np.median(np.abs(np.array(best) - med))) * MAD_SD, 1e-3))
        else:
            cal.update(mean=float(np.mean(best)), sd=max(float(np.std(best)), 1e-3))
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('cosine_calibration', ?)", (json.dumps(cal),))
    conn.execute("COMMIT")
    return cal


def main(argv: list[str]) -> int:
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index

    source, vault, cache = argv
    if source not in SOURCES:
        raise SystemExit(f"source must be one of {SOURCES}")
    semantic.calibrate = lambda conn, encode, mid: calibrate(conn, encode, mid, source)
    semantic._needs_calibration = lambda conn, mid: True
    cfg = load_config(vault=vault, cache_dir=cache)
    stats = semantic.embed_pending(cfg)
    conn = open_index(cfg)
    try:
        cal = json.loads(semantic._get_meta(conn, "cosine_calibration") or "null")
    finally:
        conn.close()
    print(json.dumps({"embed": stats, "calibration": cal}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
