#!/bin/sh
# Materialise the dev vault: the mdBook user guide (rust-lang/mdBook guide/src/, MPL-2.0) at commit
# 641d06ab, folder guide/src/ laid as DIR/src/ (35 markdown notes); non-markdown files written empty.
# The repository's LICENSE is copied beside the vault as DIR/../LICENSE.
# Or: `python3 bench/lay_evaldata.py --only mdbook-guide` from a local git mirror of the repository (`--mirror`) lays the same files at $MEMORY_PLUGIN_EVALDATA/mdbook-guide/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=641d06ab
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/rust-lang/mdBook "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" guide/src | tar -x -C "$tmp"
find "$tmp/guide/src" -type f ! -name '*.md' -exec sh -c ': > "$1"' _ {} \;
mkdir -p "$dir/src" && cp -R "$tmp/guide/src/." "$dir/src/"
git -C "$tmp/r" show "$commit:LICENSE" > "$dir/../LICENSE"
rm -rf "$tmp"
