#!/usr/bin/env bash
# make demo: spirit's main jobs on the examples shipped in the repository,
# offline, in a throw-away data directory (your own is never touched).
set -euo pipefail
cd "$(dirname "$0")/.."
spirit=./bin/spirit
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export SPIRIT_AGENT_DATA_DIR=$data

# step TITLE CMD…: a heading, then the command as you would type it.
step() {
  printf '\n\033[1m== %s\033[0m\n$' "$1"
  shift
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./@:=+-]+$ ]]; then printf ' %s' "$a"; else printf " '%s'" "$a"; fi
  done
  printf '\n'
}

step "Validate a good extension and a broken one (every problem at once; exit 3 means problems found)" \
  spirit extension validate testdata/examples/lookup-tools testdata/examples/broken-ext
"$spirit" extension validate testdata/examples/lookup-tools testdata/examples/broken-ext || [ $? -eq 3 ]

step "Install the example extension into a throw-away data directory" \
  spirit extension install testdata/examples/hello-tools
"$spirit" extension install testdata/examples/hello-tools

step "List what is installed" spirit extension list
"$spirit" extension list

step "The tools a model sees (Spirit Agent's invocation names, to the byte)" spirit extension tools
"$spirit" extension tools

step "Call a tool (arguments are checked against its inputSchema first)" \
  spirit extension call hello-tools/greet --args '{"name":"Ada"}'
"$spirit" extension call hello-tools/greet --args '{"name":"Ada"}'

step "The aggregated system prompt block" spirit extension prompt
"$spirit" extension prompt
