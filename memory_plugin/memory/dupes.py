"""The one duplicate judge, used by `remember` (a would-be note against the vault) and `reorganize`
(notes already in the vault against each other).

Two notes are near-duplicates when what they SAY overlaps: their summary and body, compared as
IDF-weighted word vectors (words every other note uses, like "lesson", "notes" or "architecture",
weigh almost nothing) and as shared word 3-shingles, the passages quoted back as the reason.
A new memory (`remember`) is judged by its text alone; two notes of the vault (`reorganize`, every
pair) by a stricter score where titles and types adjust the text's, never carry it: a title alike
with text unlike is no duplicate. Notes of two different projects are duplicates only when their
text nearly is. A new decision that rejects what a decision of its project affirms ("instead of",
"replaces" ...) is that note's successor, never its duplicate (`supersession`).

Exact shingle overlap on a few candidates is enough at vault scale: `remember` takes its candidates
from FTS, `reorganize` from an inverted index of each note's rarest words (`candidate_pairs`).
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ..core import textutil

# ---------------------------------------------------------------- every weight, in one place
W_TEXT = 0.75          # share of the score from summary+body similarity (the evidence)
W_TITLE = 0.25         # share from IDF-weighted title overlap (only counts as far as the text agrees)
SUMMARY_REPEAT = 2     # the summary is the note's gist: its words count twice in the text vector
TEXT_MIN = 0.22        # below this text similarity, nothing else can make a duplicate
THRESHOLD = 0.45       # score at or above which two notes OF THE VAULT are near-duplicates (`reorganize`)
# A new memory against its nearest notes (`remember`, `judge(newer=True)`): the text alone decides, no
# title weight (restatements are written under other titles, same-title notes about other things are
# what the dev sets' negatives are). Set on bench/dev/duplicates-{dev,i12,dev2}.yaml (159 pairs):
# highest recall at precision >= 0.9 on the pairs, but no lower than where non-duplicate memories
# start being refused against some OTHER note of the vault (long pages such as changelogs contain a
# short memory's words): 0.37 (pairs P 0.969 R 0.912; non-duplicates refused by some note: 7 of 56 at
# 0.37-0.39, 8 at 0.35-0.36, 10 at 0.30; the 56th is the e2e skills test's devvault decision).
TEXT_THRESHOLD = 0.37  # text similarity at or above which a new memory repeats a note
TEXT_TYPE_MARGIN = 0.20  # both typed, types differ (a concept and a pitfall applying it): the text must clear
                       # TEXT_THRESHOLD by this much; 0.57, about what TYPE_PENALTY asks of the vault score
                       # (0.45 / 0.8); no dev pair decides it (0.10-0.25 score alike), the fixture's does
TYPE_PENALTY = 0.8     # score factor when both notes have a type (other than plain "note") and they differ
CROSS_PROJECT_TEXT = 0.7  # two projects: the text itself must be this alike
CONTAIN_SHARE = 0.5    # text similarity = (1-s)*cosine + s*containment of the shorter text in the longer
CONFLICT = 1.0         # score factor lost when all of a title's own rare words are missing from the other note
MIN_TERMS = 8          # when neither note has this many distinct content words, only identical ones are duplicates
SHINGLE = 3            # words per shingle for the shared passages
PASSAGE_WORDS = 12     # a quoted passage is cut to this many words
MAX_PASSAGES = 2       # passages quoted in a reason
SHARED_WORDS = 6       # a duplicate with no common passage names this many of its heaviest common words
BOILER_MIN_DF = 5      # a 3-word passage found in at least this many notes is boilerplate (a template)...
BOILER_SHARE = 0.005   # ...or in this share of the vault's notes, whichever is more; it never counts
BOILER_SAMPLE = 2000   # notes sampled (evenly) to find boilerplate passages in a large vault
SIGNATURE = 12         # rarest words per note used to pair candidates in reorganize
MAX_POSTING = 40       # a signature word shared by more notes than this pairs nothing (too common)
# The meaning rule (semantic mode only, `combine`; dupes_sem makes the vectors). Set on the dev sets
# bench/dev/duplicates-dev.yaml + bench/dev/duplicates-i12.yaml (133 pairs), never on bench/eval/; a
# sweep over those and duplicates-dev2.yaml (159 pairs, same criterion) kept 0.44.
SEM_THRESHOLD = 0.44   # mean of text similarity and note-vector cosine at or above which a new memory says
                       # what a note says (`remember`: one memory against its nearest notes)
SEM_THRESHOLD_VAULT = 0.70  # the same for two notes of the vault (`reorganize` judges every pair: same-topic
                       # pairs outnumber duplicates there by far, so meaning must be stronger); set by hand-
                       # checking reorganize's proposals on the til dev vault (bench/dev/til), 1871 notes
SEM_TYPE_MARGIN = 0.10  # both typed, types differ: the mean must clear the threshold by this much
                       # (about what TYPE_PENALTY asks of the lexical score: 0.44 / 0.8 = 0.55)
SEM_CANDIDATE = 0.60   # cosine from which two notes are compared at all (beyond the lexical candidates)
# (two projects: the mean must reach CROSS_PROJECT_TEXT, as the text alone must in lexical mode)
# Supersession (both modes, `remember` only): a new decision whose text says it replaces, reverses or
# rejects what a decision of its project affirms is that note's successor, not its duplicate
# (`remember` writes it and names the note, with the `supersede` command). No weight: a written-down
# cue list (CHANGE_CUES) and the rule in `supersession`; on the dev sets it fired on no duplicate.
SUCCESSOR_TYPES = frozenset({"decision"})  # types a newer note replaces (the other kinds add, they do not reverse)
CHANGE_WINDOW = 6      # content words after a change cue read as what it rejects (up to the clause's end)

# A change cue: the words after it name what the note rejects or replaces ("instead of HMAC", "we
# replace the Redis token buckets", "not in TanStack Query", "reverse the move to visx").
# Only words that say "this replaces that": a bare "not" or "never" is how a note states a choice
# ("Typer, not argparse") and made restatements read as successors.
CHANGE_CUES = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|no\s+longer|"
                         r"replac(?:e|es|ed|ing)|supersed(?:e|es|ed|ing)|revers(?:e|es|ed|ing)|"
                         r"retir(?:e|es|ed|ing)|abandon(?:s|ed|ing)?|"
                         r"(?:switch|mov)(?:e|es|ed|ing)?\s+(?:away\s+)?from)\b", re.I)
_CLAUSE_END = re.compile(r"[.;:!?()\[\]\n]|\s(?:with|by|and|but|so|because|for)\s|,")

EXTRA_STOP = frozenset("""also one two three may might must shall see via etc e g ie eg""".split())
_COMBINING = re.compile(r"[\u0300-\u036f]")
_H1 = re.compile(r"^\s*#[ \t]+[^\n]*\n?")


@lru_cache(maxsize=1 << 17)
def norm(word: str) -> str:
    """A folded, accent-free word with its plural/verb ending off (retries ~ retry, queued ~ queue)."""
    w = _COMBINING.sub("", unicodedata.normalize("NFKD", word))
    if len(w) > 4 and w.endswith(("ies", "ied")):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    elif len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


_TOKENS: dict[str, tuple[str, str] | None] = {}  # word -> its token, shared by every occurrence


def tokens(text: str) -> list[tuple[str, str]]:
    """[(normalised term, word as written, folded)] of the content words of `text`."""
    out = []
    get = _TOKENS.get
    for w in textutil.words(text or ""):
        t = get(w, 0)
        if t == 0:
            skip = w in textutil.STOPWORDS or w in EXTRA_STOP or (len(w) < 2 and not w.isdigit())
            t = _TOKENS[w] = None if skip else (norm(w), w)
        if t is not None:
            out.append(t)
    return out


def _plain(word: str) -> str:
    """A word as FTS5's unicode61 tokenizer (remove_diacritics 2) stores it."""
    return _COMBINING.sub("", unicodedata.normalize("NFKD", word))


@dataclass
class Doc:
    title: str
    type: str | None = None
    project: str | None = None
    summary: str = ""
    body: str = ""
    titles: tuple[str, ...] = ()   # other titles (display title, aliases)
    path: str | None = None
    hash: str | None = None
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def title_terms(self) -> dict[str, str]:
        if "t" not in self._cache:
            self._cache["t"] = {t: r for name in (self.title, *self.titles) for t, r in tokens(name)}
        return self._cache["t"]

    def text(self) -> str:
        """The body without its H1 heading (the title again: it is compared as the title)."""
        return _H1.sub("", self.body, count=1)

    def _parts(self) -> tuple[list, list]:
        if "p" not in self._cache:
            self._cache["p"] = (tokens(self.summary), tokens(self.text()))
        return self._cache["p"]

    def text_tokens(self) -> list[tuple[str, str]]:
        s, b = self._parts()
        return s * SUMMARY_REPEAT + b

    def sequence(self) -> list[tuple[str, str]]:
        s, b = self._parts()
        return s + b


class Idf:
    """Inverse document frequency from the vault: `df` maps a term (normalised, or a raw word when
    `lookup` answers raw words) to how many notes hold it; unknown terms count as rare."""

    def __init__(self, df: dict[str, int] | None, n: int, lookup=None, boilerplate: set | None = None,
                 batch=None):
        self.df, self.n, self.lookup = dict(df or {}), max(1, n), lookup
        self.boilerplate = boilerplate or set()
        self._memo: dict[str, float] = {}
        self.batch = batch  # words -> {word: df}: `lookup` for many words in one query (`prefetch`)

    def prefetch(self, words: Iterable[str]) -> None:
        """Look the frequencies of `words` (as `__call__` is asked for them) up at once: one query for
        the hundred-odd words a remember's candidates hold, where `lookup` makes one each."""
        if self.batch is None:
            return
        todo = [w for w in dict.fromkeys(words) if w not in self.df and w not in self._memo]
        if todo:
            self.df.update(self.batch(todo))

    def __call__(self, term: str, raw: str | None = None) -> float:
        key = term if self.lookup is None else (raw or term)
        v = self._memo.get(key)
        if v is None:
            d = self.df.get(key)
            if d is None and self.lookup is not None:
                d = self.lookup(key)
            v = self._memo[key] = math.log((self.n + 1) / ((d or 0) + 1)) + 0.05
        return v

    @classmethod
    def from_docs(cls, docs: Iterable[Doc]) -> "Idf":
        """Word and passage frequencies over the vault's notes (passages found in many notes are
        templates: they say nothing about what a note is about). Passages are counted on an even
        sample of at most BOILER_SAMPLE notes, so memory stays bounded at any vault size."""
        docs = list(docs)
        df: Counter = Counter()
        for d in docs:
            df.update(set(d.title_terms()) | {t for t, _ in d.text_tokens()})
        step = max(1, math.ceil(len(docs) / BOILER_SAMPLE))
        sample = docs[::step]
        sdf: Counter = Counter()
        for d in sample:
            seq = [t for t, _ in d.sequence()]
            sdf.update({hash(tuple(seq[i:i + SHINGLE])) for i in range(len(seq) - SHINGLE + 1)})
        floor = max(BOILER_MIN_DF, BOILER_SHARE * len(sample))
        return cls(df, len(docs), boilerplate={g for g, c in sdf.items() if c >= floor})

    def add_boilerplate(self, docs: Iterable[Doc]) -> None:
        """Every passage of `docs` (the vault's templates) is boilerplate: text a template wrote into
        a note says nothing of what that note is about."""
        for d in docs:
            seq = [t for t, _ in d.sequence()]
            self.boilerplate.update(hash(tuple(seq[i:i + SHINGLE])) for i in range(len(seq) - SHINGLE + 1))

    @classmethod
    def from_index(cls, conn) -> "Idf":
        """Document frequencies straight from the FTS index (fts5vocab), a term or a batch at a time."""
        # all notes, less the private ones (both counted on an index; `private = 0` read every row)
        n = conn.execute("SELECT count(*) FROM notes").fetchone()[0] - conn.execute("SELECT count(*) FROM notes WHERE private = 1").fetchone()[0]
        try:
            conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.dupes_vocab USING fts5vocab(main, fts, row)")
        except Exception:  # an SQLite without fts5vocab: every word counts as rare
            return cls({}, n, lookup=lambda w: 0)

        def lookup(word: str) -> int:
            row = conn.execute("SELECT doc FROM temp.dupes_vocab WHERE term = ?", (_plain(word),)).fetchone()
            return row[0] if row else 0

        def batch(words: list[str]) -> dict[str, int]:
            plain = {w: _plain(w) for w in words}
            terms = sorted(set(plain.values()))
            got: dict[str, int] = {}
            for i in range(0, len(terms), 500):  # under SQLite's bound-variable limit
                part = terms[i:i + 500]
                got.update(conn.execute(f"SELECT term, doc FROM temp.dupes_vocab WHERE term IN "
                                        f"({','.join('?' * len(part))})", part))
            return {w: got.get(p, 0) for w, p in plain.items()}

        return cls({}, n, lookup=lookup, batch=batch)


@dataclass
class Verdict:
    duplicate: bool
    score: float
    text: float
    title: float
    reasons: list[str]
    # what the meaning rule (`combine`) needs to know of the pair
    types_differ: bool = False
    cross_project: bool = False
    tiny: bool = False
    parent: bool = False
    cosine: float | None = None   # note-vector cosine, when semantic mode judged the pair
    successor: str | None = None  # the clause by which a would-be note replaces the other (`supersession`)
    by: str = "text"              # which rule made it a duplicate: "text", "meaning" or "" (none)
    conflict_each: float = 0.0    # the lesser of the two titles' shares of own rare words the other never mentions


def _content(d: Doc, idf: Idf) -> list[tuple[str, str]]:
    """The note's text tokens without the vault's boilerplate passages."""
    if not idf.boilerplate:
        return d.text_tokens()
    key = ("c", id(idf))
    if key not in d._cache:
        common: set[str] = set()
        seq = [t for t, _ in d.sequence()]
        for i in range(len(seq) - SHINGLE + 1):
            if hash(tuple(seq[i:i + SHINGLE])) in idf.boilerplate:
                common.update(range(i, i + SHINGLE))
        gone = Counter(seq[i] for i in common)
        kept, left = [], Counter(t for t, _ in d.text_tokens())
        # drop as many occurrences of each term as the boilerplate holds (summary repeats aside)
        for t, r in d.text_tokens():
            if gone[t] > 0 and left[t] <= gone[t] * SUMMARY_REPEAT:
                left[t] -= 1
                continue
            kept.append((t, r))
        d._cache[key] = kept
    return d._cache[key]


def _vector(toks: list[tuple[str, str]], idf: Idf) -> dict[str, float]:
    tf = Counter(t for t, _ in toks)
    raw = {t: r for t, r in toks}
    return {t: (1 + math.log(c)) * idf(t, raw[t]) for t, c in tf.items()}


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(w * b[t] for t, w in a.items() if t in b)
    na, nb = math.sqrt(sum(w * w for w in a.values())), math.sqrt(sum(w * w for w in b.values()))
    return dot / (na * nb) if na and nb else 0.0


def _containment(a: dict[str, float], b: dict[str, float]) -> float:
    """How much of the shorter text's weight the longer one holds too."""
    small, big = (a, b) if sum(a.values()) <= sum(b.values()) else (b, a)
    total = sum(small.values())
    return sum(w for t, w in small.items() if t in big) / total if total else 0.0


def _passages(a: Doc, b: Doc, boilerplate: set = frozenset()) -> list[str]:
    """Shared runs of content words (3 or more), longest first, as the words of `a`."""
    qa, sb = a.sequence(), [t for t, _ in b.sequence()]
    sa = [t for t, _ in qa]
    grams = {g for g in (tuple(sb[i:i + SHINGLE]) for i in range(len(sb) - SHINGLE + 1))
             if hash(g) not in boilerplate}
    runs, i = [], 0
    while i <= len(sa) - SHINGLE:
        if tuple(sa[i:i + SHINGLE]) in grams:
            j = i + SHINGLE
            while j < len(sa) and tuple(sa[j - SHINGLE + 1:j + 1]) in grams:
                j += 1
            runs.append([w for _, w in qa[i:j]])
            i = j
        else:
            i += 1
    runs.sort(key=len, reverse=True)
    return [" ".join(r) for r in runs]


def _fold(s: str | None) -> str:
    return textutil.fold(str(s or "")).strip().strip("[]").strip()


def _missing_title_share(mine: dict[str, str], my_text: Counter, theirs: dict[str, str],
                         their_text: dict[str, float], idf: Idf) -> float:
    """Share (by IDF weight) of my title's words that my text uses twice or more (what I am about: a
    name, a key, a tool) and the other note has in neither its title nor its text."""
    total = sum(idf(t, r) for t, r in mine.items())
    gone = sum(idf(t, r) for t, r in mine.items()
               if my_text.get(t, 0) >= 2 and t not in theirs and t not in their_text)
    return gone / total if total else 0.0


def project_names(conn) -> dict[str, str]:
    """{every name a project goes by (project.key form): its one name}, from the vault's project
    catalog: `tollgate-api` (a hub alias) and `[[tollgate]]` are one project, not two."""
    from ..index import project as P

    return {k: p["name"] for p in P.catalog(conn) for k in p["keys"]}


def canon_project(value: str | None, names: dict[str, str]) -> str | None:
    """A `project` value as the catalog names it (a wikilink's target, an alias resolved)."""
    from ..index import project as P

    if not value:
        return value
    s = str(value).strip()
    if s.startswith("[[") and s.endswith("]]"):
        s = s[2:-2].split("|", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1]
    return names.get(P.key(s), s)


def _name(d: Doc) -> str:
    """A note's file name without folder and `.md` (Dendron's `a.b.c`), "" without a path."""
    name = (d.path or "").rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else ""


def _is_parent(a: str, b: str) -> bool:
    return "." in b and b.lower().startswith(a.lower() + ".") and not a.lower().endswith(".md")


def _clauses(text: str) -> list[tuple[int, int, str]]:
    """(start, end, clause) of each change cue's clause in `text`: what follows the cue up to the
    clause's end (punctuation, or a word that starts another part: "with", "and", "because" ...)."""
    out = []
    for m in CHANGE_CUES.finditer(text):
        rest = text[m.end():]
        stop = _CLAUSE_END.search(rest)
        clause = rest[:stop.start()] if stop else rest
        out.append((m.start(), m.end() + len(clause), clause))
    return out


def _gist(d: Doc) -> str:
    """What a note is named for and says first: its summary, or else its first paragraph."""
    if d.summary.strip():
        return d.summary
    return next((p for p in re.split(r"\n\s*\n", d.text()) if p.strip()), "")


def _rejects(d: Doc) -> dict[str, str]:
    """{term: its clause} of the content words a note's change cues reject ("instead of HMAC")."""
    out: dict[str, str] = {}
    for _, _, clause in _clauses(f"{d.title}\n{d.summary}\n{d.text()}"):
        for t, _ in tokens(clause)[:CHANGE_WINDOW]:
            out.setdefault(t, clause.strip())
    return out


def _affirms(d: Doc) -> set[str]:
    """Terms of a note's title and gist said outside its own change clauses (what it stands for)."""
    plain = f"{d.title}\n{_gist(d)}"
    for s, e, _ in reversed(_clauses(plain)):
        plain = plain[:s] + " " + plain[e:]
    return {t for t, _ in tokens(plain)}


def supersession(new: Doc, old: Doc) -> str | None:
    """The clause of `new` rejecting what `old` stands for, when `new` reads as `old`'s successor:
    both decisions (SUCCESSOR_TYPES) of one project, and a change cue of `new` ("instead of",
    "replaces", "no longer", "reverse" ...) names a word that `old`'s title or gist affirms (says
    outside a change clause of its own) and does not itself reject. None otherwise. Such a pair is a supersession candidate, never a
    duplicate: the same question answered again, differently."""
    if new.type not in SUCCESSOR_TYPES or new.type != old.type or _fold(new.project) != _fold(old.project):
        return None
    rej = _rejects(new)
    if not rej:
        return None
    theirs = _affirms(old) - set(_rejects(old))  # what `old` rejects itself, `new` only repeats
    hit = [t for t in rej if t in theirs]
    return rej[hit[0]] if hit else None


def beyond_reach(a: Doc, b: Doc) -> bool:
    """True when `judge(a, b, idf, newer=True)` cannot find `b` a duplicate of the would-be note `a`
    nor `a` its successor, without a word frequency looked up (at 10,000 notes each costs a remember
    about a quarter of a millisecond): `b`'s text (summary and body) holds no content word of `a`'s,
    so their text similarity is 0, where a duplicate needs TEXT_THRESHOLD and a successor TEXT_MIN.
    The lexical judge only: in semantic mode meaning can make a duplicate of any text."""
    if a.hash and a.hash == b.hash:
        return False
    if "w" not in a._cache:
        a._cache["w"] = {t for t, _ in a.text_tokens()}
    mine = a._cache["w"]
    return not any(t in mine for t, _ in b.text_tokens())


def judge(a: Doc, b: Doc, idf: Idf, newer: bool = False) -> Verdict:
    """Are `a` and `b` near-duplicates? The verdict carries the score and the reasons. `newer`: `a`
    is a would-be note (`remember`), so it may be `b`'s successor (`supersession`), never its
    duplicate. Two notes of the vault are not read that way: either one's negations ("never more
    than 500 rows") would then read as rejecting the other's restatement of them."""
    if a.hash and a.hash == b.hash:
        return Verdict(True, 1.0, 1.0, 1.0, ["identical content"])
    va, vb = _vector(_content(a, idf), idf), _vector(_content(b, idf), idf)
    text = (1 - CONTAIN_SHARE) * _cosine(va, vb) + CONTAIN_SHARE * _containment(va, vb)
    ta, tb = a.title_terms(), b.title_terms()
    union = sorted(set(ta) | set(tb))  # sorted: a set's order (the hash seed's) moved the sums' last bits
    wu = sum(idf(t, ta.get(t) or tb.get(t)) for t in union)
    title = sum(idf(t, ta[t]) for t in sorted(set(ta) & set(tb))) / wu if wu else 0.0
    # the title counts only as far as the text agrees: similar names over unlike text add nothing
    score = W_TEXT * text + W_TITLE * title * min(1.0, text / TEXT_MIN)
    # A title's own rare words (the config key, the tool, the place) that the other note never
    # mentions (anywhere in its text) say the two are about different things, however alike their
    # boilerplate is.
    ca, cb = Counter(t for t, _ in a.sequence()), Counter(t for t, _ in b.sequence())
    sides = (_missing_title_share(ta, ca, tb, cb, idf), _missing_title_share(tb, cb, ta, ca, idf))
    conflict = max(sides)
    score *= 1 - CONFLICT * conflict
    types_differ = bool(a.type and b.type and "note" not in (a.type, b.type) and a.type != b.type)
    if types_differ:
        score *= TYPE_PENALTY
    # Two near-empty notes (tag pages, stubs) look alike by accident; a parent and its child in a
    # dotted hierarchy (Dendron's `a.b` and `a.b.c`) are one topic split on purpose.
    tiny = max(len(va), len(vb)) < MIN_TERMS
    na, nb = _name(a), _name(b)  # Dendron's hierarchy is in file names; its titles are free text
    parent = any(_is_parent(x, y) for x, y in ((a.title, b.title), (b.title, a.title), (na, nb), (nb, na)) if x and y)
    pa, pb = _fold(a.project), _fold(b.project)
    cross_project = bool(pa and pb and pa != pb)
    # a successor only of a note it is close to (an unrelated decision sharing a word is neither)
    successor = supersession(a, b) if newer and text >= TEXT_MIN else None
    if newer:  # a new memory: what its text says decides (see TEXT_THRESHOLD)
        need = TEXT_THRESHOLD + (TEXT_TYPE_MARGIN if types_differ else 0.0)
        dup = text >= (max(need, CROSS_PROJECT_TEXT) if cross_project else need)
    else:      # two notes of the vault: the stricter score, titles and conflicts included
        dup = score >= THRESHOLD and text >= TEXT_MIN and (not cross_project or text >= CROSS_PROJECT_TEXT)
    dup = dup and not tiny and not parent and successor is None
    reasons = [f"text overlap {text:.2f}"]
    if title >= 0.3:
        reasons.append(f"title overlap {title:.2f}")
    if conflict >= 0.3:
        reasons.append(f"title words the other lacks {conflict:.2f}")
    shared = _passages(a, b, idf.boilerplate)[:MAX_PASSAGES]
    if shared:
        reasons.append("shared: " + "; ".join(quote(p) for p in shared))
    elif dup:  # no common passage: the words that weigh most in both texts say why
        ra, rb = dict(_content(a, idf)), dict(_content(b, idf))
        common = sorted(set(va) & set(vb), key=lambda t: (-min(va[t], vb[t]), t))[:SHARED_WORDS]
        if common:
            reasons.append("shared words: " + ", ".join(ra.get(t) or rb.get(t) or t for t in common))
    if a.type and a.type == b.type:
        reasons.append(f"same type {a.type}")
    elif types_differ:
        reasons.append(f"types differ ({a.type}, {b.type})")
    if cross_project:
        reasons.append(f"projects differ ({a.project}, {b.project})")
    if parent:
        reasons.append("one is the other's child in the hierarchy")
    if successor is not None:
        reasons.insert(0, f"replaces it: {quote(successor)}")
    return Verdict(dup, round(min(score, 1.0), 3), round(text, 3), round(title, 3), reasons,
                   types_differ, cross_project, tiny, parent, None, successor, "text" if dup else "", min(sides))


def meaning_threshold(v: Verdict, base: float = SEM_THRESHOLD) -> float | None:
    """What the meaning evidence must reach for a duplicate, or None when meaning cannot make one
    (a dotted parent and child; a successor, see `supersession`; two near-empty notes, fewer than
    MIN_TERMS content words each: their vectors are little more than their titles, and titles alone
    never decide)."""
    if v.parent or v.tiny or v.successor is not None:
        return None
    t = base + (SEM_TYPE_MARGIN if v.types_differ else 0.0)
    return max(t, CROSS_PROJECT_TEXT) if v.cross_project else t


def combine(v: Verdict, cosine: float | None, base: float = SEM_THRESHOLD, titles: bool = False) -> Verdict:
    """The one rule when semantic mode is on ("words and meaning"): a pair is a duplicate when the
    mean of what their words share (`v.text`) and what their meaning shares (the note vectors'
    cosine) reaches `meaning_threshold` (the same type, project, successor and stub constraints;
    `base` is SEM_THRESHOLD for a new memory, SEM_THRESHOLD_VAULT for two notes of the vault). The
    two kinds of evidence are combined, not OR-ed: on the dev sets words alike with meanings apart
    were same-topic notes (bench/eval/PROTOCOL.md). Identical content stays a duplicate;
    without vectors for the pair (`cosine` None) the lexical verdict stands. `titles` (two notes of the
    vault, judged by the stricter score): when EACH title has rare words of its own the other never
    mentions, they lower the mean as they lower the lexical score (CONFLICT): two pages of one
    template, `ESP32-C3` and `ESP32-S3`, mean alike and are about two things; a restatement under
    another title names nothing the note it restates lacks.
    The caller quotes the closest passages of a match by meaning with `quote_closest`."""
    if cosine is None:
        return v
    v.cosine = round(float(cosine), 3)
    if v.duplicate and v.text >= 1.0:  # identical content
        return v
    meaning = (v.text + float(cosine)) / 2 * ((1 - CONFLICT * v.conflict_each) if titles else 1.0)
    need = meaning_threshold(v, base)
    words = v.duplicate
    if need is None or meaning < need:
        v.reasons.insert(1, f"meaning {cosine:.2f}")
        v.duplicate, v.by = False, ""
        return v
    v.duplicate, v.by = True, "text" if words else "meaning"
    v.score = round(max(v.score, meaning), 3)
    why = f"meaning {cosine:.2f} (words and meaning {meaning:.2f} ≥ {need:.2f})"
    v.reasons = [why, *v.reasons] if not words else [v.reasons[0], why, *v.reasons[1:]]
    return v


def quote(passage: str) -> str:
    w = passage.split()
    return f"“{' '.join(w[:PASSAGE_WORDS])}{' …' if len(w) > PASSAGE_WORDS else ''}”"


def has_passage(v: Verdict) -> bool:
    """Do the reasons quote a passage the two notes share?"""
    return any(r.startswith("shared: ") for r in v.reasons)


def quote_closest(v: Verdict, pair: tuple[str, str] | None) -> Verdict:
    """Add the two closest passages (one of each note) to a match by meaning's reasons."""
    if pair and all(pair):
        v.reasons.insert(1, f"closest: {quote(pair[0])} ~ {quote(pair[1])}")
    return v


def candidate_pairs(docs: list[Doc], idf: Idf) -> set[tuple[int, int]]:
    """Index pairs worth judging: notes that share at least two of their rarest words, or their content."""
    postings: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        v = _vector(d.text_tokens() + list(d.title_terms().items()), idf)
        for t in sorted(v, key=lambda t: (-v[t], t))[:SIGNATURE]:
            postings[t].append(i)
    shared: Counter = Counter()
    for ids in postings.values():
        if 1 < len(ids) <= MAX_POSTING:
            for k, x in enumerate(ids):
                for y in ids[k + 1:]:
                    shared[(x, y)] += 1
    pairs = {p for p, c in shared.items() if c >= 2}
    by_hash: dict[str, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        if d.hash:
            by_hash[d.hash].append(i)
    for ids in by_hash.values():
        pairs |= {(x, y) for k, x in enumerate(ids) for y in ids[k + 1:]}
    return pairs
