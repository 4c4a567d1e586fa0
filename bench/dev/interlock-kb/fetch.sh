#!/bin/sh
# Materialise the dev vault: interlock-network/knowledgebase-public (CC0 1.0 Universal) at commit
# de783667e9349637832a51de8d142766805f823e, the whole repository minus CODE_OF_CONDUCT.md, LICENSE.md and
# .gitignore (150 markdown notes), into DIR.
# The repository's LICENSE.md is copied beside the vault as DIR/../LICENSE.
# It is laid at $MEMORY_PLUGIN_EVALDATA/interlock-kb/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=de783667e9349637832a51de8d142766805f823e
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/interlock-network/knowledgebase-public "$tmp/kb"
mkdir -p "$dir" "$tmp/out"
git -C "$tmp/kb" archive "$commit" | tar -x -C "$tmp/out"
rm -f "$tmp/out/CODE_OF_CONDUCT.md" "$tmp/out/LICENSE.md" "$tmp/out/.gitignore"
cp -R "$tmp/out/." "$dir/"
git -C "$tmp/kb" show "$commit:LICENSE.md" > "$dir/../LICENSE"
rm -rf "$tmp"
