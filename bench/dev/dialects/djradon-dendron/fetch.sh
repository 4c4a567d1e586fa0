#!/bin/sh
# Lay the dev vault djradon-dendron: Dave Richardson's (djradon) public multi-vault Dendron workspace, four
# repositories that state no licence, so the notes are not redistributed here, only fetched:
#   djradon/wiki @cf0f29eb6a4c999b4faec5485e87042c7807c87c   dendron.yml (its first version, which names the
#       three vaults predicates, classes and public-notes as remote git vaults) and dendron.code-workspace
#   djradon/public-notes @0dfafe0f5407d24ce7a90d6fb19c239efff0ad90   (2022-03-14 "Dendron workspace sync")
#   djradon/classes      @c119af709a2c619f870ce8688c5c3569bbcfb9c0   (2022-03-14 "Dendron workspace sync")
#   djradon/predicates   @92208f8a05a56d0c67758478acfec639dda1db6d   (2022-03-14, the same sync as public-notes)
# into DIR as Dendron opens the workspace: DIR/dendron.yml, DIR/dendron.code-workspace, DIR/public-notes/,
# DIR/classes/, DIR/predicates/ (each vault's top-level markdown notes and root.schema.yml). The workspace
# file is from 2024 (the wiki repository began then); the vaults are taken at one day in March 2022, when the
# workspace held 1,264 notes (today's public-notes alone holds 6,500). Left out: assets/, .vscode/,
# .gitignore, .kato-workspace-config.yaml, and public-notes/pages/ (two empty Logseq leftovers).
set -eu
dir=${1:?usage: fetch.sh DIR}
tmp=$(mktemp -d)
mkdir -p "$dir"
lay() {  # lay REPO COMMIT SUBDIR [PATHS...]
	repo=$1 commit=$2 sub=$3; shift 3
	git clone -q --filter=blob:none --no-checkout "https://github.com/djradon/$repo" "$tmp/$repo"
	mkdir -p "$dir/$sub"
	git -C "$tmp/$repo" archive "$commit" "$@" | tar -x -C "$dir/$sub"
}
lay wiki cf0f29eb6a4c999b4faec5485e87042c7807c87c . dendron.yml dendron.code-workspace
for v in "public-notes 0dfafe0f5407d24ce7a90d6fb19c239efff0ad90" \
         "classes c119af709a2c619f870ce8688c5c3569bbcfb9c0" \
         "predicates 92208f8a05a56d0c67758478acfec639dda1db6d"; do
	set -- $v
	lay "$1" "$2" "$1"
	find "$dir/$1" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	find "$dir/$1" -type f ! -name '*.md' ! -name 'root.schema.yml' -delete
done
rm -rf "$tmp"
