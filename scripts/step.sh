#!/usr/bin/env bash
# One step of `make test` or `make check`: prints "==> NAME" before the
# command and "==> NAME: ok (12.3 s; 4m05s since make started)" after it, or
# FAILED with the exit status, so a long run is never silent and the slow
# steps show. STEP_T0 (set by the Makefile) is when make started.
#
#   scripts/step.sh NAME COMMAND [ARG…]
#   scripts/step.sh --total NAME      prints "==> NAME: ok in 4m05s" (since make started)
set -u
now() { date +%s.%N; }
t0=${STEP_T0:-$(now)}
if [ "$1" = --total ]; then
	awk -v a="$t0" -v b="$(now)" -v n="$2" 'BEGIN { s = int(b - a); printf "==> %s: ok in %dm%02ds\n", n, s / 60, s % 60 }'
	exit 0
fi
name=$1
shift
start=$(now)
echo "==> $name"
"$@"
rc=$?
end=$(now)
took=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f s", b - a }')
total=$(awk -v a="$t0" -v b="$end" 'BEGIN { s = int(b - a); printf "%dm%02ds", s / 60, s % 60 }')
if [ $rc -eq 0 ]; then
	echo "==> $name: ok ($took; $total since make started)"
else
	echo "==> $name: FAILED with status $rc ($took; $total since make started)" >&2
fi
exit $rc
