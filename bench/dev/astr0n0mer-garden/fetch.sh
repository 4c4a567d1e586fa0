#!/bin/sh
# Materialise the dev vault: astr0n0mer/digital-garden (Imran Khan's Logseq digital garden, MIT, Copyright (c) 2023
# Imran Khan) at commit 6acc4c18f7b07b6e4f45561d23956f790d53844f (2024-06-16; the graph has grown past 600 notes
# since), folders pages/ and journals/ only, non-markdown files removed: 573 markdown notes (395 pages, 178 daily
# journals named YYYY_MM_DD.md), into DIR. LICENSE goes to DIR/../LICENSE.
# Or: `python3 bench/lay_evaldata.py --only astr0n0mer-garden` from a local git mirror of the repository (`--mirror`) lays the same files at $MEMORY_PLUGIN_EVALDATA/astr0n0mer-garden/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=6acc4c18f7b07b6e4f45561d23956f790d53844f
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/astr0n0mer/digital-garden "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" pages journals | tar -x -C "$dir"
find "$dir" -type f ! -name '*.md' -delete
git -C "$tmp/r" show "$commit:LICENSE" > "$dir/../LICENSE"
rm -rf "$tmp"
