#!/bin/sh
# Materialise the dev vault: jbranchaud/til at 453e9ed into DIR (README/CONTRIBUTING removed).
set -eu
dir=${1:?usage: fetch.sh DIR}
tmp=$(mktemp -d)
git clone -q https://github.com/jbranchaud/til "$tmp/til"
git -C "$tmp/til" archive 453e9ed | tar -x -C "$dir"
rm -rf "$tmp" "$dir/README.md" "$dir/CONTRIBUTING.md"
