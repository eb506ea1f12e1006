#!/usr/bin/env bash
# Lists the packages that `make test` runs under the race detector: every
# package of the module whose own (non-test) code is concurrent — it imports
# sync, sync/atomic or golang.org/x/sync/errgroup, or has a go statement —
# so a new concurrent package is raced without anyone keeping a list.
#
# Left out, with the reason:
#   internal/cli  its concurrency is the domain packages' (raced here) and
#                 iostreams' (raced); under -race its scripts run the
#                 instrumented binary as `spirit` and take about 3 times as
#                 long (4 scripts: 24 s → 71 s), which would double make test.
#   test helpers  (internal/testutil/…, npm/npmtest, registry/registrytest)
#                 have no tests of their own; the packages that use them are
#                 raced.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
"$GO" list -f '{{.ImportPath}}|{{.Dir}}|{{join .GoFiles " "}}|{{join .Imports " "}}' ./... |
	while IFS='|' read -r pkg dir files imports; do
		case $pkg in
		*/internal/cli | */internal/testutil/* | */npm/npmtest | */registry/registrytest) continue ;;
		esac
		concurrent=
		for imp in $imports; do
			case $imp in sync | sync/atomic | golang.org/x/sync/errgroup) concurrent=1 ;; esac
		done
		if [ -z "$concurrent" ] && [ -n "$files" ] &&
			(cd "$dir" && grep -qE '^[[:space:]]*go [[:alnum:]_.(]' $files); then
			concurrent=1
		fi
		if [ -n "$concurrent" ]; then echo "$pkg"; fi
	done
exit 0
