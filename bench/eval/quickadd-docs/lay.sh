#!/usr/bin/env bash
# Lay the quickadd-docs vault from a bare git snapshot (the `fetch` tool's mirror of github:chhoumann/quickadd)
# into OUT/vault, with the licence (MIT, LICENSE) at OUT/LICENSE.
#   usage: lay.sh GIT_DIR OUT      e.g. lay.sh ~/mirrors/chhoumann+quickadd.git $MEMORY_PLUGIN_EVALDATA/quickadd-docs
# Only docs/src/content/docs/docs/ at the commit below, with that prefix stripped; .md files verbatim, anything
# else (19 images) written empty, as is a blob the snapshot lacks.
set -euo pipefail
g=$1; out=$2; c=914fcb32b899fc65fcfa149177b05d3acfa7c6da; top="docs/src/content/docs/docs"
mkdir -p "$out/vault"; git --git-dir="$g" show "$c:LICENSE" > "$out/LICENSE"
git --git-dir="$g" -c core.quotepath=off ls-tree -r "$c" -- "$top" | while IFS=$'\t' read -r meta path; do
  sha=$(awk '{print $3}' <<<"$meta"); rel=${path#"$top"/}
  mkdir -p "$out/vault/$(dirname "$rel")"
  if [[ "$rel" == *.md ]]; then git --git-dir="$g" cat-file -p "$sha" > "$out/vault/$rel" 2>/dev/null || : > "$out/vault/$rel"; else : > "$out/vault/$rel"; fi
done
