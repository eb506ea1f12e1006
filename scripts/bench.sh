#!/usr/bin/env bash
# `make bench`: runs every benchmark in one go and writes the performance
# table of docs/performance.md from that one run.
#   1. the Go benchmarks, one package at a time on one core, BENCH_COUNT
#      times each (default 3) so each has a min/median/max;
#   2. every scripts/bench-*.sh, which time whole commands side by side
#      with what they are compared with (internal/benchpair records each
#      table into pairs.jsonl);
#   3. internal/benchreport turns both into report.md.
# Everything lands in BENCH_OUT (default bench-results/<UTC time>): go.txt,
# scripts.txt, pairs.jsonl, report.md. BENCH_DOC=1 (or its old name
# BENCH_README=1) also replaces the table between the bench-table marks of
# docs/performance.md. BENCH_GO narrows the
# Go benchmarks (a -bench pattern), BENCH_SCRIPTS the scripts (a glob).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-bench-results/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export BENCHPAIR_RECORD=$out/pairs.jsonl
: >"$BENCHPAIR_RECORD"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')

go test -p 1 -run '^$' -bench "${BENCH_GO:-.}" -benchmem -cpu 1 -count "${BENCH_COUNT:-3}" ./... | tee "$out/go.txt"
for s in ${BENCH_SCRIPTS:-scripts/bench-*.sh}; do
  echo "== $s"
  BENCH_SOURCE=$s bash "$s"
done 2>&1 | tee "$out/scripts.txt"

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
note="Measured by \`make bench\` on $started: $(nproc) cores ($cpu), load average $load_before before and $load_after after."
go run ./internal/benchreport -go "$out/go.txt" -pairs "$BENCHPAIR_RECORD" -note "$note" >"$out/report.md"
if [ "${BENCH_DOC:-${BENCH_README:-}}" = 1 ]; then
  go run ./internal/benchreport -go "$out/go.txt" -pairs "$BENCHPAIR_RECORD" -note "$note" -doc docs/performance.md -summary README.md
  echo "bench: docs/performance.md's table and README.md's summary rewritten from $out/report.md"
fi
echo "bench: report in $out/report.md"
