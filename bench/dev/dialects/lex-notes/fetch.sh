#!/bin/sh
# Lay the dev vault lex-notes: lextoumbourou/notes ("Notes by Lex", a plain markdown notes folder with
# front matter that Pelican publishes at notesbylex.com; MIT licence, "Copyright (c) 2021 Lex
# Toumbourou") at commit b79a43f7940c6f8d7a079cf40c4aa05488dd6835: the markdown files of notes/
# (1,009 notes: permanent/, reference/, pages/), laid at DIR's root. The site code is left out.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=b79a43f7940c6f8d7a079cf40c4aa05488dd6835
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/lextoumbourou/notes "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" notes | tr '\0' '\n' | grep '\.md$' |
  while IFS= read -r p; do
    q=${p#notes/}
    mkdir -p "$dir/$(dirname "$q")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$q"
  done
rm -rf "$tmp"
