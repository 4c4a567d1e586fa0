#!/usr/bin/env bash
# Lay the sourcegraph-handbook vault from a bare git snapshot (the `fetch` tool's mirror of
# github:sourcegraph/handbook) into OUT/vault, with the licence at OUT/LICENSE.
#   usage: lay.sh GIT_DIR OUT      e.g. lay.sh ~/mirrors/sourcegraph+handbook.git $MEMORY_PLUGIN_EVALDATA/sourcegraph-handbook
# content/ at the commit below, "content/" stripped; .md files verbatim, every other file zero bytes.
set -euo pipefail
g=$1; out=$2; c=5752928b213a3ddbc7cee4459524f404a5b96fb4
mkdir -p "$out/vault"; git -C "$g" show "$c:LICENSE" > "$out/LICENSE"
git -C "$g" ls-tree -r "$c" content | while IFS=$'\t' read -r meta path; do
  sha=$(awk '{print $3}' <<<"$meta"); rel=${path#content/}; mkdir -p "$out/vault/$(dirname "$rel")"
  if [[ "$rel" == *.md ]]; then git -C "$g" cat-file -p "$sha" > "$out/vault/$rel" 2>/dev/null || : > "$out/vault/$rel"; else : > "$out/vault/$rel"; fi
done
