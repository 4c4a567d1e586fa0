#!/bin/sh
# Lay the dev vault dendron-handbook: dendronhq/handbook (the Dendron company's public handbook, a Dendron
# self-contained vault "dendron.handbook" published at handbook.dendron.so; the repository's LICENSE.md is
# CC BY 4.0 for the content, but the notes are not redistributed here, only fetched) at commit
# c976aa78f913d42982bfa6dacfb8935c1e6b3a1f (the newest, 2022-11-04): the vault as Dendron opens it, i.e.
# README.md, dendron.yml, dendron.code-workspace and notes/ (its 245 markdown notes and the three schemas
# root/ext/task.schema.yml), into DIR. Left out: notes/assets/ (two images), .vscode/, the site build files
# (amplify.yml, package.json, yarn.lock), LICENSE.md and handbook/scratch.*.md (a stray scratch note outside
# notes/, which Dendron does not read).
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=c976aa78f913d42982bfa6dacfb8935c1e6b3a1f
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/dendronhq/handbook "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" README.md dendron.yml dendron.code-workspace ':(glob)notes/*.md' ':(glob)notes/*.schema.yml' | tar -x -C "$dir"
find "$dir/notes" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
find "$dir/notes" -type f ! -name '*.md' ! -name '*.schema.yml' -delete
rm -rf "$tmp"
