#!/bin/sh
# Lay the dev vault jimbrig-vault: jimbrig/JimsObsidianVault (an Obsidian PARA vault; the repository
# states no licence, so the notes are not redistributed here, only fetched) at commit
# 709c7257f8e818ff99b840d4207034d11c47657c: every markdown file (2,456, incl. .github/ and .src/ readmes)
# and the top-level .obsidian/*.json settings (no plugins, no attachments), into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=709c7257f8e818ff99b840d4207034d11c47657c
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/jimbrig/JimsObsidianVault "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" | tr '\0' '\n' |
  grep -E '(\.md$|^\.obsidian/[^/]*\.json$)' | while IFS= read -r p; do
    mkdir -p "$dir/$(dirname "$p")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$p"
  done
rm -rf "$tmp"
