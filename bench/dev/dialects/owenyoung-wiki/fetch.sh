#!/bin/sh
# Lay the dev vault owenyoung-wiki: theowenyoung/wiki ("Everything I Know", a Foam workspace; the
# repository states no licence, so the notes are not redistributed here, only fetched) at commit
# 2875caaf401739397981a6221f000ab547bf7732: every markdown file outside .github/ and .layouts/
# (163 notes incl. _drafts/ and .foam/templates/) plus .vscode/settings.json and .vscode/foam.json, into DIR.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=2875caaf401739397981a6221f000ab547bf7732
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/theowenyoung/wiki "$tmp/r"
mkdir -p "$tmp/all" "$dir"
git -C "$tmp/r" archive "$commit" | tar -x -C "$tmp/all"
rm -rf "$tmp/all/.github" "$tmp/all/.layouts" "$tmp/all/.obsidian"
find "$tmp/all" -type f ! -name '*.md' ! -path '*/.vscode/settings.json' ! -path '*/.vscode/foam.json' -delete
cp -R "$tmp/all/." "$dir/"
rm -rf "$tmp"
