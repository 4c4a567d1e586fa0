#!/bin/sh
# Lay the dev vault cams-nexus: CameronBrooks11/Cams-Nexus (a personal Logseq graph; the repository
# states no licence, so the notes are not redistributed here, only fetched) at commit
# d2e14860f4cfa1eba1dc5651bec1f9febbb56403: folders pages/ and journals/ (markdown only, 541 notes)
# and logseq/config.edn, into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=d2e14860f4cfa1eba1dc5651bec1f9febbb56403
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/CameronBrooks11/Cams-Nexus "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" pages journals logseq/config.edn | tar -x -C "$dir"
find "$dir/pages" "$dir/journals" -type f ! -name '*.md' -delete
rm -rf "$tmp"
