#!/bin/sh
# Materialise the dev vault: the Quartz 4 documentation (jackyzha0/quartz docs/, MIT, Copyright (c) 2021
# jackyzha0) as carried in the fork LesleyLai/digital-garden at commit
# 6581960271f74bd75e29b66217fe0e23999577d2, folder docs/ only (70 markdown notes), into DIR.
# (The fork is used because the upstream repository is much larger.)
# Non-markdown files (images) are written empty; wikilinks and embeds to them still resolve.
# The repository's LICENSE.txt is copied beside the vault as DIR/../LICENSE.
# It is laid at $MEMORY_PLUGIN_EVALDATA/quartz-docs/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=6581960271f74bd75e29b66217fe0e23999577d2
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/LesleyLai/digital-garden "$tmp/dg"
mkdir -p "$dir"
git -C "$tmp/dg" archive "$commit" docs | tar -x -C "$tmp"
find "$tmp/docs" -type f ! -name '*.md' -exec sh -c ': > "$1"' _ {} \;
cp -R "$tmp/docs/." "$dir/"
git -C "$tmp/dg" show "$commit:LICENSE.txt" > "$dir/../LICENSE"
rm -rf "$tmp"
