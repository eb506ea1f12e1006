#!/usr/bin/env bash
# Times `spirit extension install FILE.tgz` against `tar xzf` of the same
# file (the floor: the same bytes on disk), in alternating pairs (RUNS,
# default 7), for two packages: 600 files of source-like text (~11.6 KB
# each, like bench-npm's "large") and ~20 MB of 2,000 files of random
# bytes. Every run writes into a fresh directory and nothing is deleted
# while timing. Prints min/median/max and the ratio (goal: spirit <= 1.3x
# tar), one table per package. version+tar is the floor spirit itself has:
# starting spirit at all (`spirit --version`: the Go runtime and every
# package's init) and then tar's work.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
BIN=${BIN:-bin/spirit}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/spirit
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchpair" ./internal/benchpair
go build -o "$work/genbench" ./install/internal/genbench
# bench NAME GENBENCH-FLAGS...
bench() {
  local name=$1
  shift
  local tgz="$work/$name/bench-ext-1.0.0.tgz"
  mkdir -p "$work/$name"
  "$work/genbench" "$@" "$tgz"
  local size files
  size=$(wc -c <"$tgz")
  files=$(tar tzf "$tgz" | wc -l)
  "$work/benchpair" -runs "$RUNS" -dir "$work/runs-$name" \
    -title "install a local .tgz: $size bytes, $files entries (goal: <= 1.3x tar-xzf)" -headline \
    "spirit=SPIRIT_AGENT_DATA_DIR={dir} $BIN extension install $tgz >/dev/null" \
    "tar-xzf=tar xzf $tgz -C {dir}" \
    "version+tar=$BIN --version >/dev/null; tar xzf $tgz -C {dir}"
}
bench text-600 -files 600 -text
bench random-2000
