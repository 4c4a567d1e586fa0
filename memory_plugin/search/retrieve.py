"""The retrievers behind `query`, each a ranked list of notes with the reason it found each one, and
their fusion.

- lexical: FTS5 BM25 over title, aliases, tags, headings, summary, body and properties (the text
  of properties and inline fields, and the titles of the notes property links point to); the question's words
  OR'ed, stop words dropped, and those half the notes have (BM25 gives them no weight); every note
  BM25 ranks is a candidate (no coverage gate).
- names:   a title, alias, tag or project the question names.
- semantic: close in meaning (semantic.search, when the semantic layer is on); evidence only when
  closer than usual in this vault (SEMANTIC_EVIDENCE_Z).
- graph:   neighbours of the best fused candidates over links, typed relations and rare shared tags.
RETRIEVERS, at the end, is the one table of them (name, weight, how each runs) that the fusion, the
answer's `why`, the prompt hook and the eval read: a new retriever is one function and one row there.
Lists are fused by CombSUM of their scores (`fuse`).
"""
from __future__ import annotations

import json
import math
import re
import sqlite3

from ..core import textutil as T
from ..core.record import Record
from ..core.sqlutil import rows_in
from ..index.store import PROP_TITLES_MARK

# ---------------------------------------------------------------- the retrieval constants, in one place
DEPTH = 50  # how many candidates each retriever hands to the fusion
# FTS5 column weights, in the fts table's column order (index/store.py): title, aliases, tags,
# summary, body, headings, props. PROPS_WEIGHT: the `props` column, a note's property values and
# inline fields (`director: [[Ridley Scott]]`): what its owner filed as a fact about the note, so a
# word there counts as two in the body. Set on bench/dev/logseq (block fields on most pages; hybrid
# lexical MRR 0.576 at 1.0, 0.594 at 2.0, R@5 0.683 either way, 0.583 at 0.5) and the dialect dev
# sets (facts and questions the same at 1.0 and 2.0); the fixture (regression) and dendron (report
# only) lost nothing (MRR 0.913 -> 0.928, 0.581 -> 0.582). A weight other than 1.0 makes the anchor
# run plain BM25's own search (query._anchor).
PROPS_WEIGHT = 2.0
BM25_WEIGHTS = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, PROPS_WEIGHT)
FTS5_DEFAULT_WEIGHTS = (1.0,) * 7  # what bm25(fts) gives each column when called without weights
# The `filed` list: notes by the share of the question's idf mass their property values hold (what the
# owner filed as facts about a note; titles, aliases and tags are short and found as names already).
# BM25 weighs a row against the whole note's length, so a fact in the properties of a long note (a
# book's `year: 1923` above 16,000 characters of highlights) counts for little there; here the note's
# length does not matter. FILED_CANDIDATES: how many notes whose properties hold one of the words are
# read and weighed (the best by BM25 over that column first).
FILED_CANDIDATES = 400
FILED_WEIGHT = 1.0  # a note all of whose question words are in its properties weighs what the words' best note does
# The lists that read the same words of a note (fuse): its evidence from them is the stronger reading,
# the words' two BM25 lists together or the filed list, never their sum (a short note's property words
# are in its BM25 score already)
SAME_WORDS = ("lexical", "forms", "filed")
PROP_WHY_CHARS = 80  # a property line in `why` is cut to this many characters
# What a property line in `why` shows of its value: the words a reader sees, as a summary shows them
# (vault/notes.py clean_summary; the parser is not imported here, as the prompt hook never loads it,
# and tests/test_shown_strings.py holds the two to the same reading): a link reads as its label
# (`[[target|label]]`; Dendron puts the label first, `[[label|target]]`; `[text](url)` and the style
# Dendron sets after an image, `{max-width: 300px}`), and a template placeholder (`{{date}}`,
# `<% tp… %>`, `#placeholder/…`) or an Obsidian block id (`… ^github`) is no text.
_WHY_WIKILINK_RE = T.LazyPattern(r"!?\[\[([^\[\]|\n]*+)(?:\|([^\[\]\n]*+))?\]\]")
_WHY_MDLINK_RE = T.LazyPattern(r"!?\[([^\[\]\n]*+)\]\((?:[^()\n]|\([^()\n]*+\))*+\)(?:\{[^{}\n]*+\})?")
_WHY_NOT_TEXT_RE = T.LazyPattern(r"\{\{[^{}\n]*+\}\}|<%[^%\n]*+%>|(?<![\w#/])#placeholder/[^\s#,;]*+"
                                 r"|(?:^|[ \t])\^[A-Za-z0-9-]++[ \t]*+$")
_WHY_MARKUP = ("[", "{{", "<%", "#placeholder/", "^", "dendron://")  # what a value holds before _why_value has work
# Dendron's cross-vault address (`dendron://VAULT/note`, also written bare in a property): reads as its note
_WHY_VAULT_PREFIX_RE = T.LazyPattern(r"dendron://(?:[^/\s\[\]|]*+/)?")
# FTS5's bm25 (fts5_aux.c), not ours to set: k1, and the idf it gives a term half the rows have.
# Each term adds idf * tf(k1 + 1) / (tf + k1 * length norm) < idf * (k1 + 1) to a note's score.
FTS5_K1, FTS5_ZERO_IDF = 1.2, 1e-6
# The retrievers' weights in the fusion and which lists are min-max scaled: see RETRIEVERS.
GRAPH_SEEDS = 8       # the best fused candidates the graph expands from
EDGE = {
    "link": 0.5, "mdlink": 0.5, "embed": 0.5,  # a plain link from the note
    "property": 0.8,  # a typed relation (depends_on: [[X]], supersedes: ...), a deliberate link
    "inbound": 0.8,   # factor for a link into the seed rather than out of it
    "second_hop": 0.35,  # a typed relation of a first-hop neighbour
    "tag": 0.2,       # a shared tag, divided by sqrt(notes carrying it)
}
RARE_TAG_MAX = 12     # a tag on more notes than this links nothing in particular
HUB_DEGREE = 10       # a neighbour linked with more notes than this spreads less (hub_damping)
# "Close in meaning" is evidence only when closer than usual in this vault: the semantic search ranks
# every note by cosine (in a small vault, all of them), so its tail is close to nothing in particular.
# A hit's cosine is read as a z-score against the vault's own calibration (semantic/vectors.py, the
# abstention's yardstick): at or above this, the note is closer to the question than a typical note
# is to its nearest other note, and the answer says so (naming the section or the passage); below
# (but for the list's best hit), the semantic list still ranks it, but it is no reason to show it
# (query drops a note found by nothing else) and no `why`. 0 is abstention's `novel_z`, the same
# "no closer than usual".
SEMANTIC_EVIDENCE_Z = 0.0
# Word pieces that are no words (what's -> s, you're -> re): never searched for, never a `why`.
FRAGMENTS = frozenset("s t d m re ve ll".split())
# Scripts written without spaces between words (Chinese, Japanese kana; unicode61, the index's
# tokenizer, keeps a run of them as one token): a name in one is found in the question by its
# characters, not by its words (names()).
UNSPACED_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


class Cand(Record):
    """One candidate note."""
    _FIELDS = __match_args__ = ("path", "ranks", "raw", "why", "fused", "score", "mine", "demoted")

    def __init__(self, path: str, ranks: dict[str, int] | None = None, raw: dict[str, float] | None = None,
                 why: dict[str, str] | None = None, fused: float = 0.0, score: float = 0.0, mine: bool = False,
                 demoted: bool = False):
        self.path = path
        self.ranks = {} if ranks is None else ranks  # list name -> 1-based rank
        self.raw = {} if raw is None else raw        # list name -> the retriever's score
        self.why = {} if why is None else why        # list name -> why it found the note
        self.fused = fused
        self.score = score
        self.mine = mine
        self.demoted = demoted  # a rule with a cause (kind, journal, history, project) lowered it


def content_words(words: list[str], drop=frozenset()) -> list[str]:
    """The words worth searching for: no stop words, no word pieces, none of `drop`."""
    return list(dict.fromkeys(w for w in words if w not in T.STOPWORDS and w not in FRAGMENTS and w not in drop
                              and (len(w) > 1 or w.isdigit())))


def bm25_args(weights: tuple = BM25_WEIGHTS) -> str:
    """`weights` as bm25()'s SQL arguments: "1.0, 1.0, ..." (floats, so repr is valid SQL)."""
    return ", ".join(repr(float(w)) for w in weights)


def public(conn: sqlite3.Connection, ids_or_paths: list, type_: str | None, by: str = "id") -> dict:
    """{id or path: path} of those notes that are neither private nor skipped (and of `type_`)."""
    sql = f"SELECT {by}, path FROM notes WHERE {by} IN ({{in}}) AND private = 0 AND skipped = 0"
    return dict(rows_in(conn, sql + (" AND type = ?" if type_ else ""), ids_or_paths, [type_] if type_ else ()))


def informative(conn: sqlite3.Connection, terms: list[str]) -> tuple[list[str], int]:
    """(the FTS5 terms worth scoring, how many were left out as common). A term is worth scoring
    when some note has it and fewer than half the notes do: bm25() gives a term at least half the
    rows have an idf of 1e-6 (log((N - n + 0.5) / (n + 0.5)), clamped at zero), no weight, yet a
    query with it scores every note that has it (in a big vault, most of them); a term no note has
    adds nothing. When no term is worth scoring, all are kept: bm25 still orders the notes that
    have the common ones by how often and how densely they have them."""
    rows = conn.execute("SELECT count(*) FROM notes").fetchone()[0]  # one fts row per note
    half = (rows + 1) // 2  # n >= N / 2
    dfs = [conn.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)", (t, half)).fetchone()[0]
           for t in terms]
    keep = [t for t, n in zip(terms, dfs) if 0 < n < half]
    return (keep, sum(n >= half for n in dfs)) if keep else (terms, 0)


def bm25_search(conn: sqlite3.Connection, terms: list[str], type_: str | None, limit: int,
                weights: tuple = BM25_WEIGHTS) -> tuple[list[tuple[int, float]], dict[int, str], dict]:
    """BM25 over `terms` OR'ed, less those half the notes have (`informative`): (up to `limit`
    (rowid, score) best first, {rowid: path} of those public and of `type_`, the ranking's head:
    "first" and "second" (rowid, score) or None, "path": the first one's path when it is public
    (and of `type_`), else None, "cut": whether common terms were left out, and "slack": at most how
    much they would have added to any note's score, whatever the column `weights`: a term adds at most
    its idf times k1 + 1)."""
    searched, common = informative(conn, terms)
    ranked = conn.execute(f"SELECT rowid, -bm25(fts, {bm25_args(weights)}) FROM fts WHERE fts MATCH ? "
                          f"ORDER BY bm25(fts, {bm25_args(weights)}) LIMIT ?", (" OR ".join(searched), limit)).fetchall()
    ok = public(conn, [r[0] for r in ranked], type_)
    head = {"first": ranked[0] if ranked else None, "second": ranked[1] if len(ranked) > 1 else None,
            "path": ok.get(ranked[0][0]) if ranked else None, "cut": common > 0,
            "slack": common * FTS5_ZERO_IDF * (FTS5_K1 + 1)}
    return ranked, ok, head


def lexical(conn: sqlite3.Connection, content: list[str], type_: str | None,
            forms: bool = False, top: dict | None = None,
            label_first: bool = False) -> list[tuple[str, float, list[str], str]]:
    """BM25 hits best first: [(path, bm25, the question's words the note has, why)]; the words
    themselves, or (`forms`) their stems as prefixes too (testing ~ tests, tested), less those half
    the notes have (the words a note has are still all of them). `top`, when given, gets the
    ranking's head (bm25_search). `label_first`: links in properties put the label first (Dendron)."""
    if not content:
        return []
    terms = [T.fts_term(w) for w in content] if forms else [f'"{w}"' for w in content]
    ranked, ok, head = bm25_search(conn, terms, type_, DEPTH * 4)
    if top is not None:
        top.update(head)
    ranked = [(rid, s) for rid, s in ranked if rid in ok][:DEPTH]
    if not ranked:
        return []
    texts, props = {}, {}
    for r in conn.execute(f"SELECT rowid, title, aliases, tags, summary, headings, body, props FROM fts"
                          f" WHERE rowid IN ({','.join('?' * len(ranked))})", [r[0] for r in ranked]):
        texts[r[0]] = T.fold("\n".join(x or "" for x in r[1:]))
        if r[7]:
            props[r[0]] = (r[7], T.fold("\n".join(x or "" for x in r[1:3])))
    rx = {w: T.term_regex(w) for w in content}
    whole: dict[str, T.Term] = {}
    has = {rid: [w for w in content if rx[w].search(texts.get(rid, ""))] for rid, _s in ranked}
    df: dict[str, int] = {}  # how many of these notes have each word: a rarer one says more
    for ws in has.values():
        for w in ws:
            df[w] = df.get(w, 0) + 1
    out = []
    for rid, s in ranked:
        hay = texts.get(rid, "")
        matched = has[rid]
        why = "matched " + ", ".join(_found_as(w, rx[w], hay, whole) for w in matched[:6]) if matched else ""
        if matched and rid in props:
            line = prop_line(props[rid][0], [(rx[w], 1 / df[w]) for w in matched], props[rid][1], label_first)
            if line:
                kv = re.match(r"([^:]+?)::? (.+)", line)
                # in words, not as the note's YAML (`categories: [[Books]]`): a reader's answer
                why += f" in the property {kv[1]} ({kv[2]})" if kv else f" in {line}"
        out.append((ok[rid], s, matched, why))
    return out


def _why_value(line: str, label_first: bool) -> str:
    """A `key: value` property line as `why` shows it (_WHY_WIKILINK_RE): its value's words; "" when
    nothing of the value is text."""
    key, sep, value = line.partition(": ")
    if not sep or not any(m in value for m in _WHY_MARKUP):
        return line
    value = _WHY_VAULT_PREFIX_RE.sub("", _WHY_NOT_TEXT_RE.sub(" ", value))
    value = _WHY_WIKILINK_RE.sub(_label_first if label_first else _label, value)
    value = _WHY_MDLINK_RE.sub(lambda m: m[1], value)
    value = " ".join(value.split()).strip(" ,;")
    return f"{key}: {value}" if value else ""


def _label(m: re.Match) -> str:
    return (m[2] or m[1].split("#")[0]).strip().rstrip("\\")


def _label_first(m: re.Match) -> str:
    return (m[1] if m[2] is not None else m[1].split("#")[0]).strip().rstrip("\\")


def prop_line(text: str, terms: list[tuple], named: str = "", label_first: bool = False) -> str:
    """The property line (`key: value`, as a reader sees it: _why_value; cut to PROP_WHY_CHARS)
    that holds the question's words (`terms`: (pattern, weight), a rarer word weighing more) best,
    when one holds a word the note's title and aliases (`named`, folded) do not: what an answer found
    through a property says it found. "" when none. `label_first`: a Dendron vault's links."""
    best, best_w = "", 0.0
    for line in text.replace(PROP_TITLES_MARK, "\n").split("\n"):
        line = _why_value(line, label_first)
        folded = T.fold(line)
        here = [(t, w) for t, w in terms if t.search(folded)]
        weight = sum(w for _t, w in here)
        if weight > best_w and any(not t.search(named) for t, _w in here):
            best, best_w = line, weight
    best = " ".join(best.split())
    if len(best) > PROP_WHY_CHARS:
        cut = best[:PROP_WHY_CHARS - 1]
        key_end = cut.find(": ") + 2
        head = cut.rsplit(" ", 1)[0]
        best = (head if len(head) > key_end + 10 else cut) + "…"
    return best


def lexical_floors(lists: dict[str, tuple[list, dict]]) -> dict[str, float]:
    """{list name: 0.0} for each BM25 list (name -> (hits, its `top`)) that left terms out and is
    shorter than DEPTH: the notes those terms alone would have added scored ~1e-6 of its best, so
    its scaling keeps BM25's zero as its floor, as they gave it."""
    return {n: 0.0 for n, (hits, top) in lists.items() if top.get("cut") and len(hits) < DEPTH}


def _found_as(w: str, rx: T.Term, hay: str, whole: dict[str, T.Term]) -> str:
    """`w` as the note writes it: `w` itself, else the form its stem matched: `test` (for testing).
    `whole`: the whole-word patterns made so far (one per word, not one per note)."""
    if w not in whole:
        whole[w] = T.word_term(w)
    if whole[w].search(hay):
        return f"`{w}`"
    return f"`{T.WORD_RE.match(hay, rx.search(hay).start()).group()}` (for {w})"


def idf_weights(conn: sqlite3.Connection, content: list[str], n_notes: int,
                words: list[str] | None = None) -> dict[str, tuple[float, int]]:
    """word -> (BM25's idf, how many public notes have it). A note has a word when it has the word or
    one of its forms (T.same_word), or, `words` being the question's words in order, the word run
    together with the next one ("burnout" for "burning out"): the stem as a prefix ("bread"*) also
    matches other words ("breadth", "desktop" for "desk"), and a vault that has only those does not
    know the word. A word only private notes have counts as one no note has: what the vault is known
    to hold (abstention, the prompt hook's weights) must not depend on, or give away, what its
    private notes say."""
    has_private = conn.execute("SELECT 1 FROM notes WHERE private = 1 LIMIT 1").fetchone() is not None
    sql = "SELECT count(*) FROM fts WHERE fts MATCH ?" + (
        " AND rowid NOT IN (SELECT id FROM notes WHERE private = 1)" if has_private else "")
    nxt: dict[str, set[str]] = {}
    for a, b in zip(words or (), (words or ())[1:]):
        nxt.setdefault(a, set()).add(b)
    out = {}
    for w in dict.fromkeys(content):
        term = T.fts_term(w)
        df = conn.execute(sql, (term,)).fetchone()[0]
        token = T.fts_token(w)
        # the word itself in a public note (the vocabulary lists private notes' titles too)
        if df and term.endswith("*") and token and not conn.execute(sql, (f'"{token}"',)).fetchone()[0]:
            # the stem as a prefix found only other words ("bread" in "breadth"): the word's forms count
            try:
                forms = _forms_of(conn, token, nxt.get(w, ()))
            except sqlite3.OperationalError:  # no temp table on this connection (query_only): the prefix's count
                forms = None
            if forms is not None:
                df = conn.execute(sql, (" OR ".join(f'"{t}"' for t in forms),)).fetchone()[0] if forms else 0
        out[w] = (math.log((n_notes - df + 0.5) / (df + 0.5) + 1), df)
    return out


def _vocab(conn: sqlite3.Connection) -> str:
    """The index's words (an fts5vocab table in the connection's temp schema: nothing is written to
    the index file, a read-only connection can have it)."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words USING fts5vocab(main, fts, 'row')")
    return "temp.fts_words"


FORM_LONGER_MAX = 7  # a form of a word whose stem was not cut is at most this much longer than the stem
                    # (the longest ending, "ations", and a doubled consonant): longer words are not read


def _forms_of(conn: sqlite3.Connection, w: str, then=()) -> list[str]:
    """The index's words that are forms of the token `w` (T.same_word), or of `w` run together with
    a word of `then` (the question's words after it), among those its stem starts. Only words a
    form could be are listed: a Zettelkasten's thousands of `2023…` ids are not read for "2023"."""
    s = T.stem(w)
    then = [x for x in (T.fts_token(x) for x in then) if x]
    longest = len(s) + FORM_LONGER_MAX + max((len(x) for x in then), default=0)
    if len(s) >= 6:  # a stem of six letters is what a long word's stem is cut to (T.stem): any length
        longest = 10 ** 6
    return [t for (t,) in conn.execute(f"SELECT term FROM {_vocab(conn)} WHERE term >= ? AND term < ? "
                                       "AND length(term) <= ?", (s, s + "\U0010ffff", longest))
            if T.same_word(t, w) or any(t.endswith(x) and T.same_word(t[:-len(x)], w) for x in then)]


def names(conn: sqlite3.Connection, words: list[str], content: list[str], type_: str | None,
          covers: dict[str, list[str]] | None = None) -> tuple[list[tuple[str, float]], dict]:
    """Notes whose title or alias the question names, or a tag or project it names, weighted by the
    share of the question's words the name covers (a rarer tag weighs more). -> ([(path, weight)], {path: why});
    `covers`, when given, gets {path: the words of the name the question holds} (the abstention
    weighs them by idf)."""
    n_content = max(1, len(content))
    found: dict[str, tuple[float, str, list[str]]] = {}

    def add(path, weight, why, ws=()):
        if weight > found.get(path, (0.0, "", []))[0]:
            found[path] = (weight, why, list(ws))

    like = [w for w in content if len(w) >= 2][:12]
    if like:
        # Candidates: notes whose title or an alias has a word that starts with one of the question's
        # words (FTS5 prefix terms over the index's title and alias columns; the check below decides).
        # These are the notes a scan of every title and alias with LIKE '%word%' found (as an earlier
        # version did: 30 ms at 10,000 notes, against 3), less those where the word only sits
        # inside another ("upstate"): on every question of every eval set, the same names found.
        rows = conn.execute(
            "SELECT n.path, n.title, n.display_title, n.aliases FROM fts JOIN notes n ON n.id = fts.rowid"
            " WHERE fts MATCH ? AND n.private = 0 AND n.skipped = 0 ORDER BY fts.rowid LIMIT 400",
            ["{title aliases}: (" + " OR ".join(f'"{w}"*' for w in like) + ")"]).fetchall()
        unspaced = [w for w in like if UNSPACED_RE.search(w)]
        if unspaced:  # a name in an unspaced script starts at any character of the question's run
            rows += conn.execute(
                "SELECT n.path, n.title, n.display_title, n.aliases FROM fts JOIN notes n ON n.id = fts.rowid"
                " WHERE fts MATCH ? AND n.private = 0 AND n.skipped = 0 ORDER BY fts.rowid LIMIT 400",
                ["{title aliases}: (" + " OR ".join(dict.fromkeys(f'"{w[i:i + 2]}"*' for w in unspaced
                                                                  for i in range(len(w) - 1))) + ")"]).fetchall()
        chars = sum(len(w) for w in content)
        for path, title, dtitle, aliases in rows:
            # a display title like the title adds nothing (add keeps the first of equal weights)
            named = [("title", title)] + ([("title", dtitle)] if dtitle != title else [])
            for kind, name in named + [("alias", a) for a in (json.loads(aliases) if aliases and aliases != "[]" else ())]:
                nw = T.words(name)
                useful = [w for w in nw if w not in T.STOPWORDS]
                why = f"{kind} `{name}` named in the question"
                if useful and T.contains_seq(words, nw):
                    add(path, min(1.0, len(useful) / n_content) ** 1.5, why, useful)
                elif unspaced and len(whole := "".join(nw)) >= 2 and UNSPACED_RE.search(whole) \
                        and whole in "".join(words):
                    # the share of the question's characters the name covers (its words are no unit)
                    add(path, min(1.0, len(whole) / chars) ** 1.5, why, [w for w in content if w in whole or whole in w])
    for tag, count in conn.execute("SELECT tag_lc, count(*) FROM tags GROUP BY tag_lc"):
        parts, last = T.words(tag), T.words(tag.rsplit("/", 1)[-1])
        if not parts or not (T.contains_seq(words, parts) or (last and T.contains_seq(words, last))):
            continue
        if all(w in T.TYPE_WORDS or w in T.STOPWORDS for w in last or parts):
            continue
        weight = min(1.0, len(last or parts) / n_content) * (0.5 + 0.5 / math.log2(2 + count))
        for (path,) in conn.execute("SELECT path FROM tags WHERE tag_lc = ?", (tag,)):
            add(path, weight, f"tagged #{tag}", last or parts)
    for (proj,) in conn.execute("SELECT DISTINCT project FROM notes WHERE project IS NOT NULL"):
        pw = T.words(proj)
        if pw and T.contains_seq(words, pw):
            n = conn.execute("SELECT count(*) FROM notes WHERE project = ?", (proj,)).fetchone()[0]
            for (path,) in conn.execute("SELECT path FROM notes WHERE project = ?", (proj,)):
                add(path, min(1.0, len(pw) / n_content) * (0.5 + 0.5 / math.log2(2 + n)), f"project {proj}", pw)
    ok = public(conn, list(found), type_, by="path")
    ranked = sorted((p for p in found if p in ok), key=lambda p: (-found[p][0], p))[:DEPTH]
    if covers is not None:
        covers.update((p, found[p][2]) for p in ranked)
    return [(p, found[p][0]) for p in ranked], {p: found[p][1] for p in ranked}


def filed(conn: sqlite3.Connection, content: list[str], type_: str | None, weights: dict[str, tuple[float, int]],
          label_first: bool = False) -> tuple[list[tuple[str, float]], dict]:
    """Notes whose property values hold the question's words, by the share of the idf mass of its
    words some note has that they hold there (`weights`: idf_weights) ->
    ([(path, share)] best first, {path: why}); see FILED_CANDIDATES."""
    known = [w for w in dict.fromkeys(content) if weights.get(w, (0.0, 0))[1]]
    mass = sum(weights[w][0] for w in known)
    if not known or mass <= 0:
        return [], {}
    rows = conn.execute(
        "SELECT n.path, f.title, f.aliases, f.props FROM fts f JOIN notes n ON n.id = f.rowid "
        "WHERE fts MATCH ? AND n.private = 0 AND n.skipped = 0 ORDER BY bm25(fts, 0, 0, 0, 0, 0, 0, 1.0) LIMIT ?",
        ["{props}: (" + " OR ".join(T.fts_term(w) for w in known) + ")", FILED_CANDIDATES]).fetchall()
    rx = {w: T.term_regex(w) for w in known}
    scored: dict[str, tuple[float, list[str], tuple]] = {}
    for path, title, aliases, props in rows:
        hay = T.fold(props or "")
        has = [w for w in known if rx[w].search(hay)]
        if has:
            scored[path] = (sum(weights[w][0] for w in has) / mass, has, (props, T.fold(f"{title or ''}\n{aliases or ''}")))
    ok = public(conn, list(scored), type_, by="path")
    ranked = sorted((p for p in scored if p in ok), key=lambda p: (-scored[p][0], p))[:DEPTH]
    why = {}
    for p in ranked:
        share, has, (props, named) = scored[p]
        line = prop_line(props, [(rx[w], 1 / max(1, weights[w][1])) for w in has], named, label_first) if props else ""
        kv = re.match(r"([^:]+?)::? (.+)", line) if line else None
        if kv:
            why[p] = f"matched {', '.join(f'`{w}`' for w in has[:6])} in the property {kv[1]} ({kv[2]})"
    return [(p, scored[p][0]) for p in ranked], why


def graph(conn: sqlite3.Connection, seeds: list[tuple[str, float]], type_: str | None) -> tuple[list[tuple[str, float]], dict]:
    """Neighbours of the seeds [(path, fused score)] (not the seeds themselves: they were found
    already), best first, each scored by spreading the seed's score (relative to the best seed) over
    its edges: edge weight / sqrt(the seed's neighbours). -> ([(path, score)], {path: why})"""
    if not seeds:
        return [], {}
    top = seeds[0][1] or 1.0
    seed_w = {p: sc / top for p, sc in seeds}
    seeds = [p for p, _ in seeds]
    titles = dict(conn.execute(f"SELECT path, display_title FROM notes WHERE path IN ({','.join('?' * len(seeds))})", seeds))
    score: dict[str, float] = {}
    best_why: dict[str, tuple[float, str]] = {}

    def add(other, contrib, why):
        if contrib <= 0 or other in seed_w:
            return
        score[other] = score.get(other, 0.0) + contrib
        if contrib > best_why.get(other, (0.0, ""))[0]:
            best_why[other] = (contrib, why)

    frontier: dict[str, float] = {}
    hop: list[tuple[str, float, str]] = []
    for s in seeds:
        b = seed_w[s]
        rows = conn.execute(
            "SELECT l.target, l.kind, l.prop, 'out' FROM links l WHERE l.src = ? AND l.target IS NOT NULL "
            "UNION ALL SELECT l.src, l.kind, l.prop, 'in' FROM links l JOIN notes n ON n.path = l.src "
            "WHERE l.target = ? AND n.type != 'journal'", (s, s)).fetchall()
        nbrs: dict[str, tuple[float, str | None, str]] = {}
        for other, kind, prop, d in rows:
            if other == s or not other.lower().endswith(".md"):
                continue
            w = EDGE.get(kind, EDGE["link"]) * (1.0 if d == "out" else EDGE["inbound"])
            if w > nbrs.get(other, (0.0, None, ""))[0]:
                nbrs[other] = (w, prop if kind == "property" and prop else None, d)
        fan = math.sqrt(max(1, len(nbrs)))
        name = titles.get(s, s)
        for other, (w, prop, d) in nbrs.items():
            if prop:
                p = prop.replace("_", " ")
                why = f"[[{name}]] {p} it" if d == "out" else f"{p} [[{name}]]"
            else:
                why = f"linked from [[{name}]]" if d == "out" else f"links to [[{name}]]"
            hop.append((other, b * w / fan, why))
    damp = hub_damping(conn, list({o for o, _, _ in hop}))
    for other, contrib, why in hop:
        add(other, contrib * damp.get(other, 1.0), why)
        frontier[other] = max(frontier.get(other, 0.0), contrib * damp.get(other, 1.0))
    for mid, strength in sorted(frontier.items(), key=lambda kv: -kv[1])[:10]:
        for other, prop in conn.execute("SELECT target, prop FROM links WHERE src = ? AND kind = 'property' "
                                        "AND target IS NOT NULL", (mid,)):
            if other not in seeds and other != mid:
                add(other, EDGE["second_hop"] * strength, f"two links away ({prop.replace('_', ' ')})")
    for s in seeds[:4]:
        for tag, count in conn.execute("SELECT t.tag_lc, (SELECT count(*) FROM tags x WHERE x.tag_lc = t.tag_lc) "
                                       "FROM tags t WHERE t.path = ?", (s,)).fetchall():
            if count > RARE_TAG_MAX or count < 2 or tag in T.TYPE_WORDS:
                continue
            for (other,) in conn.execute("SELECT path FROM tags WHERE tag_lc = ? AND path != ?", (tag, s)):
                add(other, EDGE["tag"] * seed_w[s] / math.sqrt(count), f"shares #{tag} with [[{titles.get(s, s)}]]")
    ok = public(conn, list(score), type_, by="path")
    ranked = sorted((p for p in score if p in ok), key=lambda p: (-score[p], p))[:DEPTH]
    return [(p, score[p]) for p in ranked], {p: best_why[p][1] for p in ranked if p in best_why}


def hub_damping(conn: sqlite3.Connection, paths: list[str]) -> dict[str, float]:
    """path -> the factor its graph score is multiplied by: 1 up to HUB_DEGREE linked notes, then
    sqrt(HUB_DEGREE / degree): a note linked with everything (a feature list, an index page) is no
    evidence about any one question."""
    if not HUB_DEGREE:
        return {}
    deg = dict(rows_in(conn, "SELECT p, count(DISTINCT o) FROM (SELECT target AS p, src AS o FROM links WHERE"
                             " target IN ({in}) UNION ALL SELECT src, target FROM links WHERE src IN ({in})"
                             " AND target IS NOT NULL) GROUP BY p", paths))
    return {p: math.sqrt(HUB_DEGREE / n) for p, n in deg.items() if n > HUB_DEGREE}


def add(cands: dict[str, Cand], name: str, ranked: list[tuple[str, float]], why: dict) -> None:
    """Record one retriever's ranked list [(path, score)] on the candidates."""
    for rank, (path, score) in enumerate(ranked, 1):
        c = cands.get(path)
        if c is None:
            c = cands[path] = Cand(path)
        c.ranks[name], c.raw[name] = rank, score
        if why.get(path):
            c.why[name] = why[path]


def fuse(cands: dict[str, Cand], semantic: bool = True, floors: dict[str, float] | None = None) -> None:
    """Set each candidate's fused score from its lists: CombSUM of the scores times each retriever's
    weight, a `scaled` retriever's scores (BM25, cosine) min-max scaled over its list, the others as
    they are (already 0..1: the share of the question named, the spread seed score). `semantic`:
    whether the semantic list took part (a retriever's `weight_lexical` applies when not). `floors`:
    a list's lowest value for the scaling when its tail was left out (`lexical_floors`). CombSUM beat
    Reciprocal Rank Fusion on bench/dev with and without semantic. The lists of SAME_WORDS count
    once: the stronger of the words' lists and the filed list."""
    span: dict[str, tuple[float, float]] = {n: (v, v) for n, v in (floors or {}).items()}
    for c in cands.values():
        for n, v in c.raw.items():
            lo, hi = span.get(n, (v, v))
            span[n] = (min(lo, v), max(hi, v))
    weight = {r.name: r.weight if semantic or r.weight_lexical is None else r.weight_lexical for r in RETRIEVERS}
    scaled = {r.name for r in RETRIEVERS if r.scaled}
    for c in cands.values():
        total, words, filed_ = 0.0, 0.0, 0.0
        for n, v in c.raw.items():
            lo, hi = span[n]
            x = ((v - lo) / (hi - lo) if hi > lo else 1.0) if n in scaled else v
            if n == "filed":
                filed_ = weight[n] * x
            elif n in SAME_WORDS:
                words += weight[n] * x
            else:
                total += weight[n] * x
        c.fused = total + max(words, filed_)


# ---------------------------------------------------------------- the retrievers, in one table

def preload(cfg, conn: sqlite3.Connection) -> None:
    """Start loading the embedding model (in a thread) while the words are searched."""
    try:
        from ..semantic import vectors as semantic
    except ImportError:
        return
    semantic.preload(cfg, conn)


def semantic_hits(cfg, conn: sqlite3.Connection, text: str,
                  stats: dict | None = None) -> tuple[list | None, str, bool]:
    """(semantic hits, notice, complete) when the semantic layer is on, (None, notice, False) when
    not: the notice is the one-line reason when semantic search was asked for (extra installed or
    model configured) but cannot run, "" when lexical is simply the mode. `complete`: every note
    that can be embedded is (else the semantic score cannot say what the vault lacks)."""
    try:
        from ..semantic import vectors as semantic
    except ImportError:
        return None, "", False
    try:
        # no mode() check first: search raises SemanticUnavailable, whose `expected` says whether
        # the user asked for semantic search (then the one-line fallback notice is printed)
        hits = semantic.search(cfg, conn, text, k=DEPTH, stats=stats if stats is not None else {})
        embeddable = conn.execute("SELECT count(*) FROM notes WHERE private = 0 AND skipped = 0").fetchone()[0]
        return hits, "", (stats or {}).get("notes", 0) >= embeddable
    except semantic.SemanticUnavailable as e:
        why = f"semantic search unavailable ({e}); lexical only" if getattr(e, "expected", True) else ""
        return None, why, False


class Ask:
    """One question as the retrievers see it, and what they leave for the answer: `found` (name ->
    (ranked [(path, score)], {path: why})) and each one's own extras (`hits`, `tops`, `sem`...)."""
    __slots__ = ("cfg", "conn", "text", "words", "content", "type_", "semantic", "seeds", "found", "hits",
                 "tops", "sem", "close", "stats", "notice", "complete", "named", "weights")

    def __init__(self, cfg, conn: sqlite3.Connection, text: str, words: list[str], content: list[str],
                 type_: str | None, semantic: bool = True):
        self.cfg, self.conn, self.text, self.type_, self.semantic = cfg, conn, text, type_, semantic
        self.words, self.content = words, content
        self.seeds: list[tuple[str, float]] = []  # the best fused candidates, for the retrievers after fusion
        self.found: dict[str, tuple[list[tuple[str, float]], dict[str, str]]] = {}
        self.hits: dict[str, list] = {}  # lexical / forms: [(path, bm25, the question's words it has, why)]
        self.tops: dict[str, dict] = {}  # lexical / forms: the BM25 ranking's head (bm25_search)
        self.named: dict[str, list[str]] = {}  # names: {path: the words of its name the question holds}
        self.sem: list | None = None     # the semantic hits kept (public, of the type asked)
        self.close: set[str] = set()     # ... of those, the notes closer than usual (SEMANTIC_EVIDENCE_Z)
        self.stats: dict = {}
        self.notice, self.complete = "", False
        self.weights: dict[str, tuple[float, int]] | None = None  # the content words' (idf, df): idf_weights


def _words(forms: bool):
    name = "forms" if forms else "lexical"

    def run(a: Ask):
        dendron = a.cfg is not None and a.cfg.values.get("dialect") == "dendron"
        hits = a.hits[name] = lexical(a.conn, a.content, a.type_, forms=forms, top=a.tops.setdefault(name, {}),
                                      label_first=dendron)
        return [(h[0], h[1]) for h in hits], {h[0]: h[3] for h in hits}
    return run


def _names(a: Ask):
    return names(a.conn, a.words, a.content, a.type_, a.named)


def _filed(a: Ask):
    if a.weights is None:
        n_notes = a.conn.execute("SELECT count(*) FROM notes").fetchone()[0] or 1
        a.weights = idf_weights(a.conn, a.content, n_notes, a.words)
    dendron = a.cfg is not None and a.cfg.values.get("dialect") == "dendron"
    return filed(a.conn, a.content, a.type_, a.weights, label_first=dendron)


def _semantic(a: Ask):
    if not a.semantic:
        return None
    sem, a.notice, a.complete = semantic_hits(a.cfg, a.conn, a.text, a.stats)
    if sem is None:
        return None
    ok = public(a.conn, [h.path for h in sem], a.type_, by="path")
    a.sem = [h for h in sem if h.path in ok]
    mean, sd = a.stats.get("calibration", (0.5, 1.0))
    # its best hit is evidence whatever its z: an answer given at all (query's abstention read that
    # cosine against the same calibration) may rest on it, as a paraphrase sharing no word does
    a.close = {h.path for i, h in enumerate(a.sem) if i == 0 or (h.score - mean) / (sd or 1.0) >= SEMANTIC_EVIDENCE_Z}
    return ([(h.path, h.score) for h in a.sem], {h.path: _close_why(h) for h in a.sem if h.path in a.close})


def _close_why(h) -> str:
    """What the note is close in meaning by: its section, else the first words of the passage."""
    if h.heading:
        return f"close in meaning: §{h.heading}"
    words = (h.snippet or "").split()
    return f"close in meaning: “{' '.join(words[:8])}{'…' if len(words) > 8 else ''}”" if words else "close in meaning"


def _graph(a: Ask):
    return graph(a.conn, a.seeds, a.type_)


class Retriever(Record):
    """One ranked list of the answer. `run(ask)` -> (ranked [(path, score)] best first, {path: why}),
    or None when it cannot run (semantic search off). `weight`: its share in the fusion
    (`weight_lexical`, when given, with the semantic list absent); `scaled`: its scores are min-max
    scaled there (else they are 0..1 already); `words`: it finds a note by the question's words
    (the prompt hook's agreement rule); `after_fusion`: it runs on the fused candidates
    (`Ask.seeds`), and the fusion is made again with it; `why_rank`: where its reason stands in the
    answer's `why`; `shadowed_by`: another list whose reason says all this one's does."""
    _FIELDS = ("name", "run", "weight", "weight_lexical", "scaled", "words", "after_fusion", "why_rank",
               "shadowed_by")

    def __init__(self, name: str, run, weight: float, *, weight_lexical: float | None = None, scaled: bool = False,
                 words: bool = False, after_fusion: bool = False, why_rank: int = 0, shadowed_by: str | None = None):
        self.name, self.run, self.weight, self.weight_lexical = name, run, weight, weight_lexical
        self.scaled, self.words, self.after_fusion = scaled, words, after_fusion
        self.why_rank, self.shadowed_by = why_rank, shadowed_by


# In running order (each list's scores are summed in this order). The words count as one retriever
# (2/3 + 1/3), in two lists: the words themselves and their stems (testing ~ tests), weaker evidence
# than the word itself; ratio and split set on bench/dev. Graph with the semantic layer off: words
# alone give noisier seeds, and on bench/dev (logseq, silverbullet, 2-3k links) 0.5 kept lexical
# above BM25 where 1.0 fell below (logseq R@5 0.58 vs BM25 0.63); with semantic on 1.0 was best
# (logseq 0.90 vs 0.88 at 0.5). Graph spreads scores already below the seeds'.
RETRIEVERS = (
    Retriever("lexical", _words(False), 2 / 3, scaled=True, words=True, why_rank=2, shadowed_by="forms"),
    Retriever("forms", _words(True), 1 / 3, scaled=True, words=True, why_rank=1),
    Retriever("names", _names, 1.0, words=True, why_rank=0),
    Retriever("filed", _filed, FILED_WEIGHT, words=True, why_rank=1, shadowed_by="forms"),
    Retriever("semantic", _semantic, 1.0, scaled=True, why_rank=3),
    Retriever("graph", _graph, 1.0, weight_lexical=0.5, after_fusion=True, why_rank=4),
)
RETRIEVER = {r.name: r for r in RETRIEVERS}
