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
    log=$(mktemp)
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "$pkg" 2>&1 | tee "$log"; then
      # Go's fuzzer sometimes ends a run that found nothing with "context
      # deadline exceeded" when -fuzztime runs out (no failing input is
      # written then). That run, and only that one, is run once more; a
      # real finding says "Failing input written to" and fails here.
      if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
        echo "== $pkg $target: the fuzzer hit its own deadline without a finding; once more"
        go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "$pkg" || { rm -f "$log"; exit 1; }
      else
        rm -f "$log"
        exit 1
      fi
    fi
    rm -f "$log"
  done
done
