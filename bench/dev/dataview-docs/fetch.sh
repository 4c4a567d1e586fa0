#!/bin/sh
# Materialise the dev vault: the Obsidian Dataview plugin docs (blacksmithgu/obsidian-dataview
# docs/docs/, MIT) at commit 5ad0994, folder docs/docs/ laid as DIR/docs/ (24 markdown notes);
# non-markdown files written empty. The repository's LICENSE.txt is copied as DIR/../LICENSE.
# Or: `python3 bench/lay_evaldata.py --only dataview-docs` from a local git mirror (`--mirror`) snapshot lays the same files at $MEMORY_PLUGIN_EVALDATA/dataview-docs/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=5ad0994
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/blacksmithgu/obsidian-dataview "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" docs/docs | tar -x -C "$tmp"
find "$tmp/docs/docs" -type f ! -name '*.md' -exec sh -c ': > "$1"' _ {} \;
mkdir -p "$dir/docs" && cp -R "$tmp/docs/docs/." "$dir/docs/"
git -C "$tmp/r" show "$commit:LICENSE.txt" > "$dir/../LICENSE"
rm -rf "$tmp"
