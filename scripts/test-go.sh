#!/usr/bin/env bash
# The Go tests of `make test`: the packages whose code is concurrent
# (scripts/race-pkgs.sh) under the race detector, the others without it, so
# no test runs twice. The two runs go side by side: most of the long tests
# wait on other processes (Node, npm, Verdaccio, a killed install), and the
# other run fills those waits. The race run's lines are prefixed "[race] ";
# each run ends with its own "==>" line (scripts/step.sh), and the script
# fails when either failed.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
race=$(GO=$GO bash scripts/race-pkgs.sh) || exit 1
plain=$("$GO" list ./... | grep -vxF "$race") || exit 1
n=$(echo "$race" | wc -w)
(bash scripts/step.sh "test: race detector ($n packages)" "$GO" test -count=1 -timeout 20m -race $race 2>&1 |
	sed -u 's/^/[race] /') &
racepid=$!
bash scripts/step.sh "test: the other packages ($(echo "$plain" | wc -w))" "$GO" test -count=1 -timeout 20m $plain
status=$?
wait "$racepid" || status=1
exit $status
