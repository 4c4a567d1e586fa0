#!/bin/sh
# Materialise the dev vault: logseq/docs (MIT, Copyright (c) 2023 Logseq) at commit
# 08f855f24d66e4509b7ea808554c13b4649e6ee1, folders pages/ and journals/ only, non-markdown files
# (a few .org pages and journals) removed: 313 markdown notes, into DIR. LICENSE.md goes to DIR/../LICENSE.
# It is laid at $MEMORY_PLUGIN_EVALDATA/logseq/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=08f855f24d66e4509b7ea808554c13b4649e6ee1
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/logseq/docs "$tmp/docs"
mkdir -p "$dir"
git -C "$tmp/docs" archive "$commit" pages journals | tar -x -C "$dir"
find "$dir" -type f ! -name '*.md' -delete
git -C "$tmp/docs" show "$commit:LICENSE.md" > "$dir/../LICENSE"
rm -rf "$tmp"
