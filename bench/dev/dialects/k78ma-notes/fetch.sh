#!/bin/sh
# Lay the dev vault k78ma-notes: k78ma/quartz ("Kai's Notes", Kai Ma's Obsidian vault of UWaterloo
# mechatronics course notes, machine learning and robotics, published with Quartz v4 from content/; the
# repository's LICENSE.txt is Quartz's MIT licence, "Copyright (c) 2021 jackyzha0", and says nothing about
# the owner's notes, so they are only fetched here, not redistributed) at commit
# 9b782e105d701a2be0aee51464dc555ef54ac746 (branch v4, "vault backup: 2024-03-27"): the markdown files of
# content/ (the vault, minus Obsidian's .trash/) and the top-level content/.obsidian/*.json settings (no
# plugin code or plugin data), laid at DIR's root. The Quartz site code is left out.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=9b782e105d701a2be0aee51464dc555ef54ac746
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/k78ma/quartz "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" content | tr '\0' '\n' |
  grep -E '(\.md$|^content/\.obsidian/[^/]*\.json$)' | grep -v '^content/\.trash/' |
  while IFS= read -r p; do
    q=${p#content/}
    mkdir -p "$dir/$(dirname "$q")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$q"
  done
rm -rf "$tmp"
