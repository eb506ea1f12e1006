#!/usr/bin/env bash
# Scale benchmark: N installed extensions (SCALE_N, default "10 100 300"), each
# with a static systemPrompt, written straight into the install layout. For each N:
#   prompt cold     bin/spirit extension prompt, with no prompt cache (every
#                   extension is started once); peak RSS of spirit plus children
#   prompt warm     the same with the cache of the cold run (RUNS runs, default 7)
#   mcp initialize  bin/spirit mcp serve started, initialize sent, until the answer
#                   (warm: the prompt cache is there); peak RSS
# Peak RSS is the largest sum of RSS over spirit's session (spirit and every Node
# process it started), sampled every 20 ms with ps.
# Goals at 300: prompt cold <= 3 s, warm <= 150 ms; initialize <= 1 s; RSS <= 600 MB.
set -Eeuo pipefail
trap 'echo "bench-runtime-scale.sh: failed at line $LINENO" >&2' ERR
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-7}
sizes=${SCALE_N:-10 100 300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

spirit=$work/spirit
(cd "$repo" && go build -o "$spirit" ./cmd/spirit)

ns() { date +%s%N; }
stats() { sort -n | awk '{a[NR]=$1} END {printf "min %.0f / median %.0f / max %.0f", a[1], (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[NR]}'; }

# generate N: a fresh data dir with N extensions.
generate() {
  local n=$1 data=$work/data-$1
  mkdir -p "$data/extensions/cli"
  for i in $(seq "$n"); do
    local id=scale-ext-$i
    local dir=$data/extensions/cli/pkg-$(printf %s "$id" | base64 | tr '+/' '-_' | tr -d '=')
    mkdir -p "$dir"
    cat >"$dir/package.json" <<EOF
{"name":"$id","version":"1.0.0","main":"index.mjs","spiritExtension":{"displayName":"Scale $i","supportedHosts":["cli","desktop"],"requestedCapabilities":["system-prompt"]}}
EOF
    echo "export function activate() { return { systemPrompt: 'Extension $i says hello.' }; }" >"$dir/index.mjs"
  done
  echo "$data"
}

# peak SID OUTFILE: samples the summed RSS (KiB) of session SID until it is gone.
peak() {
  local sid=$1 out=$2 max=0 cur
  while kill -0 "$sid" 2>/dev/null; do
    cur=$( (ps -o rss= -s "$sid" 2>/dev/null || true) | awk '{s+=$1} END {print s+0}')
    [ "$cur" -gt "$max" ] && max=$cur
    sleep 0.02
  done
  echo "$max" >"$out"
}

# run_prompt DATA: times one prompt run (µs) into $work/t, its peak RSS into $work/rss.
run_prompt() {
  local t0 t1
  t0=$(ns)
  SPIRIT_AGENT_DATA_DIR=$1 setsid "$spirit" extension prompt >"$work/out" 2>"$work/err" &
  local pid=$!
  peak "$pid" "$work/rss" &
  local sampler=$!
  wait "$pid"
  t1=$(ns)
  wait "$sampler"
  grep -q "Extension 1 says hello." "$work/out" || { echo "prompt printed:" >&2; cat "$work/out" "$work/err" >&2; exit 1; }
  echo $(((t1 - t0) / 1000)) >"$work/t"
}

# run_init DATA: times mcp serve from start to the initialize answer.
run_init() {
  local t0 t1 line
  rm -f "$work/in" "$work/outp"
  mkfifo "$work/in" "$work/outp"
  exec 8<>"$work/outp"
  t0=$(ns)
  SPIRIT_AGENT_DATA_DIR=$1 setsid "$spirit" mcp serve <"$work/in" >"$work/outp" 2>"$work/err" &
  local pid=$!
  peak "$pid" "$work/rss" &
  local sampler=$!
  exec 9>"$work/in"
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' >&9
  IFS= read -r -t 60 line <&8 || true
  t1=$(ns)
  exec 9>&-
  wait "$pid" || true
  wait "$sampler"
  exec 8<&-
  case $line in *'"id":1'*) ;; *) echo "mcp serve answered: ${line:0:200}" >&2; cat "$work/err" >&2; exit 1 ;; esac
  echo $(((t1 - t0) / 1000)) >"$work/t"
}

printf 'scale benchmark (%s, %s CPUs, node %s)\n' "$(date -u +%FT%TZ)" "$(nproc)" "$(node --version)"
for n in $sizes; do
  data=$(generate "$n")
  cache=$data/extensions/cli/.spirit/prompt-cache.json
  : >"$work/cold"; : >"$work/cold-rss"; : >"$work/warm"; : >"$work/warm-rss"; : >"$work/init"; : >"$work/init-rss"
  for _ in $(seq 3); do
    rm -f "$cache"
    run_prompt "$data"
    cat "$work/t" >>"$work/cold"; cat "$work/rss" >>"$work/cold-rss"
  done
  for _ in $(seq "$runs"); do
    run_prompt "$data"
    cat "$work/t" >>"$work/warm"; cat "$work/rss" >>"$work/warm-rss"
    run_init "$data"
    cat "$work/t" >>"$work/init"; cat "$work/rss" >>"$work/init-rss"
  done
  printf 'N=%d\n' "$n"
  printf '  prompt cold (3 runs)      ms %s   peak RSS MB %s\n' "$(awk '{print $1/1000}' "$work/cold" | stats)" "$(awk '{print $1/1024}' "$work/cold-rss" | stats)"
  printf '  prompt warm (%d runs)      ms %s   peak RSS MB %s\n' "$runs" "$(awk '{print $1/1000}' "$work/warm" | stats)" "$(awk '{print $1/1024}' "$work/warm-rss" | stats)"
  printf '  mcp initialize warm (%d)   ms %s   peak RSS MB %s\n' "$runs" "$(awk '{print $1/1000}' "$work/init" | stats)" "$(awk '{print $1/1024}' "$work/init-rss" | stats)"
  rm -rf "$data"
done
echo "goals at N=300: prompt cold <= 3000 ms, warm <= 150 ms; initialize <= 1000 ms; peak RSS <= 600 MB"
