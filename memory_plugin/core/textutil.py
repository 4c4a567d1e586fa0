"""Words as FTS5's unicode61 tokenizer sees them, a crude stemmer, and FTS5 query building."""
from __future__ import annotations

import re
import unicodedata

WORD_RE = re.compile(r"[^\W_]+")

STOPWORDS = frozenset("""
a about above after again against all also am an and any anything are as at be because been being
between both but by can could did do does doing done during each else ever every few for from
further get gets got had has have having he her here hers him his how i if in into is it its itself
just know knew known let like me more most my no nor not now of off on once only or other our ours
out over own per please same say she should show so some such tell than that the their theirs them
then there these they this those through to too under until up us very was we were what whats when
where which while who whom why will with would you your yours thing things stuff make made use used
using uses notes note vault any
""".split())

# Words that name a kind of note: they select a type instead of matching text.
TYPE_WORDS = {
    "pitfall": "pitfall", "pitfalls": "pitfall", "gotcha": "pitfall", "gotchas": "pitfall",
    "decision": "decision", "decisions": "decision", "decide": "decision", "decided": "decision",
    "convention": "convention", "conventions": "convention",
    "pattern": "pattern", "patterns": "pattern",
    "learning": "learning", "learnings": "learning", "learned": "learning", "lesson": "learning",
    "lessons": "learning", "til": "learning",
    "task": "task", "tasks": "task", "todo": "task", "todos": "task",
    "sop": "sop", "sops": "sop", "runbook": "sop", "runbooks": "sop", "procedure": "sop",
    "procedures": "sop", "checklist": "sop",
    "concept": "concept", "concepts": "concept",
}

# Words that ask about the past: superseded and retracted notes come first.
# The properties an owner writes a note's summary in, first non-empty wins: `summary` (ours),
# `description` (Obsidian Publish, Jekyll, Hugo), `desc` (Dendron), `excerpt` (Dendron, Jekyll), `abstract`.
SUMMARY_KEYS = ("summary", "description", "desc", "excerpt", "abstract")
HISTORY_WORDS = frozenset("""before previously previous originally original earlier formerly former
history historical past superseded replaced prior old older""".split())

# Words about a note's status: they select by status instead of matching text.
STATUS_WORDS = {"open": {"open", "todo", "in-progress"}, "unresolved": {"open", "todo", "in-progress"},
                "resolved": {"resolved", "done"}, "done": {"done", "resolved"}, "current": {"current", "adopted"},
                "adopted": {"adopted", "current"}, "todo": {"todo", "open"}}

CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1
_BREAKS = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")

_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "es", "ed", "ly", "s")
_ENDINGS = frozenset(_SUFFIXES + ("", "e", "d", "er", "ers", "y"))  # what may follow a stem in a form of its word


def plural(n: int, word: str, many: str | None = None, sep: str = "") -> str:
    """`n word`, the word in the plural unless n is 1: plural(1, "note") "1 note", plural(3, "match")
    "3 matches", plural(2, "entry") "2 entries"; `many` for any other plural. `sep` groups the
    thousands of n (plural(1500, "note", sep=",") "1,500 notes")."""
    if n == 1:
        form = word
    elif many is not None:
        form = many
    elif word.endswith(("s", "x", "z", "ch", "sh")):
        form = word + "es"
    elif word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        form = word[:-1] + "ies"
    else:
        form = word + "s"
    return f"{n:{sep}} {form}" if sep else f"{n} {form}"


def fold(s: str) -> str:
    return unicodedata.normalize("NFC", s).casefold()


def one_line(s: str) -> str:
    """`s` on one line: each run of whitespace or control characters (C0, DEL, C1) as one space."""
    return _BREAKS.sub(" ", s).strip()


def words(s: str) -> list[str]:
    return WORD_RE.findall(fold(s))


def stem(w: str) -> str:
    """Suffixes off, and long words cut to six letters (configuration ~ config, parallel ~ parallelism)."""
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            w = w[: -len(suf)]
            break
    return w[:6] if len(w) >= 8 and w.isalpha() else w


def fts_token(w: str) -> str:
    """`w` as the index's tokenizer stores it (unicode61, remove_diacritics 2: folded, no diacritics);
    "" when it is more than one token (a word with an apostrophe or a hyphen)."""
    t = "".join(c for c in unicodedata.normalize("NFD", fold(w)) if not unicodedata.combining(c))
    return t if t.isalnum() else ""


def same_word(t: str, w: str) -> bool:
    """Is the index's word `t` a form of the word `w` (tests, testing ~ test; configurable ~
    configuration; planned ~ plan), not only a word its stem starts (breadth ~ bread)?"""
    a, b = stem(t), stem(w)
    if a == b or (a[:-1] == b and len(a) >= 2 and a[-1] == a[-2]):  # planned ~ plan: a doubled consonant
        return True
    return t.startswith(b) and t[len(b):] in _ENDINGS  # recipe ~ recipes (stem "recip")


def fts_term(w: str) -> str:
    """One FTS5 term: a quoted word, or a quoted stem with a prefix star for longer words."""
    s = stem(w)
    if len(s) >= 4 or (s != w):
        return f'"{s}"*'
    return f'"{w}"'


def fts_or(ws: list[str]) -> str:
    return " OR ".join(fts_term(w) for w in dict.fromkeys(ws))


def fts_and(ws: list[str]) -> str:
    return " AND ".join(fts_term(w) for w in dict.fromkeys(ws))


_QUOTED_RE = re.compile(r'"([^"]*)"')


def phrases(text: str) -> tuple[list[str], list[str]]:
    """(each "quoted" part of `text` that holds a word, the words outside the quotes): a quoted part
    is a phrase, as in every search box; an unpaired quote is no quote."""
    return [q for q in _QUOTED_RE.findall(text) if words(q)], words(_QUOTED_RE.sub(" ", text))


def fts_search_exprs(text: str, content: list[str]) -> list[str]:
    """The FTS5 MATCH expressions `search` tries in turn: without quotes, `content`'s words all,
    then any; with them, each quoted phrase (FTS5's "a b c": those words in that order, next to
    each other) always, with the other words (stopwords left out unless all are) all, then any,
    then none."""
    quoted, rest = phrases(text)
    if not quoted:
        return [fts_and(content), fts_or(content)]
    must = " AND ".join('"' + " ".join(words(q)) + '"' for q in quoted)
    rest = [w for w in rest if w not in STOPWORDS] or rest
    if not rest:
        return [must]
    return [f"{must} AND {fts_and(rest)}", f"{must} AND ({fts_or(rest)})", must]


class Term:
    r"""A term as a word start or a whole word (term_regex, word_term), found as the patterns
    `(?<![^\W_])term` and `(?<![^\W_])term(?![^\W_])` would find it, without compiling one per term
    (a question's dozen terms cost the prompt hook milliseconds of `re`'s compiler): `str.find` jumps
    to each occurrence and the characters around it are checked (`[^\W_]` is what `str.isalnum`
    says: `re`'s Unicode word characters less `_`)."""
    __slots__ = ("literal", "whole")

    def __init__(self, literal: str, whole: bool):
        self.literal, self.whole = literal, whole

    def search(self, hay: str) -> "Hit | None":
        lit, n = self.literal, len(self.literal)
        i = hay.find(lit)
        while i != -1:
            if (i == 0 or not hay[i - 1].isalnum()) and (
                    not self.whole or i + n == len(hay) or not hay[i + n].isalnum()):
                return Hit(i, i + n)
            i = hay.find(lit, i + 1)
        return None


class Hit:
    """Where a Term was found: `start()` and `end()`, as a match object gives them."""
    __slots__ = ("_span",)

    def __init__(self, start: int, end: int):
        self._span = (start, end)

    def start(self) -> int:
        return self._span[0]

    def end(self) -> int:
        return self._span[1]


def term_regex(w: str) -> Term:
    """`w` as a word (its stem as a word start, for longer words and those with a suffix off)."""
    s = stem(w)
    if len(s) >= 4 or s != w:
        return Term(s, False)
    return word_term(w)


def word_term(w: str) -> Term:
    """`w` as a whole word."""
    return Term(w, True)


def contains_seq(hay: list[str], needle: list[str]) -> bool:
    """Does `needle` occur in `hay` as a run of consecutive words? Jumps between the places where
    its first word occurs (list.index), so a long prompt against hundreds of names stays cheap."""
    n = len(needle)
    if not n or n > len(hay):
        return False
    first, last_start, i = needle[0], len(hay) - n, -1
    while True:
        try:
            i = hay.index(first, i + 1, last_start + 1)
        except ValueError:
            return False
        if hay[i:i + n] == needle:
            return True


# A fence line or an ATX heading line, with the newline before it (headings() puts one before the
# first line): a pattern that opens with a literal is looked for by the regex engine's fast scan,
# where `^` under re.M is tried at every character of the body.
_HEAD_OR_FENCE_RE = re.compile(r"\n[^\S\n]{0,3}+(?:(`{3,}+|~{3,}+)|#{1,6}+[ \t]++([^\n]+))")


def headings(body: str) -> list[str]:
    """The ATX headings of a markdown body (`# Title` ... `###### Deep`), outside fenced code.
    Linear, and only fence and heading lines cost Python work."""
    out: list[str] = []
    fence = ""
    for m in _HEAD_OR_FENCE_RE.finditer("\n" + body):
        mark = m.group(1)
        if mark:
            if not fence:
                fence = mark[0] * 3
            elif mark.startswith(fence):
                fence = ""
            continue
        if not fence:
            h = m.group(2)
            out.append(h.rstrip(" \t#").strip() or h.strip())
    return out


class LazyPattern:
    """`re.compile(pattern, flags)` on first use: a module of many patterns costs the hook that imports
    it for one function nothing for the others (index/project.py: ~1.5 ms of SessionStart)."""
    __slots__ = ("_args", "_rx")

    def __init__(self, pattern: str, flags: int = 0):
        self._args, self._rx = (pattern, flags), None

    def __getattr__(self, name: str):
        if self._rx is None:
            self._rx = re.compile(*self._args)
        return getattr(self._rx, name)


# the words every output puts on a note whose cited code changed since it was written (index/code.py)
CODE_CHANGED = "the code it cites changed since it was written"
_ISO_DAY_RE = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})")


def _ago(days: int) -> str:
    for unit, n, upto in (("day", 1, 14), ("week", 7, 9 * 7), ("month", 30.44, 24 * 30.44)):
        if days < upto:
            return "today" if days < 1 else f"{plural(int(days // n), unit)} ago"
    return f"{plural(int(days // 365.25), 'year')} ago"


def epoch_day(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to y-m-d as calendar.timegm counts them (proleptic Gregorian; a day past
    the month's end runs on into the next month; ValueError for a month or year `datetime.date`
    refuses), without importing calendar and datetime: 3 ms of the SessionStart hook."""
    if not (1 <= m <= 12 and 1 <= y <= 9999):
        raise ValueError(f"no month {y}-{m}")
    y -= m <= 2  # counted from March: the leap day ends the year
    era, yoe = divmod(y, 400)
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def age_phrase(validated=None, updated=None, created=None, mtime: float | None = None,
               now: float | None = None) -> str:
    """How old a note's word is, compactly: "validated 3 weeks ago", "updated 2 months ago",
    "written 14 months ago" (its last validation, else its last update, else its creation date;
    else the file's modification time); "" when nothing dates it or the date lies ahead."""
    import time as _time

    now = _time.time() if now is None else now
    for verb, value in (("validated", validated), ("updated", updated), ("written", created)):
        m = _ISO_DAY_RE.match(str(value)) if value else None
        if not m:
            continue
        try:
            t = epoch_day(int(m.group(1)), int(m.group(2)), int(m.group(3))) * 86400
        except ValueError:
            continue
        days = (now - t) / 86400
        return f"{verb} {_ago(days)}" if days >= -1 else ""
    if mtime:
        days = (now - mtime) / 86400
        return f"written {_ago(days)}" if days >= -1 else ""
    return ""


_SENTENCE_END_RE = re.compile(r"[.!?](?=\s)")
_SPACES_RE = re.compile(r"\s+")


def clip_summary(s: str | None, limit: int) -> str:
    """`s` within `limit` characters, ended at a sentence if one ends in the second half, else at a
    word boundary with an ellipsis."""
    s = _SPACES_RE.sub(" ", s or "").strip()
    if len(s) <= limit:
        return s
    head = s[: limit + 1]
    ends = [m.end() for m in _SENTENCE_END_RE.finditer(head)]
    if ends and ends[-1] >= limit // 2:
        return head[: ends[-1]]
    cut = s[: limit].rsplit(" ", 1)[0] if " " in s[: limit] else s[: limit - 1]
    return cut.rstrip(" ,;:.-–") + "…"


def identifier_like(name: str) -> bool:
    """A name no prose word is: snake_case, camelCase, a digit, a leading underscore (a code anchor's
    function name counts alone only then: `collapse_excgroups()`, not `send()`)."""
    return ("_" in name.strip("_") or name.startswith("_") or any(c.isdigit() for c in name)
            or any(a.islower() and b.isupper() for a, b in zip(name, name[1:])))
