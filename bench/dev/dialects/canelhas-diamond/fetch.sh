#!/bin/sh
# Lay the dev vault canelhas-diamond: canelhasmateus/diamond (a personal Foam workspace; the repository
# states no licence, so the notes are not redistributed here, only fetched) at commit
# 8f004ef9148832a0c7b4650d67bb3dea0a2fc749: every markdown file (vault/, vault_buffer/, vault_buffer2/,
# outlines/, projects/, attic/) plus .vscode/settings.json and .vscode/foam.json, into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=8f004ef9148832a0c7b4650d67bb3dea0a2fc749
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/canelhasmateus/diamond "$tmp/r"
mkdir -p "$tmp/all" "$dir"
git -C "$tmp/r" archive "$commit" | tar -x -C "$tmp/all"
find "$tmp/all" -type f ! -name '*.md' ! -path '*/.vscode/settings.json' ! -path '*/.vscode/foam.json' -delete
find "$tmp/all" -depth -type d -empty -delete
cp -R "$tmp/all/." "$dir/"
rm -rf "$tmp"
