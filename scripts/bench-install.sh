#!/usr/bin/env bash
# Times `spirit extension install FILE.tgz` of a ~20 MB .tgz of 2,000 files
# against `tar xzf` of the same file (the floor: the same bytes on disk),
# in alternating pairs (RUNS, default 7). Every run writes into a fresh
# directory and nothing is deleted while timing. Prints min/median/max and
# the ratio (goal: spirit <= 1.3x tar).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
BIN=${BIN:-bin/spirit}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/spirit
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchpair" ./internal/benchpair
tgz="$work/bench-ext-1.0.0.tgz"
go run ./install/internal/genbench "$tgz"
size=$(wc -c <"$tgz")
files=$(tar tzf "$tgz" | wc -l)
"$work/benchpair" -runs "$RUNS" -dir "$work/runs" \
  -title "install a local .tgz: $size bytes, $files entries" \
  "spirit=SPIRIT_AGENT_DATA_DIR={dir} $BIN extension install $tgz >/dev/null" \
  "tar-xzf=tar xzf $tgz -C {dir}"
