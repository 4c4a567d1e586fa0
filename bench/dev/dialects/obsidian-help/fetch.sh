#!/bin/sh
# Lay the dev vault obsidian-help: obsidianmd/obsidian-help (Obsidian's own help vault, published with
# Obsidian Publish at obsidian.md/help; no licence stated, so it is only fetched here, not redistributed)
# at commit fa179e91e86eaff5859226cc045c81000d64e3cd: the English vault en/ only (173 markdown notes) and
# its settings files, laid at DIR's root: en/.obsidian/*.json if present (none at this commit: .obsidian
# is gitignored) and en/site-options.json (the Publish site's options: indexFile Home, navigation order).
# Left out: the other languages, Attachments/ (images, icons), publish.css/js, favicons.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=fa179e91e86eaff5859226cc045c81000d64e3cd
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/obsidianmd/obsidian-help "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" en | tr '\0' '\n' |
  grep -E '(\.md$|^en/\.obsidian/[^/]*\.json$|^en/site-options\.json$)' | while IFS= read -r p; do
    q=${p#en/}
    mkdir -p "$dir/$(dirname "$q")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$q"
  done
rm -rf "$tmp"
