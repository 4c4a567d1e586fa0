#!/bin/sh
# Lay the dev vault h7b-dendron: h7b/h7b-dendron (Huy's public Dendron workspace, published as the site
# kool.casa "h7b blog and notes" through Netlify; the repository states no licence, so the notes are not
# redistributed here, only fetched) at commit b9646e47062b55b3783e9e8ac36432a54ef52cf8: the workspace as
# Dendron opens it, i.e. dendron.yml, dendron.code-workspace and the self-contained vault's notes/ folder
# (its 938 markdown notes, root.schema.yml and notes.schema.yml; no assets), into DIR. Left out: the
# publishing scaffolding beside it (README.md, netlify.toml, package.json, yarn.lock,
# dendron-publish-site.sh, pods/), notes/debug.log and notes/.vscode/.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=b9646e47062b55b3783e9e8ac36432a54ef52cf8
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/h7b/h7b-dendron "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" dendron.yml dendron.code-workspace notes | tar -x -C "$dir"
rm -rf "$dir/notes/assets" "$dir/notes/.vscode" "$dir/notes/.gitignore"
find "$dir/notes" -type f ! -name '*.md' ! -name 'root.schema.yml' ! -name 'notes.schema.yml' -delete
rm -rf "$tmp"
