"""The driver of the build pipeline: scan → parse → index → outputs, and → embed.

Each stage is one module with one job: `scan` finds the vault's files, `notes` parses each note,
`index` stores them in SQLite (and knows nothing of what is derived from it), `outputs` writes
graph.json, GRAPH_REPORT.md, graph.html and the brief, and `semantic` (the optional extra) embeds
the notes whose text changed. `rebuild`, `sync` and the detached worker run the stages through this
module. Outputs and embedding both read only the index; embedding runs last because it is the slow
stage (minutes for a new vault) and nothing else waits for its vectors.
"""
from __future__ import annotations

from typing import Callable

from ..index import store as index
from . import stage as outputs
from ..core.config import Config


def rebuild(cfg: Config, progress: Callable[[int, int], None] | None = None,
            lock_timeout: float = -1, only_if: Callable[[], bool] | None = None) -> dict:
    """A fresh index, then every output written from it."""
    stats = index.rebuild(cfg, progress=progress, lock_timeout=lock_timeout, only_if=only_if)
    if not stats.get("skipped"):
        stats["outputs"] = _refresh(cfg, force=True)
    return stats


def _refresh(cfg: Config, force: bool = False):
    """outputs.refresh, with a full cache disk raised as the one CacheFull error."""
    return index._or_full(cfg, lambda: outputs.refresh(cfg, force=force))


def embed(cfg: Config, progress: Callable[[int, int], None] | None = None,
          lock_timeout: float = 0) -> tuple[dict | None, Exception | None]:
    """The embed stage: embed what the index holds and has not embedded with this model yet.
    -> (stats, or None when search is lexical; the error to report once the index's own result is
    out: a configured model that cannot load). Another embedder at work: it finishes the rest."""
    from ..semantic import vectors as semantic  # numpy and the model load only inside embed_pending

    try:
        semantic.require(cfg)
    except semantic.SemanticUnavailable as e:
        return None, (e if e.expected else None)
    try:
        return semantic.embed_pending(cfg, progress=progress, lock_timeout=lock_timeout), None
    except semantic.SemanticUnavailable as e:
        return None, e


def sync(cfg: Config, lock_timeout: float = -1) -> dict:
    """Re-read what changed, then rewrite the outputs whose content changed."""
    stats = index.sync(cfg, lock_timeout=lock_timeout)
    if stats.get("rebuilt"):
        stats["outputs"] = _refresh(cfg, force=True)
    elif stats["changed"] or outputs.stale(cfg) or not outputs.all_exist(cfg):
        stats["outputs"] = _refresh(cfg)
    return stats
