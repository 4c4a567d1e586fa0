"""Does a prompt state something worth keeping? ("remember that ...", "from now on ...", "we decided
...", "I prefer ...", a correction such as "no, we use X, not Y").

One table of rules (RULES), each anchored at a sentence opening. Linear in the prompt's length: every
pattern is matched once per sentence at its start, and every repetition in it is bounded or over a
character class that cannot overlap what follows it (no nested unbounded quantifiers). A rule is
compiled and tried only when one of its key words is in the prompt, so the usual prompt ("run the
tests") compiles nothing. A to-do ("remember to run the linter"), a question ("do you remember what
the error was?"), an observation about the code ("we always get a 500 here") and a one-off
instruction ("never use a bare except here") are not memories. The hook only asks Claude to record
what it found; it writes nothing.
Set on bench/dev/capture-dev*.yaml (the development sets; capture-dev4.yaml holds the labels ("mental note:",
"takeaway:"), standing instructions ("whenever you ...", "let's always ..."), preferences and negated
corrections ("that isn't right;", "not anymore -") that 1-3 lacked).
"""
from __future__ import annotations

import re

MAX_CHARS = 2000  # a statement to keep sits near the top; the rest of a long prompt is code or logs

# What may open a sentence before the cue: "ok, ", "also ", "btw ", "and please ", "one more thing: ".
_LEAD = (r"(?:(?:ok(?:ay)?|so|also|and|btw|by\s+the\s+way|fyi|just\s+so\s+you\s+know|please|hey|oh|well|"
         r"one\s+more\s+thing|quick\s+note|alright|right|yes|yeah|great|thanks|hmm|as\s+a\s+team)[,:!-]?\s+){0,3}")
# A statement of fact after a correction cue: "the worker reads ...", "we use ...", "it's 5433".
_FACT = (r"(?:(?:the|our|its|their|this|that|all|every)\s+[\w./@-]+(?:\s+[\w./@-]+){0,3}\s+"
         r"(?:is|are|was|were|runs?|uses?|lives?|has|have|needs?|goes|go|moved|changed|reads?|writes?|sits?|"
         r"stays?|defaults?|comes?|belongs?|points?|listens?|takes?|calls?|ships?|resets?|expires?|talks?|sends?|"
         r"connects?|depends?|must|"
         r"should\s+(?:always|never)|never|always|only)"
         r"|we(?:'ve)?\s+(?:use|run|deploy|have|moved|switched|don't|do\s+not|never|always|prefer|keep|store|ship|host|"
         r"build|release|replaced|stopped|dropped|migrated)"
         r"|it(?:'s|\s+is)\s+(?!fine\b|ok\b|okay\b|good\b|alright\b|not\s+what\b|still\b|the\s+other\b|that\s+one\b|"
         r"working\b|done\b)|they\s+(?:are|use|moved))\b")
# ... or with a bare subject, after an explicit "wrong:" or "that changed:" ("logs go to stdout").
_BARE = (r"(?:" + _FACT + r"|[\w./@-]+(?:\s+[\w./@-]+){0,2}\s+(?:is|are|was|were|go|goes|live|lives|runs?|uses?|"
         r"now|moved|belongs?|must|should)\b)")
_DONT = r"(?:don't|dont|do\s+not)"
_STD_VERBS = (r"(?:use|run|call|commit|push|deploy|merge|write|put|add|import|store|log|pin|edit|touch|create|"
              r"delete|remove|rename|change|modify|install|upgrade|rely|hardcode|hard-code|expose|skip|disable|"
              r"mock|print|return|check\s+in|force|leave|mix|ship|send|keep|name|prefix|squash|rebase|test|"
              r"document|format|lint|tag|release|bump|open)")

# The one table: (kind, key words of which one must be in the prompt, pattern after _LEAD).
# kind "not": the sentence asks or plans (it is skipped); "correction" beats "memory"; "info" is a
# memory unless what follows the cue is news of the moment.
RULES: list[tuple[str, tuple[str, ...], str]] = [
    # --- openings that look like a cue but ask, plan or talk about the code
    ("not", ("remember",), r"(?:do|can|could|would|did|will)\s+(?:you|we)\s+(?:still\s+)?remember\b"),
    ("not", ("remember",), r"(?:please\s+)?remember\s+(?:to|what|when|where|how|why|which|who|if|whether|me)\b"),
    ("not", ("remember",), r"(?:please\s+)?remember\s+(?:that\s+)?(?:we|you|i)\s+(?:still\s+)?(?:need|have|gotta|got|want)\s+to\b"),
    ("not", ("forget",), _DONT + r"\s+forget\s+to\b"),
    ("not", ("mind",), r"(?:always|never)\s+mind\b"),
    ("not", ("remind",), r"remind\s+me\b"),
    # --- corrections: "no, we use X", "that's outdated: ...", "we switched to Y"
    ("correction", ("no", "nope", "nah"), r"(?:no|nope|nah)[,.!]?\s+(?:no[,.!]?\s+)?" + _FACT),
    ("correction", ("actually",), r"actually[,]?\s+" + _FACT),
    ("correction", ("actually", "no", "nope"), r"(?:actually|no|nope)[,.!]?\s+[^;!?,]{1,60},\s+not\s+(?!sure\b|yet\b|really\b|quite\b|working\b|now\b)\w"),
    # "that's wrong: ...", "that isn't right; ...", "that's no longer the case: builds run ..."
    ("correction", ("wrong", "incorrect", "outdated", "mistaken", "stale", "right", "true", "correct", "accurate", "date", "case"),
     r"(?:(?:(?:that|this|it)(?:'s|\s+is)|you're|you\s+are|your\s+\w+\s+is)\s+(?:wrong|incorrect|outdated|out\s+of\s+date|stale|"
     r"mistaken|(?:not|no\s+longer)\s+(?:right|true|correct|accurate|the\s+case))|(?:that|this|it)\s+isn't\s+(?:right|true|correct|"
     r"accurate|the\s+case))\b[^;!?]{0,40}?(?:[,;-]\s*" + _FACT + r"|:\s*" + _BARE + ")"),
    # "that's not how we do it - we use ...", "you've got it backwards: ...", "not anymore - we moved ...",
    # "that used to be true, but now the API is ..."
    ("correction", ("how",), r"(?:wait[,!-]\s+)?that's\s+not\s+how\s+we\s+(?:do\s+(?:it|things|this)|work)\b[^;!?]{0,20}?[,:;-]\s*" + _FACT),
    ("correction", ("backwards", "wrong"),
     r"you(?:'ve|\s+have)\s+got\s+(?:it|that|this)\s+(?:backwards|wrong|the\s+wrong\s+way\s+round)\s*[,:;-]\s*" + _BARE),
    ("correction", ("anymore", "longer"),
     r"not\s+(?:true\s+|the\s+case\s+|so\s+)?(?:any\s*more|any\s+longer)\s*[,:;-]+\s*" + _FACT),
    ("correction", ("used",), r"(?:that|this|it)\s+used\s+to\s+be\s+(?:true|the\s+case|right|correct)\s*[,;-]?\s*"
     r"(?:but\s+)?(?:now|these\s+days|since\s+[\w.-]+)\s*,?\s*" + _BARE),
    ("correction", ("wrong", "incorrect", "quite"), r"(?:wrong|incorrect|not\s+quite)\s*[:,-]\s+" + _BARE),
    ("correction", ("correction",), r"(?:(?:small|quick|minor|tiny|one)\s+)?correction\s*[:,-]\s*\w"),
    ("correction", ("not",), r"(?:it's|it\s+is|it\s+should\s+be|that's|that\s+should\s+be|this\s+is|this\s+should\s+be)\s+[^,;!?]{1,40},?\s+"
     r"not\s+(?!a\s+bug\b|the\s+problem\b|an?\s+issue\b|my\b|your\b|what\b|sure\b|yet\b)\w"),
    ("correction", ("not",), r"we\s+use\s+[^,;!?]{1,40},?\s+not\s+\w"),
    ("correction", ("not",), r"not\s+[\w.@/-]+\s*(?:[-,:;]+|but)\s*(?:we\s+(?:use|run|prefer|deploy)|it's|it\s+is|the\s+\w+\s+is)\b"),
    ("correction", ("use", "longer", "stopped", "quit"),
     r"we\s+(?:" + _DONT + r"\s+use|no\s+longer|(?:stopped|quit)\s+using|(?:have\s+)?stopped\s+using)\b"),
    ("correction", ("switched", "moved", "migrated"),
     r"we(?:'ve|\s+have)?\s+(?:switched|moved|migrated)\s+(?:from|to|away\s+from|off|over)\b"),
    ("correction", ("replaced", "swapped"), r"we(?:'ve|\s+have)?\s+(?:replaced|swapped)\s+[^;!?]{1,40}?\s+(?:with|for|by)\b"),
    ("correction", ("retired", "ditched", "phased", "deprecated", "sunset", "dropped"),
     r"we(?:'ve|\s+have)?\s+(?:retired|ditched|phased\s+out|deprecated|sunset|dropped\s+support\s+for)\b"),
    ("correction", ("changed",), r"(?:that|this|it)\s+(?:has\s+)?changed\s*[:;,-]\s*" + _BARE),
    ("correction", ("note", "memory", "doc", "docs", "readme", "entry", "info", "information"),
     r"(?:the|that|this|your|my)\s+(?:old\s+|existing\s+|saved\s+)?(?:note|memory|doc|docs|readme|entry|info|information)"
     r"\s+(?:is|was)\s+(?:wrong|outdated|incorrect|stale|out\s+of\s+date)\b"),
    ("correction", ("right", "correct", "actual", "real", "proper"),
     r"the\s+(?:right|correct|actual|real|proper)\s+[\w-]+(?:\s+[\w-]+){0,2}\s+(?:is|are)\s+(?!probably\b|maybe\b|likely\b|perhaps\b)"),
    # --- statements to keep
    ("memory", ("remember", "memorize", "memorise"),
     r"(?:please\s+)?(?:remember|memori[sz]e)(?:\s*[:,-]|\s+(?:that|this)\b|\s+(?:we|our|you|i)\s|\s+it's\b|\s+" + _FACT + ")"),
    ("memory", ("forget",), _DONT + r"\s+(?:ever\s+)?forget(?:\s*[:,-]|\s+(?:that|we|our)\b)"),
    ("memory", ("mind",), r"(?:keep|bear)\s+(?:this\s+|that\s+)?in\s+mind(?:\s*[:,-]|\s+that\b)"),
    ("memory", ("now", "forward", "henceforth", "future", "starting", "today"),
     r"(?:from\s+now\s+on|going\s+forward|moving\s+forward|henceforth|in\s+(?:the\s+)?future|for\s+the\s+future|"
     r"starting\s+(?:now|today|this\s+week|with\s+(?:this|the\s+next)\s+\w+)|from\s+today)\b"),
    ("memory", ("next",), r"next\s+time(?:\s*[,:-]|\s+(?:you|we|please|don't|do\s+not|use|run|make|always|never)\b)"),
    ("memory", ("note", "reference", "record", "lesson", "lessons", "learned", "til", "today", "know", "turns", "posterity",
                "worth", "tip", "takeaway", "takeaways", "heads"),
     r"(?:(?:a\s+)?note\s+(?:for\s+later|to\s+self|for\s+the\s+future|for\s+next\s+time)\b|for\s+future\s+reference\b|"
     r"for\s+the\s+record\b|for\s+posterity\b|lessons?\s+learned\b|lesson\s*[:-]|til\b|today\s+i\s+learned\b|"
     # a label before a colon: "mental note:", "worth remembering:", "pro tip for next time:", "takeaway:",
     # "learned the hard way:", "heads-up for future sessions:"
     r"(?:(?:mental|quick)\s+note|(?:[\w-]+\s+)?worth\s+(?:remembering|noting)|pro\s+tip(?:\s+for\s+(?:next\s+time|later))?|"
     r"(?:key\s+|main\s+)?takeaways?|learned\s+the\s+hard\s+way|heads[\s-]+up\s+for\s+(?:future|later|next)(?:\s+\w+)?)\s*[:-]|"
     r"good\s+to\s+know(?:\s+for\s+later)?\s*[:,-]|turns\s+out\s+(?:that\s+)?(?:the|our|we|you)\b)"),
    ("memory", ("decided", "agreed", "settled", "chose", "chosen", "standardised", "standardized", "standardising", "standardizing", "picked", "went", "going",
                "decision"),
     r"(?:we(?:'ve|\s+have)?\s+(?:decided|agreed|settled\s+on|chose|chosen|standardi[sz]ed\s+on|picked|went\s+with)\b|"
     r"we(?:'re|\s+are)\s+(?:going\s+with|standardi[sz]ing\s+on|settling\s+on)\b|(?:the\s+|our\s+|final\s+|team\s+)?decision\s*(?:is\b|was\b|[:-]))"),
    ("memory", ("convention", "rule", "policy", "standard", "norm"),
     r"(?:(?:the|our|a|team)\s+)?(?:convention|rule(?:\s+of\s+thumb)?|policy|team\s+rule|standard|norm)(?:\s+(?:here|for\s+[^;:!?]{1,40}?))?\s*(?:is\b|are\b|[:-])"),
    ("memory", ("rule", "convention", "policy"), r"(?:as\s+a\s+rule\s*,|(?:we\s+have|there's|there\s+is)\s+a\s+(?:rule|convention|policy|standard)\s+(?:that\b|here\b|:))"),
    ("memory", ("always", "never"), r"(?:it's\s+(?:important|essential|crucial)\s+that\s+)?(?:we|you)\s+(?:should\s+|must\s+)?(?:always|never)\s+(?!get\b|got\b|see\b|saw\b|hit\b|end\b|seem|lose\b|fail|forget\b)\w+"),
    ("memory", ("always", "never", "ever"), r"(?:please\s+)?(?:always|never|" + _DONT + r"\s+ever|never\s+ever)\s+" + _STD_VERBS + r"\b"),
    ("memory", ("always", "never"), r"make\s+sure\s+(?:you\s+|we\s+|to\s+)?(?:always|never)\b"),
    ("memory", ("always", "never"), r"i\s+(?:always|never)\s+(?:use|want|write|run|prefer|like)\b"),
    ("memory", ("prefer",), r"(?:i|we)\s+(?:always\s+)?prefer\s+(?!the\s+(?:first|second|third|last|other|former|latter|new|old)\b|this\b|that\b|it\b|option\b|yours\b|to\s+wait\b)"),
    ("memory", ("like", "prefer"), r"i\s+(?:like|prefer)\s+(?:my|our|all)\s+[\w-]+(?:\s+[\w-]+){0,2}\s+"
     r"(?:to|in|as|with|without|on|under|kept|written|formatted|sorted)\b"),
    ("memory", ("preference",), r"(?:my|our|the\s+team's)\s+preference\s+(?:is\b|[:-])"),
    ("memory", ("rather",), r"i'd\s+rather\s+(?:you|we)\s+(?!didn't\b|not\b|wait\b)"),
    ("memory", ("team",), r"(?:our|the)\s+team\s+(?:uses|prefers|follows|owns|works\s+with)\b"),
    ("memory", ("whenever", "time", "anytime"),
     r"(?:whenever|any\s*time|every\s+time|each\s+time)\s+(?:you|we)\s+(?!(?:are|can|get|have|want|need)\b)[a-z]+\b[^,;.!?]{0,60},\s*"
     r"(?:please\s+)?(?:always\s+|also\s+)?(?:" + _STD_VERBS + r"|update|regenerate|rebuild|add|check|ping|notify|tell|ask|"
     r"make|mention|clear|restart)\b"),
    ("memory", ("project", "repo", "repository", "codebase", "company"),
     r"(?:in|for|across)\s+(?:this|our|the\s+whole)\s+(?:project|repo|repository|codebase|company)\s*,?\s+we\s+"
     r"(?:always\s+|never\s+|only\s+)?(?:use|prefer|keep|put|name|write|run|follow|don't|do\s+not)\b"),
    ("memory", ("let",), r"let's\s+(?:(?:always|never)\s+" + _STD_VERBS + r"\b|make\s+(?:it|this|that)\s+a\s+(?:rule|convention|policy|standard)\b|"
     r"(?:stick\s+with|standardi[sz]e\s+on|settle\s+on)\s+(?!this\b|that\b|it\b|these\b|those\b))"),
    ("memory", ("stop",), r"(?:please\s+)?stop\s+(?:adding|using|writing|putting|creating|generating|committing|pushing|suggesting|importing)\b"),
    ("memory", ("use",), _DONT + r"\s+use\s+[^;!?]{1,60}?[,;-]\s*(?:we|our\s+team)\s+(?:use|prefer|have)\b"),
    ("info", ("update",), r"update\s*[:-]\s*" + _FACT),
    ("info", ("fyi", "heads", "important", "know", "context", "worth", "aware"),
     r"(?:just\s+so\s+you(?:\s+know|'re\s+aware)|fyi|heads[\s-]+up|important(?:\s+to\s+(?:know|note))?|for\s+context|worth\s+knowing|"
     r"for\s+your\s+information)\s*[,:-]\s*"
     r"(?:the|our|we|all|every|prod|production|staging)\b"),
    ("memory", ("save", "add", "record", "store", "put", "write", "log", "commit", "keep", "memory", "vault"),
     r"(?:save|add|record|store|put|write|log|commit|keep)\s+(?:this|that|it)?\s*(?:to|in|into)\s+(?:your\s+|the\s+)?"
     r"(?:memory|memories|vault|long[- ]term\s+memory|notes)\b"),
    ("memory", ("save", "add", "record", "store", "log", "file", "note", "keep"),
     r"(?:save|add|record|store|log|file|note|keep)\s+(?:this|that|it)\s+as\s+(?:a|an)\s+"
     r"(?:decision|pitfall|learning|pattern|convention|rule|preference|gotcha|memory)\b"),
    ("memory", ("save", "record", "write"), r"(?:save|record|write)\s+(?:this|that|it)\s+down\s*[.!]*$"),
    ("memory", ("later", "future"), r"(?:save|store|keep|file|note)\s+(?:this|that)\s+for\s+(?:later|the\s+future|future\s+sessions)\s*[:,-]"),
    ("memory", ("want", "need", "like"), r"i\s+(?:want|need|'d\s+like)\s+you\s+to\s+(?:remember|know|keep\s+in\s+mind)\s*(?:that\b|:)"),
    ("memory", ("note", "mental"), r"make\s+a\s+(?:mental\s+)?note(?:\s+of\s+this|\s+that|\s*:)"),
]
# After a memory cue: the statement is about the code in front of us or this one task, not a keeper
# ("never use a bare except here", "from now on in this function", "this PR must not ...").
_LOCAL = re.compile(r"\b(?:here\s*(?:[,.;:!]|$)|right\s+here\b|in\s+(?:this|that)\s+(?:function|method|class|loop|"
                    r"file|test|block|snippet|line|module|component|pr|change|commit|diff|query|script|case|handler)\b|"
                    r"in\s+the\s+(?:function|method|class|loop|block|snippet|line)\b|"
                    r"this\s+(?:pr|time|once)\b|for\s+now\b|for\s+this\s+(?:pr|change|task|commit|one)\b)"
                    # ... or the cue is followed by a piece of the code as the subject ("from now on the variable is")
                    r"|^\s*,?\s*the\s+(?:variable|value|loop|function|method|code|list|array|string|result|object|field|"
                    r"pointer|counter|index|cursor|call|request|response)\b", re.I)
# After an "fyi"/"heads up"/"important" cue: news of the moment, not a standing fact.
_TRANSIENT = re.compile(r"\b(?:right\s+now|currently|at\s+the\s+moment|today|again|still|broken|failing|down|red|"
                        r"already|just|this\s+(?:pr|change|branch|commit))\b", re.I)

# A request put as a question is still one: "can you remember that we host the docs on Netlify?"
# (a question about the past, "do you remember ...?", is not: questions are skipped otherwise).
_ASKED = (r"(?:can|could|will|would)\s+you\s+(?:please\s+)?(?:remember|note|keep\s+in\s+mind)\s+that\s+"
          r"(?:we|our|the|you|i|all|every)\b")

# A sentence ends at . ! ? followed by a space (or at a line end): "moment.js" and "v1.2" stay whole.
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*")
_WORDS = re.compile(r"[a-z]+")
_compiled: dict[int, re.Pattern] = {}


def _rule(i: int) -> re.Pattern:
    rx = _compiled.get(i)
    if rx is None:
        rx = _compiled[i] = re.compile(_LEAD + "(?:" + (RULES[i][2] if i >= 0 else _ASKED) + ")", re.I)
    return rx


def kind(prompt: str, *, all_rules: bool = False) -> str | None:
    """"correction", "memory" or None for a prompt (`all_rules`: try every rule, key words or not)."""
    text = prompt[:MAX_CHARS].replace("\u2019", "'").replace("\u2018", "'")
    words = set(_WORDS.findall(text.lower()))
    live = [i for i, (_, keys, _) in enumerate(RULES) if all_rules or words.intersection(keys)]
    if not live:
        return None
    found = None
    for m in _SENTENCE.finditer(text):
        s = m.group(0).strip().strip("\"'`*_>#- ")
        if not s:
            continue
        if s.endswith("?"):
            if found is None and words & {"remember", "note", "mind"} and _rule(-1).match(s) and not _LOCAL.search(s):
                found = "memory"
            continue
        hit = None
        for i in live:
            r = _rule(i).match(s)
            if not r:
                continue
            k = RULES[i][0]
            if k == "not":
                hit = None
                break
            rest = s[r.end():]
            if k in ("memory", "info") and (_LOCAL.search(rest) or (k == "info" and _TRANSIENT.search(rest))):
                continue
            k = "memory" if k == "info" else k
            if hit is None or k == "correction":
                hit = k
        if hit == "correction":
            return "correction"
        if hit and found is None:
            found = hit
    return found
