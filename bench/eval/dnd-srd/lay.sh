#!/usr/bin/env bash
# Lay the dnd-srd vault from a bare git snapshot (the `fetch` tool's mirror of github:OldManUmby/DND.SRD.Wiki)
# into OUT/vault, with the licence statement at OUT/LICENSE-Legal.md (Legal.md also stays in the vault).
#   usage: lay.sh GIT_DIR OUT      e.g. lay.sh ~/mirrors/OldManUmby+DND.SRD.Wiki.git $MEMORY_PLUGIN_EVALDATA/dnd-srd
# Whole repository at the commit below minus .github/, .gitignore, README.md, Changelog.md and the three
# "(Alt)" folders; .md files verbatim, the logo image zero bytes.
set -euo pipefail
g=$1; out=$2; c=f8b2c5bd92139194fd0ad6201943772eac7f4470
mkdir -p "$out/vault"; git -C "$g" show "$c:Legal.md" > "$out/LICENSE-Legal.md"
git -C "$g" ls-tree -r "$c" | while IFS=$'\t' read -r meta path; do
  sha=$(awk '{print $3}' <<<"$meta")
  case "$path" in .github/*|.gitignore|README.md|Changelog.md|"Monsters (Alt)"/*|"Spells (Alt)"/*|"Treasure (Alt)"/*) continue;; esac
  mkdir -p "$out/vault/$(dirname "$path")"
  if [[ "$path" == *.md ]]; then git -C "$g" cat-file -p "$sha" > "$out/vault/$path" 2>/dev/null || : > "$out/vault/$path"; else : > "$out/vault/$path"; fi
done
