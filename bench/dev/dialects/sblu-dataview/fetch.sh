#!/bin/sh
# Lay the dev vault sblu-dataview: s-blu/obsidian_dataview_example_vault (the community "Obsidian Example
# Vault for Dataview Queries": example data notes with front matter and Dataview `key:: value` fields, and
# how-to pages of queries over them; the repository states no licence, so the notes are only fetched here,
# not redistributed) at commit dfc8022fcc9923a0e8755362a0b0943b34203970: every markdown file (258, incl.
# 00 Meta/, whose templates and maintenance notes are part of the vault) and the top-level .obsidian/*.json
# settings (no plugin code, snippets, attachments, .publish/ mkdocs site or .github/), into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=dfc8022fcc9923a0e8755362a0b0943b34203970
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/s-blu/obsidian_dataview_example_vault "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" | tr '\0' '\n' |
  grep -E '(\.md$|^\.obsidian/[^/]*\.json$)' | grep -vE '^\.(publish|github)/' | while IFS= read -r p; do
    mkdir -p "$dir/$(dirname "$p")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$p"
  done
rm -rf "$tmp"
