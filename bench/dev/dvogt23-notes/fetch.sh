#!/bin/sh
# Materialise the dev vault: dvogt23/notes (personal notes, MIT as stated under "License" in the repository's
# README.md; there is no LICENSE file) at commit 7441a46323c50b194434f35759d1672d875d569a, folder Notes/ laid as
# DIR/ (103 markdown notes); non-markdown files written empty. README.md is copied beside the vault as
# DIR/../LICENSE.
# Or: `python3 bench/lay_evaldata.py --only dvogt23-notes` from a local git mirror of the repository (`--mirror`) lays the same files at $MEMORY_PLUGIN_EVALDATA/dvogt23-notes/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=7441a46323c50b194434f35759d1672d875d569a
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/dvogt23/notes "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" Notes | tar -x -C "$tmp"
find "$tmp/Notes" -type f ! -name '*.md' -exec sh -c ': > "$1"' _ {} \;
cp -R "$tmp/Notes/." "$dir/"
git -C "$tmp/r" show "$commit:README.md" > "$dir/../LICENSE"
rm -rf "$tmp"
