#!/usr/bin/env bash
# Times a cold tool call side by side, in alternating runs (internal/benchpair):
#   spirit   spirit extension call hello-tools/greet --args @args.json
#            (list installs, validate the manifest, start the sandboxed Node
#            runner, activate, check arguments, call, dispose, stop the child)
#   node     node floor.mjs: import the same index.mjs, activate, call greet
#            (the same module and tool with nothing else: the floor)
# RUNS (default 11). Goal: spirit <= 1.5x node.
# The warm round trip is a Go benchmark: go test -run '^$' -bench WarmCall ./exthost
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

spirit=$work/spirit
(cd "$repo" && go build -o "$spirit" ./cmd/spirit && go build -o "$work/benchpair" ./internal/benchpair)
node=$(command -v "${SPIRIT_NODE:-node}")

ext=$repo/testdata/examples/hello-tools
dir=$work/data/extensions/cli/pkg-$(printf %s hello-tools | base64 | tr '+/' '-_' | tr -d '=')
mkdir -p "$(dirname "$dir")"
cp -r "$ext" "$dir"
export SPIRIT_AGENT_DATA_DIR=$work/data

printf '{"name":"Ada"}' >"$work/args.json"
cat >"$work/floor.mjs" <<JS
const m = await import('$dir/index.mjs');
const i = m.activate({ extension: { id: 'hello-tools', version: '1.0.0' }, log() {}, host: {} });
console.log(await i.tools.greet({ arguments: { name: 'Ada' } }));
JS

# Both must print the tool's answer before anything is timed.
for out in "$("$spirit" extension call hello-tools/greet --args "@$work/args.json")" "$("$node" "$work/floor.mjs")"; do
  [ "$out" = "Hello, Ada!" ] || { echo "bench-runtime.sh: a command printed: $out" >&2; exit 1; }
done

"$work/benchpair" -runs "$runs" -warmup 1 -dir "$work/runs" \
  -title "cold tool call: spirit extension call vs node importing the module and calling the tool (goal <= 1.5x)" \
  "spirit=$spirit extension call hello-tools/greet --args @$work/args.json" \
  "node=$node $work/floor.mjs"
