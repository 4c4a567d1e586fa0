#!/bin/sh
# Lay the dev vault faculorca-notegarden: faculorca/thenotegarden (a personal Obsidian vault, English
# and Spanish, on writing, newsletters, ghostwriting and note-making, built on kepano's vault template
# and kept property-first; the repository's LICENSE is the template's MIT licence, "Copyright (c) 2023
# Steph Ango", and says nothing else about the owner's own notes, so they are only fetched here, not
# redistributed) at commit 22f311f9b6bfe941dd21733a174b42abcf339539: every markdown file (incl.
# Templates/), the Obsidian Bases (*.base, which category and topic notes embed) and the top-level
# .obsidian/*.json settings (no plugins, themes, snippets, canvases or attachments), into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=22f311f9b6bfe941dd21733a174b42abcf339539
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/faculorca/thenotegarden "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" -c core.quotePath=false ls-tree -r -z --name-only "$commit" | tr '\0' '\n' |
  grep -E '(\.md$|\.base$|^\.obsidian/[^/]*\.json$)' | while IFS= read -r p; do
    mkdir -p "$dir/$(dirname "$p")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$p"
  done
rm -rf "$tmp"
