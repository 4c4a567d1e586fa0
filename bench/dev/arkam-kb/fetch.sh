#!/bin/sh
# Materialise the dev vault: ArkamFahry/KnowledgeBase (Arkam Fahry's Logseq knowledge base, MIT, Copyright (c) 2024
# Arkam Fahry) at commit d03769c895fc5a0311e41cbf23926a0a265fd871, folders pages/ and journals/ only, non-markdown
# files removed: 575 markdown notes (435 pages, one of them the dot-file .NET.md; 140 daily journals named
# YYYY_MM_DD.md), into DIR. LICENSE goes to DIR/../LICENSE.
# Or: `python3 bench/lay_evaldata.py --only arkam-kb` from a local git mirror of the repository (`--mirror`) lays the same files at $MEMORY_PLUGIN_EVALDATA/arkam-kb/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=d03769c895fc5a0311e41cbf23926a0a265fd871
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/ArkamFahry/KnowledgeBase "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" pages journals | tar -x -C "$dir"
find "$dir" -type f ! -name '*.md' -delete
git -C "$tmp/r" show "$commit:LICENSE" > "$dir/../LICENSE"
rm -rf "$tmp"
