#!/usr/bin/env bash
# make demo: spirit's main jobs on the examples shipped in the repository,
# offline, in a throw-away data directory (your own is never touched).
set -euo pipefail
cd "$(dirname "$0")/.."
spirit=./bin/spirit
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export SPIRIT_AGENT_DATA_DIR=$data

step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "${*:2}"; }

step "Validate a good extension and a broken one (every problem at once; exit 3 means problems found)" \
  spirit extension validate testdata/examples/lookup-tools testdata/examples/broken-ext
"$spirit" extension validate testdata/examples/lookup-tools testdata/examples/broken-ext || [ $? -eq 3 ]
