#!/bin/sh
# Lay out the held-out vault: squidfunk/mkdocs-material (MIT, Copyright (c) 2016-2025 Martin Donath) at
# commit 5b36f2ac499a45905e246bc66bbee2858ef6556f, folder docs/ (96 markdown notes), into DIR; every
# non-markdown file is replaced by a zero-byte file of the same name (as for the other held-out sets).
# LICENSE goes to DIR/../LICENSE. bench/lay_evaldata.py lays it at $MEMORY_PLUGIN_EVALDATA/mkdocs-material/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=5b36f2ac499a45905e246bc66bbee2858ef6556f
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/squidfunk/mkdocs-material "$tmp/mm"
mkdir -p "$dir"
git -C "$tmp/mm" archive "$commit" docs | tar -x -C "$tmp"
cp -R "$tmp/docs/." "$dir/"
find "$dir" -type f ! -name '*.md' -exec sh -c ': > "$1"' _ {} \;
git -C "$tmp/mm" show "$commit:LICENSE" > "$dir/../LICENSE"
rm -rf "$tmp"
