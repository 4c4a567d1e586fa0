#!/bin/sh
# Lay the dev vault anyonicfugue-notes: AnyonicFugue/logseq_public_notes (a physics student's personal
# Logseq graph, published with logseq-publish; the repository states no licence, so the notes are not
# redistributed here, only fetched) at commit df04f833685a1c1d91bf5aadeff856de036227a0: folder pages/
# (markdown only; the graph has no journals) and logseq/config.edn, into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=df04f833685a1c1d91bf5aadeff856de036227a0
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/AnyonicFugue/logseq_public_notes "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" pages logseq/config.edn | tar -x -C "$dir"
find "$dir/pages" -type f ! -name '*.md' -delete
rm -rf "$tmp"
