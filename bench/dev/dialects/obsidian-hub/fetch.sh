#!/bin/sh
# Lay the dev vault obsidian-hub: obsidian-community/obsidian-hub (the Obsidian community's shared vault,
# published at publish.obsidian.md/hub; the repository states no licence for its notes, so they are only
# fetched here, not redistributed) at commit dae4bcf14d27eb3691aa73b2e906e0d1dc7b1e0c (2026-05-07).
# The whole vault has 6,571 notes, above the 3,000 these sets lay whole, so this lays a coherent subset
# of its top folders, 2,996 notes: the five root notes (00 - Start here, 🗂️ hub, README, CONTRIBUTING,
# Editing notes using the github.dev editor) and the top folders
#   00 - Contribute to the Obsidian Hub   (templates, contributor notes, design decisions)   54
#   01 - Community                        (People: 2,692 author notes; Obsidian Roundup; events)  2,811
#   04 - Guides, Workflows, & Courses     (guides, community talks, courses, "for X" maps)    79
#   05 - Concepts                                                                              32
#   06 - Inbox                            (the folder new notes go to)                         15
# Left out: 02 - Community Expansions (3,535 notes, almost all the catalogue of plugins and themes
# that the hub's scripts generate; the notes above link them, so those links dangle here) and
# 03 - Showcases & Templates (40). Markdown only: the repository has no .obsidian/ (gitignored), and
# the attachments and the .github/ scripts are not laid.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=dae4bcf14d27eb3691aa73b2e906e0d1dc7b1e0c
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/obsidian-community/obsidian-hub "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" | tr '\0' '\n' |
  grep -E '\.md$' |
  grep -E -e '^[^/]*$' -e '^(00 - Contribute to the Obsidian Hub|01 - Community|04 - Guides, Workflows, & Courses|05 - Concepts|06 - Inbox)/' |
  while IFS= read -r p; do
    mkdir -p "$dir/$(dirname "$p")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$p"
  done
rm -rf "$tmp"
