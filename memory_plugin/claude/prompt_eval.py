"""`eval --prompts`: what the UserPromptSubmit hook adds to a set of prompts, and whether it should.

Each prompt runs as the first prompt of a fresh session (the brief's notes are excluded, as in the hook).
- injected: share of prompts that get any item;
- precision: injected items that are among the prompt's expected notes / all injected items;
- answered: answerable prompts that get an expected note (injected, or already in the brief);
- ordinary / negative injected: share of those prompts with no expected note that get any item
  (they should get none; an ordinary prompt that names a helpful note counts for precision only);
- capture precision / recall: over prompts marked `capture: true`;
- tokens/prompt: characters added / 4, averaged over all prompts.
"""
from __future__ import annotations

from pathlib import Path

from ..core.errors import MemoryPluginError

PROMPT_KINDS = ("answerable", "negative", "ordinary", "capture", "near-miss")
CHARS_PER_TOKEN = 4


class PromptEvalError(MemoryPluginError):
    pass


def load(path: str | Path) -> tuple[list[dict], Path | None]:
    """-> (prompts, the vault the file names, resolved against the repository or the file's folder)."""
    from ..search.evaluate import read_yaml

    p = Path(path)
    data = read_yaml(p, "prompts", "a prompts YAML file", PromptEvalError)
    ps = data.get("prompts") if isinstance(data, dict) else None
    if not isinstance(ps, list) or not ps:
        raise PromptEvalError(f"{p}: needs a non-empty `prompts:` list")
    out = []
    for i, q in enumerate(ps, 1):
        if not isinstance(q, dict) or not isinstance(q.get("prompt"), str) or not q["prompt"].strip():
            raise PromptEvalError(f"{p}: prompt {i} needs a `prompt:` text")
        kind = q.get("kind")
        if kind not in PROMPT_KINDS:
            raise PromptEvalError(f"{p}: prompt {i} has kind {kind!r}: use one of {', '.join(PROMPT_KINDS)}")
        exp = q.get("expected") or []
        if not isinstance(exp, list) or not all(isinstance(e, str) for e in exp):
            raise PromptEvalError(f"{p}: prompt {i} `expected:` must be a list of note paths")
        out.append({"id": str(q.get("id") or f"p{i}"), "kind": kind, "prompt": q["prompt"], "expected": exp,
                    "capture": bool(q.get("capture", kind == "capture")), "correction": bool(q.get("correction"))})
    vault = data.get("vault")
    if not isinstance(vault, str):
        return out, None
    for base in (p.parent, *p.resolve().parents):  # "fixtures/vault" is relative to the repository
        cand = (base / vault)
        if cand.is_dir():
            return out, cand.resolve()
    return out, (p.parent / vault).resolve()


def modes(cfg) -> list[str | None]:
    """The modes to compare: lexical, and semantic when the extra and a model are there."""
    try:
        from ..semantic import vectors as semantic

        on = semantic.mode(cfg)[0] == "semantic"
    except ImportError:
        on = False
    return ["lexical", "semantic"] if on else ["lexical"]


def run(cfg, prompts: list[dict], mode: str | None = None) -> dict:
    from . import prompt_hook as P

    brief = set(P._brief_paths(str(cfg.cache_dir)))
    rows = []
    for q in prompts:
        out = P.respond(cfg, q["prompt"], record=False, mode=mode, recall_on=True)
        got = [i["path"] for i in out["items"]]
        exp = set(q["expected"])
        rows.append({"id": q["id"], "kind": q["kind"], "injected": got, "want": bool(exp),
                     "hits": sum(1 for g in got if g in exp),
                     "answered": bool(exp & (set(got) | brief)),
                     "capture_expected": q["capture"], "capture": out["capture"],
                     "chars": len(out["text"])})
    return {"rows": rows, "summary": summarize(rows)}


def _share(n: int, d: int) -> float | None:
    return round(n / d, 3) if d else None


def summarize(rows: list[dict]) -> dict:
    injected = [r for r in rows if r["injected"]]
    items = sum(len(r["injected"]) for r in rows)
    hits = sum(r["hits"] for r in rows)
    answerable = [r for r in rows if r["kind"] == "answerable"]
    flagged = [r for r in rows if r["capture"]]
    want = [r for r in rows if r["capture_expected"]]
    by_kind = {}
    for k in PROMPT_KINDS:
        ks = [r for r in rows if r["kind"] == k and (k == "answerable" or not r["want"])]
        if ks:
            by_kind[k] = {"n": len(ks), "injected": _share(sum(1 for r in ks if r["injected"]), len(ks))}
    return {
        "prompts": len(rows),
        "injected": _share(len(injected), len(rows)),
        "items": items,
        "precision": _share(hits, items),
        "answered": _share(sum(1 for r in answerable if r["answered"]), len(answerable)),
        "answered_by_hook": _share(sum(1 for r in answerable if r["hits"]), len(answerable)),
        "ordinary_injected": by_kind.get("ordinary", {}).get("injected"),
        "negative_injected": by_kind.get("negative", {}).get("injected"),
        "capture_precision": _share(sum(1 for r in flagged if r["capture_expected"]), len(flagged)),
        "capture_recall": _share(sum(1 for r in want if r["capture"]), len(want)),
        "tokens_per_prompt": round(sum(r["chars"] for r in rows) / CHARS_PER_TOKEN / len(rows), 1) if rows else 0,
        "by_kind": by_kind,
    }


def markdown(summaries: dict[str, dict]) -> str:
    """One column per mode."""
    modes = [m or "default" for m in summaries]
    summaries = {m or "default": v for m, v in summaries.items()}
    keys = [("prompts", "prompts"), ("injected", "prompts with an injection"), ("precision", "precision of injected items"),
            ("answered", "answerable prompts answered (hook or brief)"), ("answered_by_hook", "answerable prompts answered by the hook"),
            ("ordinary_injected", "ordinary prompts with an injection"), ("negative_injected", "negative prompts with an injection"),
            ("capture_precision", "capture precision"), ("capture_recall", "capture recall"),
            ("tokens_per_prompt", "tokens added per prompt")]
    lines = ["| | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for k, label in keys:
        cells = []
        for m in modes:
            v = summaries[m].get(k)
            cells.append("–" if v is None else (f"{v:.2f}" if isinstance(v, float) and k != "tokens_per_prompt" else str(v)))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def misses(rows: list[dict], expected: dict[str, dict]) -> list[str]:
    out = []
    for r in rows:
        q = expected[r["id"]]
        if r["kind"] in ("ordinary", "negative", "near-miss", "capture") and r["injected"] and not r["hits"]:
            out.append(f"{r['id']} ({r['kind']}) injected {', '.join(r['injected'])}: {q['prompt'][:80]!r}")
        elif r["kind"] == "answerable" and not r["answered"]:
            out.append(f"{r['id']} (answerable) missed {q['expected'][:1]}: {q['prompt'][:80]!r}")
        if bool(r["capture"]) != r["capture_expected"]:
            out.append(f"{r['id']} capture {r['capture']!r}, expected {r['capture_expected']}: {q['prompt'][:80]!r}")
    return out
