"""Does a prompt state something worth keeping? ("remember that ...", "from now on ...", "we decided
...", a correction such as "no, we use X, not Y").

A small rule set over sentence openings, linear in the prompt's length (every pattern is anchored at
a sentence start and has no nested quantifiers). A to-do ("remember to run the linter"), a question
("do you remember what the error was?") and a review remark ("note that this is slow") are not
memories. The hook only asks Claude to record what it found; it writes nothing.
"""
from __future__ import annotations

import re

# What may open a sentence before the cue: "ok, ", "also ", "btw ", "and please ", "just so you know, ".
_LEAD = r"(?:(?:ok(?:ay)?|so|also|and|btw|by the way|fyi|just so you know|please|hey|oh|well|one more thing)[,:]?\s+){0,3}"

# Cues that the sentence states a memory (a fact, decision or convention to keep).
_KEEP = [
    r"(?:please\s+)?remember(?:\s*:|\s+that\b|\s+this\s*:|,\s+(?!to\b))",
    r"(?:do\s+not|don'?t)\s+forget(?:\s*:|\s+that\b)",
    r"keep\s+in\s+mind(?:\s*:|\s+that\b)",
    r"(?:from\s+now\s+on|going\s+forward|henceforth|in\s+future|in\s+the\s+future)\b",
    r"(?:a\s+)?note\s+(?:for\s+later|to\s+self|for\s+the\s+future|for\s+next\s+time)\b",
    r"(?:for\s+future\s+reference|for\s+the\s+record|lesson\s+learned|lessons\s+learned|til|today\s+i\s+learned)\b",
    r"we(?:'ve|\s+have)?\s+(?:decided|agreed|settled\s+on|chose|chosen|standardi[sz]ed\s+on)\b",
    r"(?:the\s+|our\s+)?decision\s*(?:is|was|:)",
    r"(?:the\s+|our\s+)?(?:convention|rule|policy|team\s+rule)\s+(?:is|here\s+is)\b",
    r"(?:we|you)\s+(?:should\s+)?(?:always|never)\s+\w+",
    r"(?:always|never)\s+(?:use|run|call|commit|push|deploy|merge|write|put|add|import|store|log|pin|edit|touch)\b",
    r"(?:save|add|record|store|write)\s+(?:this|that|it)\s+(?:down|to\s+(?:memory|the\s+vault|your\s+memory|the\s+notes)"
    r"|in\s+(?:memory|the\s+vault|your\s+memory|the\s+notes)|as\s+a\s+(?:decision|pitfall|learning|pattern|convention))\b",
    r"make\s+a\s+note(?:\s+of\s+this|\s+that|\s*:)",
]

# Cues that the sentence corrects what was said or known ("no, we use pnpm, not npm").
_CORRECT = [
    r"no[,.!]?\s+(?:we|it|that|this|the|our)\s+(?:use|uses|is|are|was|were|don'?t|do\s+not|never|always|prefer|run|deploy)\b",
    r"actually,?\s+(?:we|it|that|this|the|our)\s+(?:use|uses|is|are|don'?t|do\s+not|never|always|prefer|switched|moved)\b",
    r"(?:that'?s|that\s+is|this\s+is|it'?s)\s+(?:wrong|incorrect|outdated|out\s+of\s+date|not\s+(?:right|true|correct))\b",
    r"we\s+(?:don'?t|do\s+not|no\s+longer)\s+use\b",
    r"we\s+(?:switched|moved|migrated)\s+(?:from|to|away\s+from|off)\b",
    r"we\s+use\s+[^,.;!?]{1,40},?\s+not\s+\w",
    r"(?:it|that|this)\s+(?:should\s+be|is)\s+[^,.;!?]{1,40},?\s+not\s+\w",
]

# Openings that look like a cue but ask or plan instead ("remember to", "do you remember").
_NOT = re.compile(_LEAD + r"(?:(?:do|can|could|would|did)\s+(?:you|we)\s+(?:still\s+)?remember\b"
                  r"|remember\s+(?:to|what|when|where|how|why|which|who|if|whether)\b"
                  r"|(?:do\s+not|don'?t)\s+forget\s+to\b"
                  r"|(?:always|never)\s+mind\b)", re.I)

_KEEP_RX = re.compile(_LEAD + "(?:" + "|".join(_KEEP) + ")", re.I)
_CORRECT_RX = re.compile(_LEAD + "(?:" + "|".join(_CORRECT) + ")", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
MAX_CHARS = 2000  # a statement to keep sits near the top; the rest of a long prompt is code or logs


def kind(prompt: str) -> str | None:
    """"correction", "memory" or None for a prompt."""
    found = None
    for m in _SENTENCE.finditer(prompt[:MAX_CHARS]):
        s = m.group(0).strip().strip("\"'`*_>- ")
        if not s or s.endswith("?"):
            continue
        if _NOT.match(s):
            continue
        if _CORRECT_RX.match(s):
            return "correction"
        if found is None and _KEEP_RX.match(s):
            found = "memory"
    return found
