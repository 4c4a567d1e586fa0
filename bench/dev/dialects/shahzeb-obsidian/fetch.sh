#!/bin/sh
# Lay the dev vault shahzeb-obsidian: mshahzebraza/primary-vault (a developer's work vault, property-first
# Obsidian on kepano's vault template; the repository's LICENSE is the template's MIT licence,
# "Copyright (c) 2023 Steph Ango", and says nothing else about the owner's own notes, so they are only
# fetched here, not redistributed) at commit 686a1f33c74133c2a20caa1d0e6c99905ad03803: the markdown notes
# of Notes/, Categories/, Daily/ and Templates/ (200) and the Obsidian Bases of Templates/Bases/ (*.base,
# which the category and task notes embed), into DIR. Left out: .obsidian/ (the vault is laid without its
# app settings), the AI-agent files (CLAUDE.md, .claude/, .claudian/, plans/), Attachments/, and the three
# notes the owner marked as holding live credentials ("Do not share or commit this file").
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=686a1f33c74133c2a20caa1d0e6c99905ad03803
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/mshahzebraza/primary-vault "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" -- Notes Categories Daily Templates | tr '\0' '\n' |
  grep -E '(\.md|\.base)$' |
  grep -v -x -e 'Notes/Accounts and Links.md' -e 'Notes/Aurangzeb - Website.md' -e 'Notes/Scholar Bee Work Resources.md' |
  while IFS= read -r p; do
    mkdir -p "$dir/$(dirname "$p")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$p"
  done
rm -rf "$tmp"
