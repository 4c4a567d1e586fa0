#!/bin/sh
# Lay the dev vault rowandish-garden: Rowandish/digital-garden (Paolo's Italian Obsidian vault published
# with Quartz; .obsidian/ is gitignored, so no app settings exist; the repository's LICENSE.txt is
# Quartz's MIT licence, "Copyright (c) 2021 jackyzha0", and says nothing about the owner's notes, so they
# are only fetched here, not redistributed) at commit c3bbd08fd37489d816e35ef9db5f44e1538a412a: the
# markdown files of content/ (the vault, 589 notes: index.md and Resources/), laid at DIR's root.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=c3bbd08fd37489d816e35ef9db5f44e1538a412a
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/Rowandish/digital-garden "$tmp/r"
mkdir -p "$dir"
git -C "$tmp/r" ls-tree -r -z --name-only "$commit" content | tr '\0' '\n' | grep '\.md$' |
  while IFS= read -r p; do
    q=${p#content/}
    mkdir -p "$dir/$(dirname "$q")"
    git -C "$tmp/r" show "$commit:$p" > "$dir/$q"
  done
rm -rf "$tmp"
