#!/usr/bin/env bash
# Times `spirit extension list` with N = 10, 100 and 300 installed
# extensions (each a copy of testdata/examples/hello-tools under its own
# name, installed with `spirit extension install DIR`), in alternating runs
# against `cat` of every installed package.json (the floor: reading the
# same files, nothing else). RUNS (default 15). Goal: list <= 25 ms at 300.
# BASE=path/to/an/older/spirit adds its `list` to the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-15}
SIZES=${SIZES:-"10 100 300"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchpair" ./internal/benchpair
go build -o "$work/spirit" ./cmd/spirit
for n in $SIZES; do
  data=$work/data-$n
  src=$work/src-$n
  for i in $(seq -f '%04g' 1 "$n"); do
    mkdir -p "$src/$i"
    cp testdata/examples/hello-tools/index.mjs "$src/$i/"
    sed -e "s/\"name\": \"hello-tools\"/\"name\": \"scale-ext-$i\"/" \
      -e "s/\"displayName\": \"Hello Tools\"/\"displayName\": \"Scale $i\"/" \
      testdata/examples/hello-tools/package.json >"$src/$i/package.json"
    SPIRIT_AGENT_DATA_DIR=$data "$work/spirit" extension install "$src/$i" >/dev/null
  done
  got=$(SPIRIT_AGENT_DATA_DIR=$data "$work/spirit" extension list | grep -c scale-ext || true)
  [ "$got" = "$n" ] || { echo "bench-scale: list shows $got of $n extensions" >&2; exit 1; }
  "$work/benchpair" -runs "$RUNS" -warmup 2 -dir "$work/runs-$n" \
    -title "spirit extension list, $n installed extensions (goal at 300: <= 25 ms)" \
    "list=SPIRIT_AGENT_DATA_DIR=$data $work/spirit extension list >/dev/null" \
    "cat-manifests=cat $data/extensions/cli/pkg-*/package.json >/dev/null" \
    ${BASE:+"base-list=SPIRIT_AGENT_DATA_DIR=$data $BASE extension list >/dev/null"}
done
