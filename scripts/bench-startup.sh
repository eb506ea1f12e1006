#!/usr/bin/env bash
# Times `spirit --version` (process start, package inits, flag parsing)
# against a minimal Go program that prints a line (the floor for a Go
# binary on this machine), in alternating pairs (RUNS, default 41).
# Prints min/median/max and the ratio (goal: spirit <= 4 ms).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-41}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchpair" ./internal/benchpair
go build -o "$work/spirit" ./cmd/spirit
mkdir -p "$work/minimal"
printf 'module minimal\n\ngo 1.21\n' >"$work/minimal/go.mod"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("minimal") }\n' >"$work/minimal/main.go"
(cd "$work/minimal" && go build -o "$work/minimal-go" .)
"$work/benchpair" -runs "$RUNS" -warmup 3 -dir "$work/runs" -title "startup: spirit --version (goal <= 4 ms)" \
  "spirit=$work/spirit --version" "minimal-go=$work/minimal-go"
