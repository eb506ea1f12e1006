#!/usr/bin/env bash
# Runs every Go fuzz target of the module for the given time each (default 10s).
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
  pkg=./$(dirname "${file#./}")
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //' | while read -r target; do
    t=$fuzztime
    # Go counts gathering the baseline coverage of the seeds in -fuzztime
    # and fails with "context deadline exceeded" when the time runs out
    # before it is done: FuzzReadArchive extracts ~60 seed archives (the
    # malicious corpus) first, about 3 s on 2 cores, so it gets 15 s at least.
    case $target in FuzzReadArchive) [ "${t%s}" -lt 15 ] 2>/dev/null && t=15s ;; esac
    echo "== $pkg $target ($t)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "$pkg"
  done
done
