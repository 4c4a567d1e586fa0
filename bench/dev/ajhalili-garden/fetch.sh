#!/bin/sh
# Materialise the dev vault: ajhalili2006/digital-garden (Andrei Jiroh Halili's Obsidian digital garden,
# CC-BY-SA-4.0) at commit cd4b4c5ad095dddef7b3355a9cba729acc1464f3, the whole repository laid as DIR/ minus
# repository files (.obsidian/, .vscode/, scripts/, .gitattributes, .gitignore, .gitpod.yml, .markdownlint.yaml,
# .wakatime-project, AUHTORS, CONTRIBUTORS, LICENSE): 63 markdown notes; non-markdown files written empty.
# The repository's LICENSE (the CC-BY-SA-4.0 legal code) is copied beside the vault as DIR/../LICENSE.
# Or: `python3 bench/lay_evaldata.py --only ajhalili-garden` from a local git mirror of the repository (`--mirror`) lays the same files at $MEMORY_PLUGIN_EVALDATA/ajhalili-garden/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=cd4b4c5ad095dddef7b3355a9cba729acc1464f3
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/ajhalili2006/digital-garden "$tmp/r"
mkdir -p "$tmp/v" "$dir"
git -C "$tmp/r" archive "$commit" | tar -x -C "$tmp/v"
(cd "$tmp/v" && rm -rf .obsidian .vscode scripts .gitattributes .gitignore .gitpod.yml .markdownlint.yaml \
  .wakatime-project AUHTORS CONTRIBUTORS LICENSE)
find "$tmp/v" -type f ! -name '*.md' -exec sh -c ': > "$1"' _ {} \;
cp -R "$tmp/v/." "$dir/"
git -C "$tmp/r" show "$commit:LICENSE" > "$dir/../LICENSE"
rm -rf "$tmp"
