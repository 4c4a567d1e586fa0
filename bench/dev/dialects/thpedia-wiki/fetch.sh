#!/bin/sh
# Lay the dev vault thpedia-wiki: joshuniverse/THPedia (THPedia, formerly H+Pedia: a transhumanism wiki moved
# from MediaWiki into an Obsidian vault published at thpedia.org, with the older Transhumanism Wiki's Digital
# Garden pages merged in; the repository states no licence, so the notes are only fetched here, not
# redistributed) at commit bac2ea741666aaed261d3d674ebde43a67700814: every markdown file (711: Pages/,
# Categories/, Special/Templates/, System/, Contributors/, the root notes, and the stale nested copy THPedia/,
# which sits inside the folder the README says to open as the vault) into DIR. The repository has no
# .obsidian/ settings; attachments, favicon and the .edtz files are left out.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=bac2ea741666aaed261d3d674ebde43a67700814
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/joshuniverse/THPedia "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" | tr '\0' '\n' |
  grep -E '(\.md$|^\.obsidian/[^/]*\.json$)' | while IFS= read -r p; do
    mkdir -p "$dir/$(dirname "$p")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$p"
  done
rm -rf "$tmp"
