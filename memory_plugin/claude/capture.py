"""Does a prompt state something worth keeping? ("remember that ...", "from now on ...", "we decided
...", "I prefer ...", "our staging db is on port 5433", a correction such as "no, we use X, not Y").

A clause-level detector, not a phrase list. The prompt is cut into sentences (code blocks, inline code
and quoted text masked, so "translate 'always remember your password'" or `useRemember()` say nothing);
each sentence is described by a few named cue classes (CUES: is it addressed to memory or to future
sessions, a generic always/never rule, a team fact with a specific value, a decision, a preference, a
correction lead, a contrast "X, not Y", a change "switched to / no longer / used to"; and against: a
to-do frame "remember to ...", a question, a hypothetical, the code at hand "in this function", news of
the moment "just / already / an hour ago", a task imperative "fix ...", an observation "it always
crashes", reported speech) and a few named conjunctions of them (PAIRS: a cue together with the absence
of every veto that says "this is about the task at hand"; `asks` marks a sentence beside another that
asks a question or gives a task, so "our tests are slow. Can you find why?" is context, not a memory).
A logistic regression over those features (WEIGHTS, BIAS) scores each sentence; the prompt is a capture
when its best sentence's probability reaches THRESHOLD, and a correction when one of its sentences leads
with a correction, tells Claude it is wrong, says the team changed something, or contrasts ("X, not Y").
The weights are data, capture_weights.json beside this module, fit on the development sets only (bench/dev/
capture-dev*.yaml plus the non-capture prompts of bench/dev/prompts-*.yaml) by bench/fit/fit_capture.py,
which writes that file and reports leave-one-set-out figures (the method: bench/eval/PROTOCOL.md).
Linear in the prompt's length: every pattern is a plain alternation searched once per
sentence, no nested unbounded repetition; a cue is searched only when one of its KEYS is in the prompt,
and the cues that only lower a score only where a sentence could still pass (an exact bound), so an
ordinary prompt compiles and searches a handful of patterns. The hook only asks Claude to record what it found; it writes
nothing.
"""
from __future__ import annotations

import bisect
import json
import math
import os
import re

from . import rxcache

MAX_CHARS = 4000  # the hook cuts the prompt at 4,000 characters; a statement may sit anywhere in it

_V = r"(?:is|are|'s|was|were|has|have|had|lives?|runs?|uses?|needs?|goes|go|sits?|reads?|owns?|takes?|expires?|" \
     r"rotates?|resets?|means?|must|can't|cannot|won't|only|stores?|stored|accepts?|requires?|calls?|returns?|" \
     r"keeps?|caches?|strips?|builds?|built|handles?|deploys?|publishes?|points?|talks?|sends?|listens?|holds?|" \
     r"belongs?|defaults?|wants?|gets|comes?|lives|hosted|kept|managed|owned|frozen|not)"
_TASK = (r"(?:fix|add|write|run|make|rename|refactor|implement|update|create|show|open|explain|check|look|try|delete|"
         r"remove|revert|undo|put|save|store|translate|commit|push|switch|profile|give|tell|find|move|change|bump|clean|"
         r"handle|assert|rewrite|generate|help|debug|review|summari[sz]e|list|print|set|install|build|deploy|test|"
         r"ignore|continue|go|do|use|get|read|pull|merge|format|lint|ask|call|email|ping|send|close|mark|"
         r"finish|start|wait|rerun|retry|redo|dedupe|dedup|improve|investigate|see|figure|walk|include|drop|"
         r"replace|convert|parse|optimi[sz]e|speed|reduce|increase|split|copy|paste)")
_FILL = r"(?:(?:ok(?:ay)?|so|also|and|but|btw|oh|well|hey|alright|right|yes|yeah|great|thanks|thank you|cool|hmm+|hm+|" \
        r"mm+|um+|ugh|eh|wait|hold on|hang on|please|pls|plz|now)[,.!]?\s+){0,3}"

# The cue classes: name -> pattern searched in a sentence (lower case, masked). Each is one idea, in
# its general grammatical frame, not a sentence of a dev set.
CUES: dict[str, str] = {
    # addressed to memory: "remember ...", "keep in mind", "for future reference", "before I forget"
    "memory": r"\b(?:remember(?!-)|memori[sz]e|keep (?:this |that |it )?in mind|bear (?:this |that )?in mind|"
              r"(?:don't|dont|do not|never) (?:ever )?forget|before i forget|(?:make|take) a (?:mental )?note|take note|"
              r"note (?:for|to) (?:later|self|the future|next time|future)|for (?:the )?(?:future )?reference|"
              r"for the record|for posterity|to remember|worth (?:remembering|noting|knowing)|good to (?:know|keep)|"
              r"keep (?:this|that|it) (?:for later|around)|write (?:this|that|it) down|(?:your|the) memory|memori[sz]e|"
              r"(?:to|in|into) (?:your |the )?(?:memory|memories|vault|notes)|note\s*:|today i learned|"
              r"(?:save|store|record|log|file|keep|note|add) (?:this|that|it) (?:as|for) (?:a|an|later|the future)\b)|^til\b",
    # the memory cue followed by a clause: "remember (that) prod deploys need ...", "note: the X is ..."
    "memory_clause": r"\b(?:remember(?!-)|memori[sz]e|in mind|forget|(?:make|take) a (?:mental )?note|note (?:for|to) \w+|"
                     r"note\s*:|reference|record|posterity|later|memory|"
                     r"worth (?:remembering|noting|knowing)|good to know)\b\s*(?:that\b|this\b|:|,|-)?\s*"
                     r"(?:[\w./@<>'-]+\s+){0,6}?" + _V + r"\b",
    # a to-do or a recall question wearing the same words: "remember to ...", "do you remember ..."
    "todo": r"\b(?:(?:remember|forget|make sure|be sure|remind \w+) to|remind me|(?:don't|dont|do not) forget (?:the|a|an|about)|"
            r"(?:we|i) (?:need|want|have|'ll need|will need|gotta|got) to|we (?:should|could) (?:probably|maybe)|we want (?:a|an|the|to)|remember (?:what|when|where|how|why|"
            r"which|who|whether|if|me|the (?:last|first|other))|(?:do|did|does|can|could|will|would) (?:you|we|i) "
            r"(?:still |ever )?(?:remember|recall)|(?:i|we|you) (?:can't|cannot|don't|dont) remember|"
            r"remember (?:that|this) (?:file|bug|error|thing|function|issue|one|test|pr|branch|time|meeting))\b",
    # a lesson learned: "turns out ...", "learned the hard way", "we've been burned by"
    "learned": r"\b(?:turns out|turned out|lessons? (?:learned|from)|lesson\s*:|learned (?:the hard way|that)|"
               r"today i learned|(?:i|we) learned|learned (?:\w+ )?that|writing (?:it|this) down|took me \w+ (?:hours|days|weeks) to|(?:we've|we have|i've) been burned|gotcha)\b|^til\b",
    # a request put as a question: "can you remember that we host the docs on Netlify?"
    "asked": r"\b(?:can|could|will|would) you (?:please )?(?:remember|note|keep in mind|memori[sz]e) (?:that|this)\b",
    # future sessions: "from now on", "going forward", "next time", "whenever you ..."
    "future": r"\b(?:from now on|going forward|moving forward|henceforth|in (?:the )?future|for the future|"
              r"for (?:all )?future|next time|from (?:today|here on)|starting (?:now|today|tomorrow|next)|for later|"
              r"every time|each time|any ?time|whenever|permanent(?:ly)?|from this point|every session|all sessions|"
              r"(?:next|future|later|all|other) sessions?)\b",
    # a generic rule: "always ...", "never ...", "by default", "rule of thumb", "policy"
    "generic": r"^" + _FILL + r"(?:every|all|each) (?!time\b)\w+|\b(?:always|never(?! mind)|ever|by default|as a rule|rule of thumb|no exceptions|hard rule|policy|"
               r"standard practice|everywhere|important (?:that|for me that) (?:you|we)|(?:that|this) way\s*[.!]?$|"
               r"as a general rule|(?:our|team|house|one|a|hard|company|the team's) (?:rule|policy|convention|standard)s?\b|"
               r"(?:rule|policy|convention|standard)s?(?: here| in this \w+| for [\w ]{1,30}?)?\s*(?:is|are|:|-)\s|"
               r"every (?:\w+ )?(?:day|night|week|month|year|morning|evening|hour|monday|tuesday|wednesday|thursday|friday|"
               r"saturday|sunday|sprint|release|deploy)\b|(?:monthly|weekly|daily|nightly|hourly)\b|every (?:pr|commit|release|endpoint|query|migration|new|public|request|job)|"
               r"all (?:new|future|environments|our|the (?:services|repos|environments)))\b",
    # the team or the codebase as a whole: "we", "our", "this repo", "in our company"
    "team": r"\b(?:we|we're|we've|we'll|our|ours|us|the team|team's|this team|(?:this|in the) (?:repo|repository|project|"
            r"codebase|company|org|monorepo)|everyone|everybody|(?<!somewhere )around here)\b",
    # a habit of the team: "we use ...", "we never deploy ...", "we rebase"
    "habit": r"\b(?:we|our team|the team|everyone)\s+(?:always\s+|never\s+|only\s+|usually\s+|all\s+|still\s+)?(?:use|run|"
             r"deploy|ship|host|keep|store|log|rebase|merge|squash|tag|release|write|build|follow|prefer|do|don't|dont|"
             r"do not|not|require|need|pin|put|name|test|review|call|publish|target|own|want)\b",
    # a statement of how things are: "the X is / lives / runs ...", "it's ..."
    "stated": r"\b(?:the|our|its|their|all|every|each|this|that)\s+[\w./@<>-]+(?:\s+[\w./@<>-]+){0,3}\s+" + _V + r"\b"
              r"|\b(?:it's|its|it is|there's|they're)\s+(?!fine\b|ok\b|okay\b|good\b|done\b|working\b|"
              r"not\s+(?:working|what)\b)\w",
    # a specific value: a number, version, port, path, host, ENV_VAR, camelCase name, masked code
    "specific": r"\d|(?<![\w-])[\w-]+/[\w./<>*-]*|\b\w+\.\w{2,}\b|@\w+|\bcodeword\b|\b\w+_\w+\b|\b(?:utc|gmt)\b",
    # an infrastructure or team thing as the subject: "the prod database ...", "our staging db ..."
    "infra": r"^" + _FILL + r"(?:the|our)\s+(?:[\w-]+\s+){0,2}?(?:prod|production|staging|dev|ci|database|db|cluster|bucket|"
             r"queue|server|servers|api|service|services|repo|pipeline|cron|deploys?|releases?|runner|environment|env|vpn|"
             r"bastion|broker|account|bucket|region|secrets?|keys?|tokens?|data warehouse|warehouse)\b",
    # "please don't add comments that ...": a prohibition (with the vetoes, a standing one)
    "prohibit": r"^" + _FILL + r"(?:don't|do not|dont)\s+(?:ever\s+)?" + _TASK + r"\b",
    # a decision: "we decided", "agreed", "settled", "we're going with"
    "decision": r"\b(?:decided|agreed|settled|chose|chosen|went with|going with|standardi[sz]ed|standardi[sz]ing|"
                r"we're moving|we are moving|we'll be using|we will use|(?:final|design|team|architecture|product) decision|"
                r"decision\s*(?:is|was|:|-)|agreement\s*:|let's (?:stick with|standardi[sz]e on|settle on|make (?:it|this|that) a))\b"
                r"(?!\s*(?:to)?\s*(?:\.\.\.|\?|$))",
    # a preference of the user: "I prefer", "I'd like you to always", "my coding style"
    "prefer": r"^" + _FILL + r"prefer\b|\bprefer \S+ (?:over|to)\b|\b(?:i (?:always )?(?:prefer|love|hate|'d rather|would rather|'d prefer)|i like (?:my|our|all|to|it when|when)|"
              r"i (?:want|'d like|would like) (?:you|claude) to (?:always|never|use|keep|write|stop|answer|show|ask)|"
              r"i'd (?:rather|prefer)|my (?:preference|style|coding style|rule|convention)|i'm (?:on|using))\b",
    # a one-off choice: "I prefer the second option", "option B"
    "oneoff": r"\b(?:prefer|like|rather|go with|choose|pick|take)\s+(?:the\s+)?(?:first|second|third|last|other|former|"
              r"latter|new|old|version|option|one|approach|this|that|it|yours|mine)\b|\boption [a-z0-9]\b|"
              r"\beither (?:works|is fine|way)\b|\bup to you\b|\b(?:preference|choice) would be\b",
    # telling Claude something to know: "fyi", "heads up", "you should know", "just so you know"
    "know": r"\b(?:fyi|for (?:your|ur) info(?:rmation)?|heads[- ]up|(?:just )?so (?:you|we)(?: know|'re aware| are aware)|just so (?:you|we)|"
            r"(?:some )?(?:background|context) (?:for you|you need)|let me give you (?:some )?(?:background|context)|you should know|"
            r"you (?:need|'ll need|will need|have) to know|good to know|for context|to be clear|for what it's worth|"
            r"something (?:you should|to) know|context you|be aware|worth knowing|things? to know|you should be aware)\b",
    # a label before a colon that names what follows: "Decision:", "Lesson learned:", "Rule:", "Gotcha:"
    "label": r"^(?:[\w;'-]+\s+){0,3}(?:note|rule|rules|decision|lesson|lessons|learned|tip|gotcha|takeaway|policy|"
             r"convention|correction|context|instruction|update|reminder|fyi|important|settled|tl;dr|heads[- ]up|"
             r"workflow|style|thing|remember|memory|info|fact|reference|standard|process|setup|decided|agreed|agreement)"
             r"(?:\s+[\w'-]+){0,4}\s*[:\u2013\u2014-]+\s+\S",
    # a correction lead: "no, ...", "nope", "actually", "wrong", "not quite", "scratch that"
    "corr_lead": r"^" + _FILL + r"(?:no+|nope|nah|actually|wrong|incorrect|not (?:quite|exactly|really|true)|hold on|hang on|"
                 r"correction|small correction|little correction|scratch that)\b",
    # telling Claude it is wrong: "that's outdated", "you assumed", "you're mixing things up"
    "wrong": r"\byou(?:'ve| have)? got (?:it|that|this) (?:backwards|wrong)\b|\b(?:that's|that is|this is|it's|that was|you're|you are|your \w+ (?:is|was))\s+(?:(?:not|no longer)\s+)?"
             r"(?:wrong|incorrect|outdated|out of date|stale|mistaken|deprecated|an old|the old|old info|not right|"
             r"not true|not correct|not accurate|not the case|not how|mixing|confusing|misremembering|off)\b"
             r"|\byou (?:assumed|keep|got it|have it|'ve got it|misunderstood|are mixing|'re mixing|said)\b"
             r"|\b(?:that|this|it) (?:isn't|is not|wasn't) (?:right|true|correct|accurate|the case|how)\b"
             r"|\bcorrection\b|\bnot (?:anymore|any more|any longer)\b|\b(?:is|are|was) (?:wrong|incorrect|outdated|out of date|stale)\b"
             r"|\b(?:is|are|was|which is) deprecated\b|\byou (?:confused|mixed up)\b|\b(?:no longer|not) the case\b|\bused to be (?:true|the case|right|correct)\b|\b(?:that|this|it) (?:has )?changed\s*[:;,-]",
    # a contrast: "X, not Y", "not X, it's Y", "instead of", "rather than", "but it's"
    "contrast": r",\s*not\s+(?!sure\b|yet\b|really\b|quite\b|just\b|only\b|even\b|all\b|always\b|now\b|that\b|this\b|"
                r"what\b|how\b|to\b|a\b|an\b|so\b|too\b|much\b|very\b)[\w./-]|\b(?:instead of|rather than|not\s+[\w./-]+\s*[,;:-]+\s*(?:it's|its|we|our|the|use|it)\b|"
                r"but (?:it's|its|now|we|the)\b|isn't\s+[\w./-]+\s*,)",
    # a change: "switched", "moved off", "no longer", "anymore", "used to", "was renamed"
    "change": r"\b(?:switched|switching|moved|migrated|migrating|replaced|renamed|dropped|deprecated|sunset|retired|"
              r"removed|ditched|phased out|no longer|any ?more|any longer|used to|(?:is|are) gone|since (?:the|last|we|\d)|"
              r"changed|raised|lowered)\b|\b(?:is|are|'s|runs|lives|uses|goes|go|on)\s+(?:[\w./-]+\s+){0,3}now\b|"
              r"\bnow (?:it's|its|we|the|everything|all)\b",
    # "stop using X"
    "stop_use": r"\b(?:stop|stopped|quit)\s+(?:using|suggesting|adding|importing|writing|putting|doing|calling|creating|generating)\b",
    # against: a question
    "question": r"\?\s*$|^" + _FILL + r"(?:what|why|how|where|when|which|who|whose|is|are|was|were|do|does|did|can|could|"
                r"should|would|will|shall|have|has|any (?:idea|way|chance|reason)|isn't|aren't|doesn't|don't you)\b",
    # against: a hypothetical
    "hypo": r"^" + _FILL + r"(?:what if|suppose|supposing|hypothetically|imagine|if (?:we|i|you|the))\b|"
            r"\bwould (?:it|that|we|you|this)\b|\bhow (?:much|big|long|hard|many)\b|\bhypothetically\b",
    # against: the code or task at hand
    "local": r"\b(?:this|that) (?:function|method|class|loop|file|line|block|snippet|script|test|component|module|pr|"
             r"commit|diff|branch|one|query|case|variable|hook|regex|button|page|change|spike|task|ticket|session|"
             r"time|bug|error|command|output|version|helper|endpoint|field|column|view|screen|form|route|request|call|code|"
             r"part|section|issue|problem|approach|step|value|list|string|array|object|param|argument|container|"
             r"meeting|fixture|regex)\b|\bthe (?:function|method|loop|line|block|snippet|variable|file|input|output|"
             r"other|second|first|last|wrong|bug|layout)\b|"
             r"\b(?:next time|every time|each time|whenever|from now on|going forward) (?:it|this|the (?:loop|function|code|"
             r"script|job|request|user|page|test|component|step))\b|\bfrom this step\b|\bfor now\b|\bon line \d+|\bright here\b|\bfor this (?:one|time|pr|change|task|case|function|file|bug|ticket)\b"
             r"|\bin this (?:pr|change|task|session|function|file|script)\b|\bthis once\b",
    # the code at hand by a place word: "here, the loop should break early", "change it here, not in the
    # caller", "... fix it here." Counts as `local` unless `scope_here` says the "here" is the team's (_cues)
    "here_local": r"\bhere\s*[,;]|\bhere\s*[,.!]?\s*$",
    # a place word that scopes a team habit, not the code at hand: "we use Minitest here, not RSpec",
    # "we squash-merge everything in here", "around here we ..." (a team subject and a present-tense habit
    # verb, then "here" in the same clause; or "around here")
    "scope_here": r"\b(?:we|our team|the team|everyone)\s+(?:always\s+|never\s+|only\s+|usually\s+|all\s+)?"
                  r"(?:use|run|deploy|ship|host|keep|store|rebase|merge|squash(?:-merge)?|write|build|follow|prefer|"
                  r"do|don't|dont|do not|pin|name|test|support|call|publish|target|own)\b(?:[^,;:.!?]|\.(?=\S)){0,40}?\bhere\b"
                  r"|(?<!somewhere )\baround here\b",
    # against: news of the moment
    "transient": r"\b(?:just(?! so\b)|already|again|right now|currently|at the moment|ago|yesterday|tonight|this morning|"
                 r"yet|still (?:failing|broken|seeing|red|slow)|so far|earlier today|i'm \w+ing|i am \w+ing)\b"
                 r"|\bwhenever you(?:'re| are)? (?:ready|get a chance|can|have (?:time|a (?:sec|minute|moment)))\b",
    # against: a debugging report
    "debug": r"\b(?:(?:i'm|we're|i am|we are|i|we) (?:getting|get|got|seeing|see)|stack ?trace|traceback|crash(?:es|ed|ing)?|"
             r"failing|broken|segfault|didn't work|doesn't work|not working|is down|are down|complaining|"
             r"still (?:there|happening|the same)|it (?:fails|failed|breaks|hangs|errors|throws)|(?:fails?|throws?) (?:on|with|when|an?)|throwing)\b",
    # against: a task imperative at the sentence's start
    "task": r"^" + _FILL + r"(?:(?:can|could|would|will) you (?:please )?|let's |lets |i need you to |go ahead and )?" + _TASK + r"\b",
    # against: a request after a clause boundary: "..., can you add a TTL", "..., now rebuild it"
    "then_task": r"[,;:]\s+(?:and\s+|then\s+|now\s+|so\s+)*(?:(?:can|could|would) you\s+|please\s+|pls\s+|let's\s+)?"
                 r"(?:" + _TASK + r"|tighten|rebuild|optimi[sz]e|flatten|profile|relax|implement)\b",
    # a short preamble, a colon or dash, then a clause: "Wrong: logs go to stdout", "That changed: logs are ..."
    "colon_clause": r"^[^:;\u2013\u2014]{1,50}?\s*(?:[:;\u2013\u2014]|\s-)\s+(?:[\w./@<>'-]+\s+){0,4}?" + _V + r"\b",
    # against: a label followed by a to-do: "note to self: ask ...", "remember: this is just a spike"
    "label_task": r"^[^:]{1,40}:\s+(?:" + _TASK + r")\b",
    # against: an observation "it always crashes", "I never know"
    "observe": r"\b(?:it|this|that|which|he|she|they|i|we)\s+(?:always|never|sometimes|often|usually|keep)\s+(?:seem|seems|"
               r"get|gets|got|hit|hits|see|sees|crash|crashes|fail|fails|finish|finishes|work|works|worked|return|returns|"
               r"happen|happens|forget|know|understood|understand|remember|end|ends|run into|lose|break|breaks|"
               r"downloads?|hang|hangs)\b|\b(?:i|we|it|they|you)\s+(?:always|never)\s+(?:\w+ed|set|got|had|did|saw|made)\b|\b(?:always|never) (?:returns|finishes|works|worked|gets|happens|crashes)\b",
    # against: reported or quoted speech: "the docs say '...'", "translate '...'"
    "reported": r"\b(?:says?|said|tells?|told|reads|wrote|quote|translate|docstring|comment|message|user story|"
                r"text|label|string|prints?)\b|\bquoted\b",
    # against: writing a fact somewhere other than memory: the README, the changelog
    "elsewhere": r"\b(?:readme|changelog|contributing|docstring|comment|pr description|wiki|tracker|jira ticket|"
                 r"localstorage|local storage|cache|file called|\.json|\.png|/tmp)\b",
}
# Conjunctions of the cue classes (a linear model cannot see them otherwise).
PAIRS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (all of these, none of these). The vetoes say "about the task at hand": a question, the
    # code in front of us, news of the moment, a request in the same sentence.
    "team_fact": (("team", "stated"), ("question", "task", "local", "then_task", "observe", "debug", "todo", "asks")),
    "specific_fact": (("stated", "specific"), ("question", "task", "local", "debug", "then_task", "observe", "todo", "asks")),
    "generic_rule": (("generic",), ("question", "local", "observe", "hypo", "task", "reported")),
    "decision_statement": (("decision",), ("question", "local", "transient", "hypo", "oneoff")),
    "memory_cue": (("memory",), ("todo", "question", "local", "elsewhere", "transient", "label_task", "observe")),
    "memory_statement": (("memory_clause",), ("todo", "question", "local", "elsewhere", "label_task", "transient")),
    "label_statement": (("label",), ("local", "transient", "label_task", "question", "debug")),
    "know_statement": (("know",), ("local", "transient", "question", "debug")),
    "corrected_fact": (("corr_lead", "stated"), ("question", "local", "debug")),
    "wrong_fact": (("wrong", "stated"), ("question", "local", "then_task")),
    "change_team": (("change", "team"), ("question", "transient", "local", "then_task", "asks")),
    "future_rule": (("future",), ("question", "local", "transient", "debug", "observe")),
    "habit_rule": (("habit",), ("question", "local", "then_task", "observe", "task", "todo", "debug", "asks")),
    "preference": (("prefer",), ("oneoff", "question", "local", "transient")),
    "infra_fact": (("infra", "stated"), ("question", "task", "local", "then_task", "debug", "transient", "asks")),
    "prohibition": (("prohibit",), ("question", "local", "transient", "then_task")),
    "standing_order": (("task", "generic"), ("question", "local", "reported", "elsewhere", "hypo")),
    "colon_statement": (("colon_clause",), ("question", "local", "transient", "label_task", "debug")),
}
# Cue classes that enter the model only through a conjunction above (alone they are too often the task).
INGREDIENTS = ("memory", "decision", "memory_clause", "label", "know", "habit", "colon_clause", "prefer", "team", "infra", "prohibit",
               "here_local", "scope_here")  # the last two only decide `local` (_cues)
_NAMES = tuple(n for n in CUES if n not in INGREDIENTS) + ("short", "asks") + tuple(PAIRS)
_ASKING = {"question", "task", "then_task"}  # a sentence with one of these asks something of Claude now
# Speed only (answers are the same, tests/test_prompt_hook.py checks it): a cue is searched only in a
# prompt with a word that starts with one of its key words (its pattern cannot match without one);
# cues not named here are always searched.
KEYS: dict[str, frozenset[str]] = {n: frozenset(ws.split()) for n, ws in {
    "memory": "remember memorize memorise mind forget note reference record posterity worth good keep write memory "
              "memories vault notes today til save store log file add",
    "memory_clause": "remember memorize memorise mind forget note reference record posterity later memory worth good",
    "todo": "remember forget sure remind need want have gotta got should could recall",
    "asked": "remember note mind memorize memorise",
    "future": "now forward henceforth future next today here starting later time anytime whenever permanent "
              "permanently point session sessions",
    "generic": "always never ever default rule rules exceptions policy convention standard everywhere important way "
               "general every all each monthly weekly daily nightly hourly",
    "team": "we our ours us team repo repository project codebase company org monorepo everyone everybody around",
    "habit": "we our team everyone",
    "decision": "decided agreed settled chose chosen went going standardised standardized standardising standardizing "
                "moving using use decision agreement let",
    "prefer": "prefer like love hate rather want would preference style rule convention on using",
    "oneoff": "prefer like rather go choose pick take option either up preference choice",
    "know": "fyi info information heads know aware just background context let clear worth something",
    "label": "note rule rules decision lesson lessons learned tip gotcha takeaway policy convention correction context "
             "instruction update reminder fyi important settled tl heads workflow style thing remember memory info fact "
             "reference standard process setup decided agreed agreement",
    "wrong": "wrong incorrect outdated out stale mistaken deprecated old right true correct accurate case how mixing "
             "confusing misremembering off assumed keep got have misunderstood said correction anymore any used "
             "changed confused mixed backwards",
    "contrast": "not instead rather but isn",
    "change": "switched switching moved migrated migrating replaced renamed dropped deprecated sunset retired removed "
              "ditched phased longer anymore any used gone since changed raised lowered now",
    "stop_use": "stop stopped quit",
    "hypo": "what suppose supposing hypothetically imagine if would how",
    "observe": "always never sometimes often usually keep",
    "reported": "says say said tells tell told reads wrote quote translate docstring comment message user story text "
                "label string prints print quoted",
    "elsewhere": "readme changelog contributing docstring comment description wiki tracker jira localstorage local "
                 "cache file json png tmp",
    "learned": "turns turned lesson lessons learned today took burned gotcha til writing",
    "prohibit": "don do dont",
    "here_local": "here",
    "scope_here": "here",
}.items()}
# A capture is a correction when a sentence of the prompt leads with one or says the team changed something.
_CORRECTION = ("corr_lead", "wrong", "stop_use", "change_team", "contrast")
# An identifier (snake_case, camelCase) is a name, not words: `remember_token`, `rememberMe`, `never_expire`.
_IDENT = rxcache.compile(r"\b[A-Za-z]\w*_\w+\b|\b[a-z]+[A-Z]\w*\b")

SHORT_WORDS = 4  # a sentence of at most this many words ("no, the other file", "Stop.") is the feature `short`


def _fitted(path: str = os.path.join(os.path.dirname(__file__), "capture_weights.json")) -> dict:
    # Read once per process, when the prompt hook first asks: one small file, and json is loaded by
    # the hook already. bench/fit/fit_capture.py writes it; a hand edit would be lost at the next fit.
    with open(path, encoding="utf-8") as f:
        return json.load(f)


_FIT = _fitted()
BIAS: float = _FIT["bias"]
WEIGHTS: dict[str, float] = _FIT["weights"]
THRESHOLD: float = _FIT["threshold"]

_rx: dict[str, re.Pattern] = {}
_WORD = rxcache.compile(r"[a-z]+")
_CODE_BLOCK = rxcache.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.S)
_INLINE = rxcache.compile(r"`[^`\n]{1,200}`")
_DQUOTE = rxcache.compile(r"\"[^\"\n]{1,300}\"|\u201c[^\u201d\n]{1,300}\u201d")
_SQUOTE = rxcache.compile(r"(?<![\w'])'[^'\n]{1,300}?'(?![\w'])")
_SENTENCE = rxcache.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*")
# A question joined to a statement by ";", ":" or a dash is a sentence of its own ("the retry queue keeps
# dropping messages; what do we do about it"), so `question` and `asks` see it. The clause must open (after
# the usual fillers) with a question word, or an auxiliary and its subject ("; is there a way", "- should
# it run earlier"); a wh-word followed by its subject opens a statement, not a question ("; what we do is
# rebase", "; when it fails, ..."), and does not split.
_QUESTION_CLAUSE = rxcache.compile(
    r"\s*(?:;|:|\s[-\u2013\u2014])\s+(?=" + _FILL +
    r"(?:(?:what|why|how|where|when|which|who|whose)(?:'s|'re)?\b(?!\s+(?:we|you|i|they|it|he|she)\b)"
    r"|(?:is|are|was|were|do|does|did|can|could|should|would|will|shall|has|have|isn't|aren't|doesn't|don't)\s+"
    r"(?:we|i|you|it|they|there|this|that|these|those|the|our|any)\b|any (?:idea|way|chance|reason)\b))")


def _pattern(name: str) -> re.Pattern:
    rx = _rx.get(name)
    if rx is None:
        rx = _rx[name] = rxcache.compile(CUES[name])
    return rx


def sentences(prompt: str) -> list[str]:
    """The prompt's sentences, lower case, with code and quoted text masked."""
    if not isinstance(prompt, str):
        return []
    text = prompt[:MAX_CHARS].replace("\u2019", "'").replace("\u2018", "'")
    text = _CODE_BLOCK.sub(" codeblock.\n", text)
    text = _INLINE.sub("codeword", text)
    text = _DQUOTE.sub("quoted", text)
    text = _SQUOTE.sub("quoted", text)
    text = _IDENT.sub("codeword", text)
    out = []
    for m in _SENTENCE.finditer(text.lower()):
        for clause in _QUESTION_CLAUSE.split(m.group(0)):
            s = " ".join(clause.split()).strip("\"'`*_># -")
            if s and s != "codeblock.":
                out.append(s)
    return out


def _cues(sentence: str, live: tuple[str, ...] | None = None) -> set[str]:
    on = {n for n in (CUES if live is None else live) if _pattern(n).search(sentence)}
    if "asked" in on:  # "can you remember that ...?" is a request, not a question or a recall
        on -= {"question", "todo"}
    if "here_local" in on and "scope_here" not in on:  # "here," is the code at hand, unless the team's place
        on.add("local")
    if len(sentence.split()) <= SHORT_WORDS:
        on.add("short")
    return on


def _complete(on: set[str], asks: bool) -> dict[str, int]:
    if asks:
        on = on | {"asks"}
    for name, (need, veto) in PAIRS.items():
        if all(c in on for c in need) and not any(c in on for c in veto):
            on = on | {name}
    return {n: 1 for n in on}


def features(sentence: str, asks: bool = False) -> dict[str, int]:
    """The cue classes and conjunctions present in one (masked, lower-case) sentence; `asks`: another
    sentence of the prompt asks a question or gives a task (a fact there may be context for it)."""
    return _complete(_cues(sentence), asks)


def prompt_features(prompt: str, *, exhaustive: bool = False) -> list[dict[str, int]]:
    """features() of each sentence of a prompt, with `asks` set from the other sentences. Unless
    `exhaustive`, a prompt none of whose sentences could reach THRESHOLD (judged from the cues that raise
    a score alone: the rest only lower it) gets [] without the other cues being searched."""
    ss = sentences(prompt)
    if not exhaustive:
        words = sorted(set(_WORD.findall(" ".join(ss))))
        live = tuple(n for n in CUES if n not in KEYS or any(_has_prefix(words, k) for k in KEYS[n]))
        floor, cands = _bound(set(live))
        if not any(_could_pass(sentence, floor, cands) for sentence in ss):
            return []
    else:
        live = None
    raw = [_cues(s, live) for s in ss]
    askers = [bool(on & _ASKING) for on in raw]
    n = sum(askers)
    return [_complete(on, n - a > 0) for on, a in zip(raw, askers)]


def _has_prefix(words: list[str], key: str) -> bool:
    """Some word of the sorted list starts with key ("remember" is in "remembering")."""
    i = bisect.bisect_left(words, key)
    return i < len(words) and words[i].startswith(key)


def _bound(live: set[str]) -> tuple[float, list[tuple[float, tuple[str, ...]]]]:
    """The features that raise a score (weight > 0) whose cues are all live, heaviest first, and the
    sum their weights must reach for a sentence to pass THRESHOLD."""
    floor = math.log(THRESHOLD / (1.0 - THRESHOLD)) - BIAS - max(0.0, WEIGHTS.get("asks", 0.0))
    cands = sorted(((w, PAIRS[n][0] if n in PAIRS else (n,)) for n, w in WEIGHTS.items() if w > 0), key=lambda x: -x[0])
    return floor, [(w, need) for w, need in cands if all(c in live or c == "short" for c in need)]


def _could_pass(sentence: str, floor: float, cands: list[tuple[float, tuple[str, ...]]]) -> bool:
    """Could this sentence reach THRESHOLD? Branch and bound over the features that raise a score (the
    rest, and the vetoes, only lower it): start from all of them present, search their cues heaviest
    first, stop as soon as the bound falls below the floor. Exact; most sentences are settled after a
    few searches."""
    z = sum(w for w, _ in cands)
    seen: dict[str, bool] = {}
    for w, need in cands:
        if z < floor:
            return False
        for c in need:
            if c not in seen:
                seen[c] = len(sentence.split()) <= SHORT_WORDS if c == "short" else bool(_pattern(c).search(sentence))
            if not seen[c]:
                z -= w
                break
    return z >= floor


def probability(feats: dict[str, int], weights: dict[str, float] | None = None, bias: float | None = None) -> float:
    w = WEIGHTS if weights is None else weights
    z = (BIAS if bias is None else bias) + sum(w.get(n, 0.0) * v for n, v in feats.items())
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def best(prompt: str, *, exhaustive: bool = False) -> tuple[float, dict[str, int], bool]:
    """The highest sentence probability of a prompt, that sentence's features, and whether any sentence
    has a correction cue ((0.0, {}, False) for a prompt without sentences or none that could pass)."""
    top: tuple[float, dict[str, int]] = (0.0, {})
    corrects = False
    for f in prompt_features(prompt, exhaustive=exhaustive):
        corrects = corrects or any(c in f for c in _CORRECTION)
        p = probability(f)
        if p > top[0]:
            top = (p, f)
    return top[0], top[1], corrects


def kind(prompt: str) -> str | None:
    """"correction", "memory" or None for a prompt."""
    try:
        p, _, corrects = best(prompt)
    except Exception:  # a hook must never raise on its input; a miss is the safe answer
        return None
    if p < THRESHOLD:
        return None
    return "correction" if corrects else "memory"
