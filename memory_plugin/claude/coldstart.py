"""The first SessionStart of a vault (no index yet): build the index inline when the vault is small
enough to finish well inside the hook's time, else brief from a bounded read of the vault's
convention and hub notes and leave the full build to a detached worker.

The limits are measured (bench/bench_coldstart.py, results in bench/RESULTS.md): at
`cold_start_max_notes` (3,000 by default) and INLINE_MAX_BYTES the inline build takes about a second
on 2 cores, a tenth of the 10 s timeout `install` registers for the hook.
"""
from __future__ import annotations

import os
import stat
import time

INLINE_MAX_BYTES = 24 * 1024 * 1024  # and their total size (a vault of huge notes takes longer)
SCAN_MAX_ENTRIES = 20000         # directory entries looked at to decide (and to find candidates)
READ_MAX_NOTES = 300             # notes whose head is read for the bounded brief
READ_HEAD_BYTES = 8192
READ_SECONDS = 0.4               # and no more time than this on reading them
HUB_FOLDER_WORDS = ("hub", "hubs", "moc", "mocs", "maps", "map", "index", "home", "projects", "topics", "areas")
CONVENTION_FOLDER_WORDS = ("conventions", "convention", "standards", "guidelines", "rules")


def survey(cfg) -> dict:
    """A bounded look at the vault: {"notes", "bytes", "complete", "small", "candidates"}. `complete`
    is False when the walk stopped at SCAN_MAX_ENTRIES (the counts are then lower bounds); `small`
    says the inline build fits; candidates are the paths worth reading for a brief without an
    index (top-level notes, then notes in hub, project and convention folders or named like hubs)."""
    from ..core.paths import excluder
    is_excluded = excluder(cfg.exclude)  # compiled once for the whole walk

    root = str(cfg.vault)
    skip = os.path.realpath(str(cfg.cache_dir))
    notes = size = seen = 0
    top: list[str] = []
    named: list[str] = []
    complete = True
    stack = [(root, "")]
    while stack and complete:
        d, rel_d = stack.pop()
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            seen += 1
            if seen > SCAN_MAX_ENTRIES:
                complete = False
                break
            rel = f"{rel_d}/{e.name}" if rel_d else e.name
            if e.name.startswith(".") or is_excluded(rel):
                continue
            try:
                if e.is_symlink():
                    continue  # the vault's real-path rule: the real file is counted where it lies
                if e.is_dir(follow_symlinks=False):
                    if os.path.realpath(e.path) != skip:
                        stack.append((e.path, rel))
                elif e.name.lower().endswith(".md") and e.is_file():
                    notes += 1
                    size += e.stat().st_size
                    if not rel_d:
                        top.append(rel)
                    elif _likely(rel, cfg):
                        named.append(rel)
            except OSError:
                continue
    small = complete and notes <= cfg.cold_start_max_notes and size <= INLINE_MAX_BYTES
    return {"notes": notes, "bytes": size, "complete": complete, "small": small, "candidates": top + named}


def _likely(rel: str, cfg) -> bool:
    parts = [p.lower() for p in rel.split("/")]
    folders = parts[:-1]
    if any(any(w in f.replace("-", " ").replace("_", " ").split() or f.endswith(" " + w) or f == w
               for w in HUB_FOLDER_WORDS + CONVENTION_FOLDER_WORDS) for f in folders):
        return True
    if any(rel.startswith(f.strip("/") + "/") for f in cfg.hub_folders if f.strip("/")):
        return True
    from ..vault.notes import _title_rx

    rx = _title_rx(tuple(cfg.hub_title_patterns))
    return bool(rx and rx.match(rel.rsplit("/", 1)[-1][:-3]))


def bounded_data(cfg, candidates: list[str], notes_seen: int) -> dict:
    """brief.json's shape from reading the heads of at most READ_MAX_NOTES candidate notes (and for
    at most READ_SECONDS): their convention and hub notes, no projects, no journal."""
    from ..vault.notes import parse_note
    from ..vault.privacy import head_says_private
    from ..outputs import brief

    t_end = time.monotonic() + READ_SECONDS
    conventions, hubs = [], []
    for rel in candidates[:READ_MAX_NOTES]:
        if time.monotonic() > t_end:
            break
        raw = _read_head(cfg, rel)
        if raw is None:
            continue
        # a frontmatter still open where the read ends is private, as in the index (privacy.py)
        if head_says_private(raw[:READ_HEAD_BYTES], complete=len(raw) <= READ_HEAD_BYTES):
            continue
        try:
            n = parse_note(rel, raw[:READ_HEAD_BYTES], cfg.values)
        except Exception:  # noqa: BLE001 - a note we cannot read is left out of this brief only
            continue
        if n.private or n.skipped:
            continue
        it = {"title": n.display_title, "path": rel, "type": n.type, "status": n.status,
              "summary": brief.summary(n.summary)}
        if n.type == "convention":
            conventions.append(it)
        elif n.type == "hub":
            hubs.append(it)
    conventions.sort(key=lambda c: c["title"].lower())
    return {"vault": str(cfg.vault), "notes": notes_seen, "changed_at": 0, "built_at": 0,
            "conventions": conventions, "hubs": hubs[: cfg.hub_count], "projects": {}, "journal": {}}


def _read_head(cfg, rel: str) -> bytes | None:
    """The first READ_HEAD_BYTES + 1 bytes of a note whose real path is the one in the vault (no
    symlink at the file, no folder on the way that leads out of the vault), or None."""
    root = os.path.realpath(str(cfg.vault))
    full = os.path.join(root, rel)
    if os.path.realpath(full) != os.path.normpath(full):
        return None
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, READ_HEAD_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def build_inline(cfg) -> bool:
    """Build the index and the brief now, leaving graph.json, the report and graph.html to a detached
    sync. False when another process holds the index lock (a build is under way)."""
    from ..outputs import brief
    from ..index import store as index

    def needed() -> bool:  # checked again under the lock: another session may have just built it
        return not os.path.exists(cfg.path("index.sqlite"))

    try:
        stats = index.rebuild(cfg, lock_timeout=0, only_if=needed)  # the index alone: no graph drawn
    except index.Busy:
        return False
    if stats.get("skipped") and brief.load(str(cfg.cache_dir)) is not None:
        return True
    conn = index.open_index(cfg)
    try:
        brief.write(cfg, conn)
    finally:
        conn.close()
    return True
