"""Hostile shapes at scale (issue 14): 100k notes in one folder, a 50 MB note (above max_note_bytes)
in a 10k vault, one note with 100k links, a tag tree 50 levels deep. Rebuild and sync as whole
processes: wall, peak RSS of the largest process, peak PSS of all of them, load average. The behaviour
is tested in tests/test_scale.py; these are the figures.

    .venv/bin/python bench/bench_scale.py [--runs 1] [--write]
"""
from __future__ import annotations

import argparse
import shutil

from common import EXE, LEXICAL, OUT, load_avg, machine, median, publish, timed, timed_tree, vault

DEEP = "/".join(f"level{i}" for i in range(1, 50))


def one_folder(n: int):
    v = OUT / f"scale-one-folder-{n}"
    if not (v / f"Note {n - 1}.md").exists():
        shutil.rmtree(v, ignore_errors=True)
        v.mkdir(parents=True)
        for i in range(n):
            (v / f"Note {i}.md").write_text(
                f"---\ntags: [t{i % 50}]\nsummary: note {i}\n---\n# Note {i}\n\nLinks to [[Note {(i * 7919) % n}]], "
                f"[[Note {(i + 1) % n}]] and [[Missing {i % 997}]].\n", encoding="utf-8")
    return v, f"{n:,} notes in one folder (3 links, a tag and properties each)"


def copy_of(n: int, name: str):
    v = OUT / f"scale-{name}-{n}"
    if not v.exists():
        shutil.copytree(vault(n), v, ignore=shutil.ignore_patterns(".groundtruth"))
    return v


def huge_note():
    v = copy_of(10_000, "huge")
    p = v / "Huge note.md"
    if not p.exists():
        with open(p, "w", encoding="utf-8") as f:
            for _ in range(1000):
                f.write("lorem ipsum [[Note]] " * 2500 + "\n")  # 50 MB
    return v, f"generated 10,000 + one {p.stat().st_size / 1e6:.0f} MB note (max_note_bytes 5 MB: skipped with a warning)"


def many_links():
    v = copy_of(1000, "links")
    p = v / "Everything.md"
    if not p.exists():
        p.write_text("# Everything\n\n" + "\n".join(f"- [[Topic {i}]]" for i in range(100_000)) + "\n", encoding="utf-8")
    return v, "generated 1,000 + one note with 100,000 links"


def deep_tags():
    v = copy_of(1000, "deeptags")
    d = v / "Deep"
    if not d.exists():
        d.mkdir()
        for i in range(1000):
            (d / f"Deep {i}.md").write_text(f"---\ntags: [branch{i % 20}/{DEEP}]\n---\nInline #branch{i % 20}/{DEEP}/leaf{i}\n",
                                            encoding="utf-8")
    return v, "generated 1,000 + 1,000 notes tagged 50 levels deep (20 branches, 1,000 leaves)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--one-folder", type=int, default=100_000)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    lines = ["## Hostile shapes at scale (issue 14)", "", f"Machine: {machine()}", "",
             f"Command: `.venv/bin/python bench/bench_scale.py --runs {a.runs} --one-folder {a.one_folder} --write` "
             f"(whole processes; median of {a.runs} run(s), peak memory the largest; RSS of the largest process "
             "(GNU time) and total PSS of all processes, sampled every 50 ms; load average (1 min) at start and end).", "",
             "| vault | load | rebuild | peak RSS (largest process) | peak PSS (all processes) | sync, nothing changed |",
             "|---|---|---|---|---|---|"]
    for make in (lambda: one_folder(a.one_folder), huge_note, many_links, deep_tags):
        v, label = make()
        cache = OUT / f"cache-{v.name}"
        shutil.rmtree(cache, ignore_errors=True)
        # lexical, as the engine table: with the semantic extra installed, a rebuild would embed the vault
        env = {**LEXICAL, "MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
        start = load_avg()
        rb = [timed_tree([EXE, "rebuild"], env=env) for _ in range(a.runs)]
        sy = timed([EXE, "sync"], env=env)
        lines.append(f"| {label} | {start}–{load_avg()} | {median([w for w, _, _ in rb]):.2f} s | "
                     f"{max(r for _, r, _ in rb):.0f} MB | {max(p for _, _, p in rb):.0f} MB | {sy[0] * 1000:.0f} ms |")
        print(lines[-1], flush=True)
    lines += ["", "Bounds: peak memory ≤ 500 MB at 50k notes and ≤ 800 MB at 100k (issue 14)."]
    publish("scale", lines, a.write)


if __name__ == "__main__":
    main()
