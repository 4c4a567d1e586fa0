#!/usr/bin/env bash
# Lay the vok-knowledge vault from a bare git snapshot (the `fetch` tool's mirror of
# github:blacklightpy/vaultofknowledge) into OUT/vault, with the licence (CC0 1.0) at OUT/LICENSE.
#   usage: lay.sh GIT_DIR OUT      e.g. lay.sh ~/mirrors/blacklightpy+vaultofknowledge.git $MEMORY_PLUGIN_EVALDATA/vok-knowledge
# Only the folder "04. Organized Knowledge - Old Format/" at the commit below, with that folder prefix
# stripped; .md files verbatim (all 778 files in it are markdown; anything else would be written empty).
set -euo pipefail
g=$1; out=$2; c=cb06024808ed95383a804c4ccd29741af42f7989; top="04. Organized Knowledge - Old Format"
mkdir -p "$out/vault"; git --git-dir="$g" show "$c:LICENSE.md" > "$out/LICENSE"
git --git-dir="$g" -c core.quotepath=off ls-tree -r "$c" -- "$top" | while IFS=$'\t' read -r meta path; do
  sha=$(awk '{print $3}' <<<"$meta"); rel=${path#"$top"/}
  mkdir -p "$out/vault/$(dirname "$rel")"
  if [[ "$rel" == *.md ]]; then git --git-dir="$g" cat-file -p "$sha" > "$out/vault/$rel" 2>/dev/null || : > "$out/vault/$rel"; else : > "$out/vault/$rel"; fi
done
