"""The driver of the build pipeline: scan → parse → index → (embed) → outputs.

Each stage is one module with one job: `notes` finds the vault's files and parses each note,
`index` stores them in SQLite (and knows nothing of what is derived from it), the semantic extra
embeds changed notes, and `outputs` writes graph.json, GRAPH_REPORT.md, graph.html and the brief.
`rebuild`, `sync` and the detached worker run the stages through this module, in this order.
"""
from __future__ import annotations

from typing import Callable

from . import index, outputs
from .config import Config


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


def sync(cfg: Config, lock_timeout: float = -1) -> dict:
    """Re-read what changed, then rewrite the outputs whose content changed."""
    stats = index.sync(cfg, lock_timeout=lock_timeout)
    if stats.get("rebuilt"):
        stats["outputs"] = _refresh(cfg, force=True)
    elif stats["changed"] or outputs.stale(cfg) or not outputs.all_exist(cfg):
        stats["outputs"] = _refresh(cfg)
    return stats
