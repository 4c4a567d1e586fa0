#!/bin/sh
# Lay the dev vault b3b00-dendron: b3b00/dendronNotes (Olivier Duhart's public Dendron workspace, edited
# in VS Code and in DendrOnline, his own web editor; the repository states no licence, so the notes are
# not redistributed here, only fetched) at commit 75b54edc9a691587fc64540f4953c4d595768d30: the
# workspace as Dendron opens it, i.e. dendron.yml, dendron.code-workspace and the self-contained vault's
# notes/ folder (its 94 markdown notes and root.schema.yml; no assets), into DIR. Left out: DendrOnline's
# own files beside notes/ (stashes/, bookmarks.md, the saved articles/*.html), which Dendron does not
# read, and the noteTraits/ scripts.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=75b54edc9a691587fc64540f4953c4d595768d30
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/b3b00/dendronNotes "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" archive "$commit" dendron.yml dendron.code-workspace notes | tar -x -C "$dir"
rm -rf "$dir/notes/assets" "$dir/notes/.vscode" "$dir/notes/.gitignore"
find "$dir/notes" -type f ! -name '*.md' ! -name 'root.schema.yml' -delete
rm -rf "$tmp"
