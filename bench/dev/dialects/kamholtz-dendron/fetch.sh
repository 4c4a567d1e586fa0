#!/bin/sh
# Lay the dev vault kamholtz-dendron: Kamholtz/notes (Carl Kamholtz's public Dendron workspace; the
# repository states no licence, so the notes are not redistributed here, only fetched) at commit
# f6cf9ad952c853d798306c573f2aeedc2de4fa95: the workspace root as Dendron opens it, i.e. dendron.yml,
# dendron.code-workspace, and the vault folder vault/ (its 231 markdown notes and root.schema.yml; no
# assets), into DIR. The repository's .obsidian/ (the owner also opened it in Obsidian) and the Dendron
# template's README.md are left out: the notes follow Dendron (dendron.yml, id/title/desc frontmatter).
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=f6cf9ad952c853d798306c573f2aeedc2de4fa95
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/Kamholtz/notes "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" dendron.yml dendron.code-workspace vault | tar -x -C "$dir"
rm -rf "$dir/vault/assets" "$dir/vault/.vscode" "$dir/vault/.gitignore"
find "$dir/vault" -type f ! -name '*.md' ! -name 'root.schema.yml' -delete
rm -rf "$tmp"
