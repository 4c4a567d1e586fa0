#!/usr/bin/env python3
"""Lay out every public vault the dev and held-out sets use, from git snapshots already on disk
(bare clones in one folder, each named owner+repo: `git clone --bare https://github.com/owner/repo
MIRROR/owner+repo`), at the commits the sets name.

    python3 bench/lay_evaldata.py --mirror MIRROR [--out EVALDATA] [--only NAME ...]

OUT defaults to $MEMORY_PLUGIN_EVALDATA, where the benchmarks and tests look for these vaults.

Each vault goes to OUT/<set>/vault with the repository's licence beside it (OUT/<set>/LICENSE).
`.obsidian/` is left out; non-markdown files are written empty where the set's README says so
(links and embeds to them still resolve), or left out (logseq). A blob a snapshot lacks is written
empty too. The vaults are not committed (bench/eval/README.md).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

# name: (mirror dir, commit, folders, strip the first folder (or a str: that prefix), what to do with non-markdown files)
SETS = {
    "silverbullet": ("silverbulletmd+silverbullet", "754e8525b91fc11fe51f0b4b3e488aba0b027c2b", ["docs"], True, "keep"),
    "logseq": ("logseq+docs", "08f855f24d66e4509b7ea808554c13b4649e6ee1", ["pages", "journals"], False, "drop"),
    "til": ("jbranchaud+til", "453e9ed", [], False, "keep"),
    "mkdocs-material": ("squidfunk+mkdocs-material", "5b36f2ac499a45905e246bc66bbee2858ef6556f", ["docs"], True, "empty"),
    "tasks-docs": ("obsidian-tasks-group+obsidian-tasks", "cc0fce3c1326d18e2bdb7020eaf4c52e885da569", ["docs"], True, "empty"),
    "foam-docs": ("foambubble+foam", "9f56a23523ff9eafc9cd770c731f9ee2dafb385f", ["docs"], True, "empty"),
    "kepano-vault": ("kepano+kepano-obsidian", "473697347a0eaac790a6596229c741b3915f3b77", [], False, "empty"),
    "interlock-kb": ("interlock-network+knowledgebase-public", "de783667e9349637832a51de8d142766805f823e", [], False, "keep"),
    "quartz-docs": ("LesleyLai+digital-garden", "6581960271f74bd75e29b66217fe0e23999577d2", ["docs"], True, "empty"),
    # dev sets for abstention
    "dataview-docs": ("blacksmithgu+obsidian-dataview", "5ad0994", ["docs/docs"], True, "empty"),
    "mdbook-guide": ("rust-lang+mdBook", "641d06ab", ["guide/src"], True, "empty"),
    # blind (report) sets
    "sourcegraph-handbook": ("sourcegraph+handbook", "5752928b213a3ddbc7cee4459524f404a5b96fb4", ["content"], True, "empty"),
    "dnd-srd": ("OldManUmby+DND.SRD.Wiki", "f8b2c5bd92139194fd0ad6201943772eac7f4470", [], False, "empty"),
    # blind (report) sets
    "vok-knowledge": ("blacklightpy+vaultofknowledge", "cb06024808ed95383a804c4ccd29741af42f7989",
                      ["04. Organized Knowledge - Old Format"], True, "empty"),
    "18f-handbook": ("18F+handbook", "1e4955634d0369f17e5bbc0ebbf8f62e2a3dfe4b", ["pages"], True, "empty"),
    # blind (report) sets; a str in the strip slot is a prefix to remove
    "quickadd-docs": ("chhoumann+quickadd", "914fcb32b899fc65fcfa149177b05d3acfa7c6da",
                      ["docs/src/content/docs/docs"], "docs/src/content/docs/docs/", "empty"),
    "dwarves-brain": ("dwarvesf+brain", "530e3502fa3eda67f50c88bc83752422b6d13f82", [], False, "empty"),
    # dev sets: small personal vaults
    "dvogt23-notes": ("dvogt23+notes", "7441a46323c50b194434f35759d1672d875d569a", ["Notes"], True, "empty"),
    "ajhalili-garden": ("ajhalili2006+digital-garden", "cd4b4c5ad095dddef7b3355a9cba729acc1464f3", [], False, "empty"),
    # dev sets: personal Logseq graphs with many date-titled daily notes (journals/)
    "arkam-kb": ("ArkamFahry+KnowledgeBase", "d03769c895fc5a0311e41cbf23926a0a265fd871", ["pages", "journals"], False,
                 "drop"),
    "astr0n0mer-garden": ("astr0n0mer+digital-garden", "6acc4c18f7b07b6e4f45561d23956f790d53844f", ["pages", "journals"],
                          False, "drop"),
}
DROP = {"til": ("README.md", "CONTRIBUTING.md"), "interlock-kb": ("CODE_OF_CONDUCT.md", "LICENSE.md", ".gitignore"),
        "dnd-srd": ("README.md", "Changelog.md", ".gitignore"),
        "18f-handbook": ("404.html", "index.html", "redirect.html", "sitemap.xml.njk"),
        "dwarves-brain": ("README.md", "LICENSE", "package.json", "publish.js", "yarn.lock", ".gitignore", ".gitmodules",
                          ".prettierignore", ".prettierrc"),
        "ajhalili-garden": (".gitattributes", ".gitignore", ".gitpod.yml", ".markdownlint.yaml", ".wakatime-project",
                            "AUHTORS", "CONTRIBUTORS", "LICENSE")}  # repository files that are no notes of the vault (18f: site templates)
# folders left out: the dnd-srd "(Alt)" folders repeat its per-entity notes as one page per letter
DROP_FOLDERS = {"dnd-srd": (".github/", "Monsters (Alt)/", "Spells (Alt)/", "Treasure (Alt)/"),
                "dwarves-brain": (".github/", ".devcontainer/", ".husky/", "_scripts/", "_templates/"),
                "ajhalili-garden": (".vscode/", "scripts/")}
# where the licence is when it is in no LICENSE file (SRD 5.1, CC-BY-4.0, as Legal.md states)
# (dvogt23-notes: MIT, stated under "License" in the repository's README.md, which has no LICENSE file;
# ajhalili-garden: the CC-BY-SA-4.0 legal code in LICENSE, not the one-line LICENSE.md note)
LICENCE_FILES = {"dnd-srd": ("Legal.md",), "dvogt23-notes": ("README.md",), "ajhalili-garden": ("LICENSE",)}


def git_dir(mirror: Path) -> Path:
    return mirror / "repo" / ".git" if (mirror / "repo" / ".git").is_dir() else mirror / "repo"


def lay(name: str, mirrors: Path, out: Path) -> str:
    mirror, commit, folders, strip, other = SETS[name]
    git = ["git", f"--git-dir={git_dir(mirrors / mirror)}"]
    dest = out / name
    tmp = out / f".{name}.part"
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "vault").mkdir(parents=True)
    listing = subprocess.run(git + ["ls-tree", "-r", "-z", commit, "--", *folders], capture_output=True, check=True)
    files = missing = 0
    for row in listing.stdout.split(b"\0"):
        if not row:
            continue
        meta, path = row.split(b"\t", 1)
        mode, kind, sha = meta.split()
        rel = path.decode()
        if kind != b"blob" or "/.obsidian/" in f"/{rel}":
            continue
        if isinstance(strip, str):
            rel = rel.removeprefix(strip)
        elif strip:
            rel = rel.split("/", 1)[1]
        if rel in DROP.get(name, ()) or rel.startswith(DROP_FOLDERS.get(name, ())):
            continue
        markdown = rel.endswith(".md")
        if not markdown and other == "drop":
            continue
        data = b""
        if (markdown or other == "keep") and mode != b"120000":
            blob = subprocess.run(git + ["cat-file", "blob", sha.decode()], capture_output=True)
            data, missing = (blob.stdout, missing) if blob.returncode == 0 else (b"", missing + 1)
        target = tmp / "vault" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files += 1
    for lic in LICENCE_FILES.get(name, ("LICENSE.md", "LICENSE", "LICENSE.txt")):
        r = subprocess.run(git + ["show", f"{commit}:{lic}"], capture_output=True)
        if r.returncode == 0:
            (tmp / "LICENSE").write_bytes(r.stdout)
            break
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)
    notes = sum(1 for _ in (dest / "vault").rglob("*.md"))
    return f"{name}: {notes} notes, {files} files{f', {missing} blobs missing (written empty)' if missing else ''}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", type=Path, required=True, help="the folder of bare clones, each named owner+repo")
    ap.add_argument("--out", type=Path, default=os.environ.get("MEMORY_PLUGIN_EVALDATA"),
                    help="where each vault goes, as OUT/<set>/vault (default: $MEMORY_PLUGIN_EVALDATA)")
    ap.add_argument("--only", nargs="*", choices=sorted(SETS))
    a = ap.parse_args()
    if a.out is None:
        ap.error("give --out or set MEMORY_PLUGIN_EVALDATA")
    a.out.mkdir(parents=True, exist_ok=True)
    for name in a.only or sorted(SETS):
        if not (a.mirror / SETS[name][0]).is_dir():
            print(f"{name}: no snapshot at {a.mirror / SETS[name][0]} (git clone --bare "
                  f"https://github.com/{SETS[name][0].replace('+', '/')} {a.mirror / SETS[name][0]})")
            continue
        print(lay(name, a.mirror, a.out))


if __name__ == "__main__":
    main()
