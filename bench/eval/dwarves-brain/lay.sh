#!/usr/bin/env bash
# Lay the dwarves-brain vault from a bare git snapshot (the `fetch` tool's mirror of github:dwarvesf/brain)
# into OUT/vault, with the licence (CC0 1.0, LICENSE) at OUT/LICENSE.
#   usage: lay.sh GIT_DIR OUT      e.g. lay.sh ~/mirrors/dwarvesf+brain.git $MEMORY_PLUGIN_EVALDATA/dwarves-brain
# The whole repository at the commit below minus .obsidian/, .github/, .devcontainer/, .husky/, _scripts/,
# _templates/ and the repository's own files (README.md, LICENSE, package.json, publish.js, yarn.lock, dotfiles);
# the `challenge` submodule is no blob and is left out. .md files verbatim, anything else (images) written empty,
# as is a blob the snapshot lacks.
set -euo pipefail
g=$1; out=$2; c=530e3502fa3eda67f50c88bc83752422b6d13f82
mkdir -p "$out/vault"; git --git-dir="$g" show "$c:LICENSE" > "$out/LICENSE"
git --git-dir="$g" -c core.quotepath=off ls-tree -r "$c" | while IFS=$'\t' read -r meta path; do
  read -r _ kind sha <<<"$meta"; [[ "$kind" == blob ]] || continue
  case "$path" in .obsidian/*|*/.obsidian/*|.github/*|.devcontainer/*|.husky/*|_scripts/*|_templates/*) continue;;
    README.md|LICENSE|package.json|publish.js|yarn.lock|.gitignore|.gitmodules|.prettierignore|.prettierrc) continue;; esac
  mkdir -p "$out/vault/$(dirname "$path")"
  if [[ "$path" == *.md ]]; then git --git-dir="$g" cat-file -p "$sha" > "$out/vault/$path" 2>/dev/null || : > "$out/vault/$path"; else : > "$out/vault/$path"; fi
done
