#!/usr/bin/env bash
# Times a cold tool call, side by side, alternating runs:
#   spirit   bin/spirit extension call hello-tools/greet --args '{"name":"Ada"}'
#            (list installs, validate the manifest, start the Node runner, activate,
#            check arguments, call, dispose, stop the child)
#   node     node --input-type=module -e 'import(index.mjs), activate, call greet'
#            (the same module and tool with nothing else: the floor)
# RUNS (default 11) each; prints medians and the ratio (goal: spirit <= 1.5x node).
# The warm round trip is a Go benchmark: go test -run '^$' -bench WarmCall ./runtime
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

spirit=$work/spirit
(cd "$repo" && go build -o "$spirit" ./cmd/spirit)
node=${SPIRIT_NODE:-node}

ext=$repo/testdata/examples/hello-tools
dir=$work/data/extensions/cli/pkg-$(printf %s hello-tools | base64 | tr '+/' '-_' | tr -d '=')
mkdir -p "$(dirname "$dir")"
cp -r "$ext" "$dir"
export SPIRIT_AGENT_DATA_DIR=$work/data

floor_js="const m = await import('$dir/index.mjs');
const i = m.activate({ extension: { id: 'hello-tools', version: '1.0.0' }, log() {}, host: {} });
console.log(await i.tools.greet({ arguments: { name: 'Ada' } }));"

ms() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Warm up the page cache once for both.
"$spirit" extension call hello-tools/greet --args '{"name":"Ada"}' >/dev/null
"$node" --input-type=module -e "$floor_js" >/dev/null

: >"$work/spirit.txt"
: >"$work/node.txt"
for _ in $(seq "$runs"); do
  t0=$(ms)
  out=$("$spirit" extension call hello-tools/greet --args '{"name":"Ada"}')
  t1=$(ms)
  [ "$out" = "Hello, Ada!" ] || { echo "spirit printed: $out" >&2; exit 1; }
  echo $(((t1 - t0) / 1000)) >>"$work/spirit.txt"
  t0=$(ms)
  out=$("$node" --input-type=module -e "$floor_js")
  t1=$(ms)
  [ "$out" = "Hello, Ada!" ] || { echo "node printed: $out" >&2; exit 1; }
  echo $(((t1 - t0) / 1000)) >>"$work/node.txt"
done

s=$(median <"$work/spirit.txt")
n=$(median <"$work/node.txt")
printf 'cold tool call, median of %d alternating runs (%s, %s)\n' "$runs" "$("$node" --version)" "$(nproc) CPUs"
printf '  spirit extension call   %8.1f ms\n' "$(echo "$s / 1000" | bc -l)"
printf '  node import + call      %8.1f ms\n' "$(echo "$n / 1000" | bc -l)"
printf '  ratio                   %8.2fx (goal <= 1.5x)\n' "$(echo "$s / $n" | bc -l)"
