#!/usr/bin/env bash
# Times `spirit extension install` of a ~20 MB .tgz of 2,000 files against
# `tar xzf` of the same file: 7 alternating runs each, medians and ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
BIN=${BIN:-bin/spirit}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/spirit
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tgz="$work/bench-ext-1.0.0.tgz"
go run ./install/internal/genbench "$tgz"
size=$(wc -c <"$tgz")
files=$(tar tzf "$tgz" | wc -l)

now() { date +%s.%N; }
spirit_t=() tar_t=()
for i in $(seq "$RUNS"); do
	rm -rf "$work/data" "$work/x"; mkdir -p "$work/x"; sync
	s=$(now); SPIRIT_AGENT_DATA_DIR="$work/data" "$BIN" extension install "$tgz" >/dev/null; e=$(now)
	spirit_t+=("$(echo "$e - $s" | bc)")
	s=$(now); tar xzf "$tgz" -C "$work/x"; e=$(now)
	tar_t+=("$(echo "$e - $s" | bc)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ms=$(median "${spirit_t[@]}"); mt=$(median "${tar_t[@]}")
printf 'archive: %d bytes, %d entries, %d runs each (alternating)\n' "$size" "$files" "$RUNS"
printf 'spirit extension install  median %.3f s\n' "$ms"
printf 'tar xzf                   median %.3f s\n' "$mt"
printf 'ratio spirit/tar          %.2f (goal <= 1.5)\n' "$(echo "$ms / $mt" | bc -l)"
