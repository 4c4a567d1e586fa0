#!/bin/sh
# Materialise the dev vault: silverbulletmd/silverbullet (MIT, Copyright 2022 Zef Hemel) at commit
# 754e8525b91fc11fe51f0b4b3e488aba0b027c2b, folder docs/ only (225 markdown notes), into DIR.
# The repository's LICENSE.md is copied beside the vault as DIR/../LICENSE.
# It is laid at $MEMORY_PLUGIN_EVALDATA/silverbullet/vault.
set -eu
dir=${1:?usage: fetch.sh DIR}
commit=754e8525b91fc11fe51f0b4b3e488aba0b027c2b
tmp=$(mktemp -d)
git clone -q --filter=blob:none --no-checkout https://github.com/silverbulletmd/silverbullet "$tmp/sb"
mkdir -p "$dir"
git -C "$tmp/sb" archive "$commit" docs | tar -x -C "$tmp"
cp -R "$tmp/docs/." "$dir/"
git -C "$tmp/sb" show "$commit:LICENSE.md" > "$dir/../LICENSE"
rm -rf "$tmp"
