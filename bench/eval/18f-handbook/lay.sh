#!/usr/bin/env bash
# Lay the 18f-handbook vault from a bare git snapshot (the `fetch` tool's mirror of github:18F/handbook)
# into OUT/vault, with the licence (US public domain + CC0 1.0, LICENSE.md) at OUT/LICENSE.
#   usage: lay.sh GIT_DIR OUT      e.g. lay.sh ~/mirrors/18F+handbook.git $MEMORY_PLUGIN_EVALDATA/18f-handbook
# Only pages/ at the commit below, with the "pages/" prefix stripped, minus the four site templates
# (404.html, index.html, redirect.html, sitemap.xml.njk); .md files verbatim, anything else written empty.
set -euo pipefail
g=$1; out=$2; c=1e4955634d0369f17e5bbc0ebbf8f62e2a3dfe4b
mkdir -p "$out/vault"; git --git-dir="$g" show "$c:LICENSE.md" > "$out/LICENSE"
git --git-dir="$g" -c core.quotepath=off ls-tree -r "$c" -- pages | while IFS=$'\t' read -r meta path; do
  sha=$(awk '{print $3}' <<<"$meta"); rel=${path#pages/}
  case "$rel" in 404.html|index.html|redirect.html|sitemap.xml.njk) continue;; esac
  mkdir -p "$out/vault/$(dirname "$rel")"
  if [[ "$rel" == *.md ]]; then git --git-dir="$g" cat-file -p "$sha" > "$out/vault/$rel" 2>/dev/null || : > "$out/vault/$rel"; else : > "$out/vault/$rel"; fi
done
