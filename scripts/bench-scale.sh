#!/usr/bin/env bash
# Times `spirit extension list` with N = 10, 100 and 300 installed
# extensions (each a copy of testdata/examples/hello-tools under its own
# name, installed with `spirit extension install DIR` into one data
# directory that grows from one size to the next, so SIZES must ascend), in
# alternating runs against `cat` of every installed package.json (the
# floor: reading the same files, nothing else). Both are executed directly,
# not through a shell. RUNS (default 15). `spirit --version` runs in the same
# rounds: the floor of starting spirit at all (its runtime and package inits).
# Goal at 300: list <= 1.5x `spirit --version` (a headline of make bench).
# BASE=path/to/an/older/spirit adds its `list` to the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-15}
SIZES=${SIZES:-"10 100 300"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchpair" ./internal/benchpair
go build -o "$work/spirit" ./cmd/spirit
data=$work/data
installed=0
for n in $SIZES; do
  while [ "$installed" -lt "$n" ]; do
    installed=$((installed + 1))
    i=$(printf '%04d' "$installed")
    mkdir -p "$work/src/$i"
    cp testdata/examples/hello-tools/index.mjs "$work/src/$i/"
    sed -e "s/\"name\": \"hello-tools\"/\"name\": \"scale-ext-$i\"/" \
      -e "s/\"displayName\": \"Hello Tools\"/\"displayName\": \"Scale $i\"/" \
      testdata/examples/hello-tools/package.json >"$work/src/$i/package.json"
    SPIRIT_AGENT_DATA_DIR=$data "$work/spirit" extension install --no-warm "$work/src/$i" >/dev/null
  done
  got=$(SPIRIT_AGENT_DATA_DIR=$data "$work/spirit" extension list | grep -c scale-ext || true)
  [ "$got" = "$n" ] || { echo "bench-scale: list shows $got of $n extensions" >&2; exit 1; }
  manifests=$(echo "$data"/extensions/cli/pkg-*/package.json)
  goal=() title="spirit extension list, $n installed extensions"
  [ "$n" = 300 ] && goal=(-headline) title+=" (goal: <= 1.5x version)"
  SPIRIT_AGENT_DATA_DIR=$data "$work/benchpair" -runs "$RUNS" -warmup 2 -dir "$work/runs-$n" \
    -title "$title" "${goal[@]}" \
    "list=$work/spirit extension list" \
    "version=$work/spirit --version" \
    "cat-manifests=cat $manifests" \
    ${BASE:+"base-list=$BASE extension list"}
done
