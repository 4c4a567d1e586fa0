#!/bin/sh
# Lay the dev vault hugwi-vault: hugwi/obsidian-vault (a personal, property-first Obsidian vault on
# kepano's template, English and Swedish: work as a data/AI engineer and consultant, agentic-engineering
# clippings, daily notes; the repository states no licence, so the notes are only fetched here, not
# redistributed) at commit 1e28616ddf7706d6528e483cfa60605b75ab4ffb: every markdown file and every Obsidian
# Base (*.base) except those under Attachments/ (scratch "Untitled N.base" files beside images and
# recordings), plus the top-level .obsidian/*.json settings (no plugin code, themes, snippets or
# attachments), into DIR: 1,656 markdown files and 10 Bases. Left out: CLAUDE.md (instructions to a
# coding agent, not a note: no properties, no category, addressed to an agent), the `memory` symlink (it
# points outside the repository, to the owner's ~/.agents/memory), the hidden .cluster_work/ folder (a
# tagging script's batches; Obsidian does not show dot-folders), and the one clipping whose file name is
# longer than 255 bytes (it cannot be written on most Linux file systems). File names may hold quotes and
# a newline, so paths travel NUL-separated.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=1e28616ddf7706d6528e483cfa60605b75ab4ffb
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/hugwi/obsidian-vault "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" | tr '\n\000' '\001\n' |
  grep -E '(\.md$|\.base$|^\.obsidian/[^/]*\.json$)' |
  grep -vE '^(Attachments/|\.cluster_work/|CLAUDE\.md$)' |
  LC_ALL=C awk -F/ 'length($NF) <= 255' | tr '\n\001' '\000\n' |
  xargs -0 sh -c 'r=$1; c=$2; d=$3; shift 3
    for p; do mkdir -p "$d/$(dirname "$p")"; git -C "$r" cat-file -p "$c:$p" > "$d/$p"; done' sh "$tmp/r" "$commit" "$dir"
rm -rf "$tmp"
