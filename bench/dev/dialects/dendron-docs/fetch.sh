#!/bin/sh
# Lay the dev vault dendron-docs: dendronhq/dendron-docs (Dendron's developer documentation, published at
# docs.dendron.so; a Dendron self-contained vault "dendron.dendron.docs"; the repository states no licence, so
# the notes are not redistributed here, only fetched) at commit d67389298f69fa0a8b0c5802b4c50eb9ff0b6e5e
# (2023-06-17): the workspace as Dendron opens it, i.e. dendron.yml, dendron.code-workspace and notes/ (its 680
# markdown notes and the *.schema.yml files), into DIR. Left out: notes/assets/ (two images), notes/lang.meta,
# notes/.gitignore, the template leftovers outside notes/ (a second root.md, vault/root.md and
# vault/root.schema.yml from an older layout), templates/*.ts (code templates), package.json, amplify.yml,
# result.json, a migration backup of dendron.yml and .DS_Store.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=d67389298f69fa0a8b0c5802b4c50eb9ff0b6e5e
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/dendronhq/dendron-docs "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" dendron.yml dendron.code-workspace ':(glob)notes/*.md' ':(glob)notes/*.schema.yml' | tar -x -C "$dir"
find "$dir/notes" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
find "$dir/notes" -type f ! -name '*.md' ! -name '*.schema.yml' -delete
rm -rf "$tmp"
