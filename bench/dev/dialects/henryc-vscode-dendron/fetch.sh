#!/bin/sh
# Lay the dev vault henryc-vscode-dendron: HenryC-3/dendron-vault-doc-vscode (a public Dendron self-contained
# vault "🟩.🔓.doc.vscode" into which the owner imported, with Dendron's markdown import pod, the api/ and docs/
# folders of microsoft/vscode-docs @2522671e, August 2022; the repository states no licence, so the notes are not
# redistributed here, only fetched) at commit 55f3fa6490f3ca553122a69c2803896ebba767ae: the vault as Dendron opens
# it, i.e. README.md, dendron.yml, dendron.code-workspace and notes/ (its 262 markdown notes and root.schema.yml),
# into DIR. Left out: notes/assets/ (images, gifs, docx and the imported toc.json), notes/.vscode/ (snippets),
# the diagram SVG, pods/ (the import pod's config, pointing at the owner's local copy of vscode-docs) and the
# ignore files.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=55f3fa6490f3ca553122a69c2803896ebba767ae
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/HenryC-3/dendron-vault-doc-vscode "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" README.md dendron.yml dendron.code-workspace ':(glob)notes/*.md' notes/root.schema.yml | tar -x -C "$dir"
find "$dir/notes" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
find "$dir/notes" -type f ! -name '*.md' ! -name 'root.schema.yml' -delete
rm -rf "$tmp"
