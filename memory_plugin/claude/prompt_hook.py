"""UserPromptSubmit: memory in the moment.

Recall, in two halves, never more than `prompt_recall_max_items` items and MAX_CONTEXT_CHARS, fenced
as reference data like the brief:
- what the prompt names (prompt_cues.py): a repository file, a symbol or an error message that a note
  cites or quotes gets that note, precise by construction (the index's anchors; a phrase of the
  message in the note's text). A strong cue (the line named inside a range the note cites, a quoted
  message, a backticked, qualified or compound symbol) gets the note's line; a weaker one (a file, a
  plain word called) a pointer;
- else its topic: the product's retrieval on the prompt's head (RECALL_CHARS). The note the
  retrievers agree on with strong evidence (ITEM_RULE; semantic on: its own description is close to
  the prompt too) gets its line; without the semantic extra, a note that only stands out in the
  words (POINTER_RULE) gets a pointer.
A line is the note's title, type, age and one line of summary, as the code hook writes it
(note_line.py); a pointer stops before the summary, a few tokens. Either says "changed since"
when the code the note cites has changed in the prompt's repository (the working folder's git
top-level; prompt_cues.code_states).
Never a private note, a journal note, a note this session's brief showed or one a hook already
added in this session. A prompt whose words could not pass the rules skips the retrieval.
Capture: a prompt that states something to keep (`capture.kind`) gets one line saying the
memory-write skill can record it. The hook writes nothing to the vault.
Most prompts get nothing: the hook then prints nothing.
"""
from __future__ import annotations

import json
import os
import time

from ..search import retrieve as R
from .session import _brief_paths, _project, _state_path, fresh_state, load_state, project_of, save_state  # noqa: F401

MAX_PROMPT_CHARS = 4000   # a longer prompt is cut before anything reads it: never slower
# Recall reads the prompt's head only: its opening sentence or two, where a prompt says what it is about
# (about 50 word pieces; every prompt of the eval sets is shorter). Encoding the prompt costs in
# proportion to its length: callgrind, the semantic hook on dendron, a 114-character prompt 942M
# instructions; the same repeated to 4,000 characters 1,939M; its first 500 characters 1,379M: a
# 500-character head would still put a long prompt ~150 ms over an ordinary one at 10k notes. And a
# long prompt's tail is mostly pasted material whose words dilute the question's. Capture reads the
# whole MAX_PROMPT_CHARS: a statement to keep may come last.
RECALL_CHARS = 200
MAX_CONTEXT_CHARS = 600   # what one prompt may add, fence included
SUMMARY_CHARS = 110       # the summary of an item given without its note's `meta` (compose)
QUERY_ROOM = 8            # items asked of query beyond max_items (room for brief/journal notes)
FENCE_OPEN = "<memory-plugin-recall>"
FENCE_CLOSE = "</memory-plugin-recall>"


def emit(text: str) -> None:
    import sys

    out = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    sys.stdout.write(json.dumps(out, ensure_ascii=False))
    sys.stdout.flush()


# ---------------------------------------------------------------- recall and capture

# The prompt hook speaks only when the retrieval is confident: the query's one abstention rule with
# stricter thresholds (a prompt is not a question: most prompts are about the code, not the vault),
# then the item must be the one note two retrievers agree on. Set on bench/dev/prompts-til.yaml (the
# dev set, bench/eval/PROTOCOL.md); reported on bench/eval/prompts-*.yaml (bench/RESULTS.md).
ABSTAIN_PROMPT = {
    "semantic_min": 0.53,   # semantic on: the best cosine, unless the searches agree (query's rule)
    "lexical_known": 0.60,  # lexical only: the share of the prompt's idf mass that some note has
}
ITEM_RULE = {
    # One item at most: the note the evidence agrees on (set on the dev prompt sets by the criterion of
    # bench/eval/PROTOCOL.md ("The prompt hook's recall"): most answers with injected precision >= 0.90 pooled and >= 0.85
    # on each dev vault, ordinary prompts with an injection <= 5% pooled and <= 8% on each).
    # Semantic on: the first note of the semantic search, with a cosine of at least `semantic_min`,
    # that a word search (exact words, forms or a title named in the prompt) ranks within
    # `word_rank`, and whose own description (title + one-line summary) is close to the prompt too
    # (`describe_min`): a chunk of a long note can match an ordinary prompt ("write a curl command
    # ..." -> the API page's curl example) while the note is about something else; a note that
    # answers the prompt is about it. Dev (til, silverbullet, logseq; 217 prompts): the old rule
    # (first for both searches, cosine 0.50) precision 0.86, answered 0.37, ordinary 4.9% (logseq
    # 0.75 / 12%); this one 0.92 / 0.31 / 1.9% (logseq 0.86 / 4%). A narrow optimum on 217 prompts:
    # describe_min 0.40 with semantic_min 0.50 or 0.52 holds the criterion; 0.35 or 0.45 miss it on
    # one vault (pooled 0.90 / 0.33 and 0.92 / 0.29).
    "agree_rank": 1,
    "semantic_min": 0.50,
    "word_rank": 3,          # dev answered 0.29 with 1, 0.30 with 2, 0.31 with 3 or no limit (a tie:
                             # the stricter); precision 0.92 in each case
    "describe_min": 0.40,
    # Lexical only: the first note for the exact words and for their forms (or named in the
    # prompt), standing out (its BM25 this many times the next note's; 1.35 and 1.5 the same on dev),
    # and holding `lexical_cover` of the prompt's idf mass (query's `cover`). Words alone cannot tell
    # a docs vault's note from an ordinary prompt about the same tool: the old setting (margin 1.5,
    # specific 2.0, no cover) had precision 0.71 on dev (silverbullet 0.38), ordinary 6.8%; this one
    # 0.92 / 1.0% but answers only 0.13 (a narrow optimum: cover 0.6 or 0.8, specific 2.25 or 2.75
    # break the criterion on one vault). Semantic search is the mode that recalls.
    "lexical_margin": 1.5,
    "lexical_cover": 0.7,
    # Both: the prompt's words the note has are at least this many ...
    "min_words": 2,
    # ... and together as informative as this many words that one note alone has (idf summed, in
    # units of the idf of a word with document frequency 1: vault-relative by construction; dev:
    # ordinary prompts share common words with a note, answerable ones rare ones; 1.25 and 1.75 break
    # the criterion in semantic mode)
    "specific": 1.5,
    "lexical_specific": 2.5,  # ... lexical only (no second retriever to agree)
}
WORD_RETRIEVERS = tuple(r.name for r in R.RETRIEVERS if r.words)
# A pointer (a title, no summary) for a topic, lexical only: the note the words agree on, first for the
# exact words and for their forms (or named in the prompt), standing out from the next note (its BM25
# `margin` times the next one's), its words as specific as ITEM_RULE's lexical bound, and holding
# `cover` of the prompt's idf mass (ITEM_RULE's lexical rule with a lower cover); a note of the project
# the session works in needs `project_cover` only (in a repository, the project's notes are what its
# prompts are about). Set on bench/dev/codemem/chi and the dev prompt sets (til, til2, silverbullet,
# logseq, dvogt23-notes; lexical): cover 0.55 or 0.6 for every note gives 6 of 12 and 3 of 6 pointers
# right and puts 5 and 2 ordinary prompts of the docs vaults over an injection (silverbullet, logseq);
# 0.65 1 of 1 and none; margin 2.0 loses chi's Go-release prompt (1.83). With the semantic extra the
# words alone point nowhere: the meaning did not confirm the note (ITEM_RULE's semantic rule said no).
# Dev, semantic: pointers would add 11 right and 1 wrong; but on the blind prompt sets (aggregate
# figures, bench/RESULTS.md) they put 2 and 1 more ordinary prompts of quickadd-docs and dwarves-brain
# over an injection (0.09 -> 0.17 and 0.14), so they are left out.
POINTER_RULE = {
    "margin": 1.5,
    "cover": 0.65,
    "project_cover": 0.55,
}


def agreed(item: dict, items: list[dict], semantic_on: bool, evidence: dict | None = None) -> bool:
    """Is `item` the note the retrievers agree on (see ITEM_RULE; the semantic rule's description
    check is `described`)? `items`: the whole answer; `evidence`: query's (for `cover`)."""
    found = item.get("found") or {}
    rank = lambda k: found[k][0] if k in found else 10**9  # noqa: E731
    if semantic_on:
        sem = found.get("semantic")
        return (sem is not None and sem[0] <= ITEM_RULE["agree_rank"] and sem[1] >= ITEM_RULE["semantic_min"]
                and min(rank(k) for k in WORD_RETRIEVERS) <= ITEM_RULE["word_rank"])
    if not (rank("names") == 1 or (rank("lexical") == 1 and rank("forms") == 1)):
        return False
    if (evidence or {}).get("cover", 0.0) < ITEM_RULE["lexical_cover"]:
        return False
    top = found.get("lexical", (0, 0.0))[1]
    second = max((o["found"]["lexical"][1] for o in items if o is not item and "lexical" in (o.get("found") or {})),
                 default=0.0)
    return second <= 0 or top >= ITEM_RULE["lexical_margin"] * second


def pointed(item: dict, items: list[dict], evidence: dict | None, idf: dict[str, tuple[float, int]],
            unique: float, mine=lambda: False) -> bool:
    """Do the words alone single out `item` well enough for a pointer (POINTER_RULE)? `mine()`: does the
    note belong to the session's project (asked only when it decides)?"""
    found = item.get("found") or {}
    rank = lambda k: found[k][0] if k in found else 10**9  # noqa: E731
    if not (rank("names") == 1 or (rank("lexical") == 1 and rank("forms") == 1)):
        return False
    cover = (evidence or {}).get("cover", 0.0)
    if cover < POINTER_RULE["project_cover"] or (cover < POINTER_RULE["cover"] and not mine()):
        return False
    if not specific(item.get("matched") or (), idf, unique, semantic_on=False):
        return False
    top = found.get("lexical", (0, 0.0))[1]
    second = max((o["found"]["lexical"][1] for o in items if o is not item and "lexical" in (o.get("found") or {})),
                 default=0.0)
    return second <= 0 or top >= POINTER_RULE["margin"] * second


def described(cfg, prompt: str, item: dict) -> bool:
    """Semantic on: is the note's own description (title + one-line summary) close to the prompt
    (cosine >= ITEM_RULE["describe_min"])? One short embedding (the prompt's vector is the search's),
    only for a note that passed the rest."""
    from ..semantic import vectors as semantic

    try:
        q = semantic.query_vector(cfg, prompt)
        d = semantic.embed(cfg, [f"{item.get('title') or ''}. {item.get('summary') or ''}"])[0]
    except Exception:  # noqa: BLE001 - no model after all: no item, as when the rule is not confident
        return False
    return float(q @ d) >= ITEM_RULE["describe_min"]


def specific(words, idf: dict[str, tuple[float, int]], unique: float, semantic_on: bool = True) -> bool:
    """Do `words` (of the prompt's content words) hold enough evidence: at least ITEM_RULE["min_words"]
    of them, as informative together as ITEM_RULE["specific"] (lexical only: "lexical_specific")
    words that one note alone has?"""
    ws = [w for w in dict.fromkeys(words) if w in idf]
    need = ITEM_RULE["specific" if semantic_on else "lexical_specific"]
    return len(ws) >= ITEM_RULE["min_words"] and sum(idf[w][0] for w in ws) >= need * unique


def worth_retrieving(idf: dict[str, tuple[float, int]], unique: float) -> bool:
    """Can any note pass `specific` for this prompt? An item's words are words some public note has
    (df >= 1), so a word no note has ("... it came up with kubernetes") cannot count towards it; the
    semantic rule's bound (the lower one) stands for both modes, as the mode is known only later."""
    return specific([w for w, (_, df) in idf.items() if df], idf, unique)


def prompt_idf(conn, prompt: str) -> tuple[dict[str, tuple[float, int]], float]:
    """(idf of the prompt's content words, the idf of a word only one note has)."""
    import math

    from ..search import query as Q

    n_notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0] or 1
    q = Q.parse_question(prompt, Q.held_kinds(conn))
    idf = R.idf_weights(conn, q["content"], n_notes, q["words"])
    return idf, math.log((n_notes - 1 + 0.5) / (1 + 0.5) + 1)  # BM25's idf of a word with df 1


def recall(cfg, conn, prompt: str, exclude: set[str], max_items: int, cwd: str | None = None,
           mode: str | None = None, project: str | None = None, notices: list[str] | None = None) -> list[dict]:
    """The confident items of the product's retrieval for `prompt`, minus `exclude` and journal notes,
    each with its `tier`: "line" (ITEM_RULE) or "pointer" (POINTER_RULE). `notices` collects query's
    one-line notice (semantic search configured but unavailable: lexical)."""
    from ..search import query as Q
    from . import prompt_cues

    if max_items <= 0 or not prompt.strip():
        return []
    idf, unique = prompt_idf(conn, prompt)
    if not worth_retrieving(idf, unique):
        return []  # no note can share enough of the prompt's words: no retrieval needed ("run the tests")
    # `limit` bounds query's rendering (it packs its answer item by item): the note the retrievers
    # agree on is among the first few, whatever the brief already showed.
    res = Q.query(cfg, conn, prompt, limit=max_items + QUERY_ROOM, cwd=cwd,
                  project=project, budget=100_000, semantic=mode != "lexical", abstention=ABSTAIN_PROMPT,
                  idf=idf)  # the same words' idf: query need not count them again
    if res.get("notice") and notices is not None:
        notices.append(res["notice"])
    if not res["items"]:
        return []
    ev = res.get("evidence") or {}
    semantic_on = bool(ev.get("semantic"))
    out = []
    for it in res["items"]:
        if it["path"] in exclude or it.get("type") == "journal":
            continue
        if (agreed(it, res["items"], semantic_on, ev) and specific(it.get("matched") or (), idf, unique, semantic_on)
                and (not semantic_on or described(cfg, prompt, it))):
            out.append({**it, "tier": "line"})
        elif not semantic_on and pointed(it, res["items"], ev, idf, unique,
                                         lambda: prompt_cues.belongs(conn, it["path"], project)):
            out.append({**it, "tier": "pointer"})
        if len(out) >= max_items:
            break
    return out


def head(prompt: str, limit: int = RECALL_CHARS) -> str:
    """The first `limit` characters of `prompt`, ending at a word's end when one is in the second half."""
    if len(prompt) <= limit:
        return prompt
    cut = prompt[:limit]
    if not prompt[limit].isspace() and any(c.isspace() for c in cut[limit // 2:]):
        cut = cut[:max(i for i, c in enumerate(cut) if c.isspace())]
    return cut


def _one_line(s, limit: int) -> str:
    """Vault text escaped (fence.escape_vault_text) and cut to `limit` at a word's end."""
    from ..core.fence import escape_vault_text

    s = escape_vault_text(s)
    if len(s) <= limit:
        return s
    cut = s[: limit - 1]
    if " " in cut[limit // 2:]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:") + "…"


def named(conn, prompt: str, exclude: set[str], max_items: int, repo: str | None,
          project: str | None) -> tuple[list[dict], bool]:
    """(the notes citing or quoting a file, symbol or message the prompt names (prompt_cues.cited),
    minus `exclude`, strongest first, each with its `tier`: "line" for a strong cue, else "pointer";
    whether a strong cue named a note, the session's included: then the prompt is about that note)."""
    from . import prompt_cues

    cited = prompt_cues.cited(conn, prompt, repo, project)
    out = [{"path": f["path"], "tier": "line" if f["strong"] else "pointer"} for f in cited if f["path"] not in exclude]
    return out[:max_items], any(f["strong"] for f in cited)


def merged(named_items: list[dict], topic: list[dict], max_items: int) -> list[dict]:
    """What the prompt names, then its topic's items; a note in both keeps the better tier."""
    out = {i["path"]: dict(i) for i in named_items}
    for it in topic:
        if it["path"] in out:
            if it.get("tier") == "line":
                out[it["path"]]["tier"] = "line"
        else:
            out[it["path"]] = it
    return list(out.values())[:max_items]


def describe(conn, cfg, items: list[dict], repo: str | None) -> list[dict]:
    """Each item with what its line shows: the note's type, title, summary and dates (`meta`) and,
    when the prompt's repository is known, the state of the code it cites there (`state`)."""
    if not items:
        return []
    from . import note_line

    meta = note_line.meta(conn, [i["path"] for i in items])
    states: dict[str, str] = {}
    if repo and items:
        from . import prompt_cues

        try:
            states = prompt_cues.code_states(conn, cfg.cache_str, repo, [i["path"] for i in items])
        except Exception:  # noqa: BLE001 - the code's state is a flag on the line, never a reason to fail
            states = {}
    out = []
    for it in items:
        m = meta.get(it["path"])
        if m is None or m["private"]:
            continue
        out.append({**it, "meta": m, "state": states.get(it["path"])})
    return out


def _capture_line(kind: str, contradicted: dict | None) -> str:
    """The capture hint, outside the fence: the plugin's own words only (the note a correction may
    contradict is named inside the fence, by compose). Short: every prompt the detector flags gets it."""
    if kind == "correction":
        return ("memory-plugin: this prompt corrects something; the memory-write skill can record it "
                "(`memory-plugin remember`)" + (" and supersede the note above." if contradicted else "."))
    return ("memory-plugin: this prompt states something to keep; the memory-write skill records it "
            "(`memory-plugin remember`).")


def compose(items: list[dict], capture_line: str | None, limit: int = MAX_CONTEXT_CHARS,
            contradicted: dict | None = None) -> str:
    """The context for one prompt: recalled items (and the note a correction may contradict) fenced as
    reference data, then the capture line. An item is a line or a pointer after its `tier`
    (note_line.line); one without `meta` (a caller's own) shows its title, path and summary. Every piece
    of vault text goes through fence.escape_vault_text and stays inside the fence. Items that do not
    fit in `limit` are dropped whole (the capture line and the contradicted note always fit)."""
    tail = ("\n" + capture_line) if capture_line else ""
    if capture_line and len(capture_line) > limit:
        tail = "\n" + _one_line(capture_line, limit)
    lines: list[str] = []
    if contradicted:
        title = (contradicted.get("meta") or {}).get("title") or contradicted.get("title")
        lines.append(f"- [[{_one_line(title, 90)}]]: the note this prompt may contradict")
    head = "Vault notes on this prompt (memory-plugin reference data):"
    for it in items:
        if contradicted and it.get("path") == contradicted.get("path"):
            continue
        meta = it.get("meta")
        if meta is None:
            line = (f"- {_one_line(it.get('title'), 70)} ({_one_line(it['path'], 90)}): "
                    f"{_one_line(it.get('summary') or '', SUMMARY_CHARS)}")
        else:
            from . import note_line

            line = note_line.line(meta, it.get("state"), summary=it.get("tier") != "pointer")
        trial = "\n".join([FENCE_OPEN, head, *lines, line, FENCE_CLOSE]) + tail
        if len(trial) > limit:
            break
        lines.append(line)
    body = "\n".join([FENCE_OPEN, head, *lines, FENCE_CLOSE]) if lines else ""
    return (body + tail).strip()


def respond(cfg, prompt: str, *, session_id=None, cwd: str | None = None, record: bool = True,
            mode: str | None = None, recall_on: bool | None = None) -> dict:
    """What the hook adds for `prompt`: {"items", "capture", "text", "notice"}; also used by `eval
    --prompts` (which asks with `recall_on=True` whatever the config says). `notice`: why recall ran
    lexically although semantic search is configured ("" when it did not)."""
    from . import capture

    prompt = prompt[:MAX_PROMPT_CHARS]
    cap = capture.kind(prompt) if cfg.prompt_capture else None
    items: list[dict] = []
    found: list[dict] = []
    st = None
    notices: list[str] = []
    cache_dir = cfg.cache_str
    on = cfg.prompt_recall if recall_on is None else recall_on
    want = cfg.prompt_recall_max_items if on else 0
    if (want > 0 or cap == "correction") and os.path.exists(cfg.cache_file("index.sqlite")):
        from ..index import code
        from ..index import store as index

        st = load_state(cache_dir, session_id, cwd) if record else fresh_state(cache_dir, cwd)
        have = set(st["shown"]) | set(st["injected"])
        repo = code.repo_root(cwd) if cwd else None
        repo = os.path.realpath(repo) if repo else None
        conn = index.open_index(cfg)
        try:
            project = project_of(cache_dir, st, cwd)
            # a correction looks for the note it contradicts even when recall is switched off
            found, strong = named(conn, prompt, have, max(want, 1), repo, project)
            if not strong:  # only weak cues, or none: the topic may still single a note out
                found = merged(found, recall(cfg, conn, head(prompt), have, max(want, 1), cwd=cwd, mode=mode,
                                             project=project, notices=notices), max(want, 1))
            found = describe(conn, cfg, found, repo)
        finally:
            conn.close()
        items = found[:want]
    contradicted = None
    if cap == "correction" and st is not None:  # only a note the prompt names strongly, or its topic's line
        contradicted = next((i for i in found if i.get("tier") == "line"), None)
    text = compose(items, _capture_line(cap, contradicted) if cap else None, contradicted=contradicted)
    if record and st is not None and (items or st.get("new") or st.get("changed")):
        st["injected"] += [i["path"] for i in items if i["path"] not in st["injected"]]
        changed = {i["path"] for i in items if i.get("state") == "changed"}
        if changed:  # the code hook need not bring it back for the flag
            st["flagged"] = sorted(set(st.get("flagged") or []) | changed)
        save_state(cache_dir, session_id, st)
    return {"items": items, "capture": cap, "text": text, "notice": "; ".join(notices)}
