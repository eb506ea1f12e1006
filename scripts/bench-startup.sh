#!/usr/bin/env bash
# Times `spirit --version` (process start, package inits, flag parsing)
# against two floors, in alternating pairs (RUNS, default 41):
#   floor       a binary that links every package spirit links (so runs
#               every package init) and whose main returns at once: what
#               is left for spirit's own startup is the difference;
#   minimal-go  a Go program that prints a line: the floor for any Go
#               binary on this machine.
# Prints min/median/max of each and the ratios (no goal: startup is not one on its own).
# The init cost by package: GODEBUG=inittrace=1 spirit --version.
# BASE=path/to/an/older/spirit adds its --version to the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-41}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchpair" ./internal/benchpair
go build -o "$work/spirit" ./cmd/spirit
# The floor's main is laid over the module with -overlay, so nothing is
# written into the tree.
printf 'package main\n\nimport _ "github.com/spiritagents/spirit/internal/cli"\n\nfunc main() {}\n' >"$work/floor.go"
printf '{"Replace":{"%s":"%s"}}\n' "$PWD/cmd/spirit-floor/main.go" "$work/floor.go" >"$work/overlay.json"
go build -overlay "$work/overlay.json" -o "$work/floor" ./cmd/spirit-floor
mkdir -p "$work/minimal"
printf 'module minimal\n\ngo 1.21\n' >"$work/minimal/go.mod"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("minimal") }\n' >"$work/minimal/main.go"
(cd "$work/minimal" && go build -o "$work/minimal-go" .)
"$work/benchpair" -runs "$RUNS" -warmup 3 -dir "$work/runs" -title "startup: spirit --version" \
  "spirit=$work/spirit --version" "floor=$work/floor" "minimal-go=$work/minimal-go" \
  ${BASE:+"base-spirit=$BASE --version"}
