#!/bin/sh
# Lay the dev vault steve-obsidian: EeToSe/steve-obsidian (a personal, property-first Obsidian vault
# built on kepano's vault template; the repository's LICENSE is the template's MIT licence,
# "Copyright (c) 2023 Steph Ango", and says nothing else about the owner's own notes, so they are only
# fetched here, not redistributed) at commit 5b4ea88a240fe6f013a9d2b8e8d537bc254157ff: every markdown
# file (129, incl. Templates/), the 18 Obsidian Bases (*.base, which the category notes embed) and the
# top-level .obsidian/*.json settings (no plugins, themes, snippets or attachments), into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=5b4ea88a240fe6f013a9d2b8e8d537bc254157ff
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/EeToSe/steve-obsidian "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" | tr '\0' '\n' |
  grep -E '(\.md$|\.base$|^\.obsidian/[^/]*\.json$)' | while IFS= read -r p; do
    mkdir -p "$dir/$(dirname "$p")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$p"
  done
rm -rf "$tmp"
