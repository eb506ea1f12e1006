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
source scripts/demo-step.sh

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

registry=testdata/catalog/registry
step "Browse a marketplace index kept in a folder (a bad catalog item is skipped with a warning, not the whole catalog)" \
  spirit --registry "$registry" extension marketplace search hello
"$spirit" --registry "$registry" extension marketplace search hello

step "Install from the marketplace: integrity, identity and review checks, then an atomic install" \
  spirit --registry "$registry" extension marketplace install fixture.hello --version 1.0.0
"$spirit" --registry "$registry" extension marketplace install fixture.hello --version 1.0.0

step "What can be updated, and what an update would add" spirit --registry "$registry" extension outdated
"$spirit" --registry "$registry" extension outdated

# The registry builder, on the official index's own data: a local npm
# registry serves the packument the official builder read from npmjs.org.
work=$(mktemp -d)
cp -r testdata/registry/upstream-demo/repo/. "$work"
rm -f "$work"/registry/catalog.json "$work"/registry/extensions/*/detail.json
go build -o "$data/demo-npm" ./scripts/demo-npm
"$data/demo-npm" testdata/registry/upstream-demo/npm > "$data/npm.url" &
npm_pid=$!
trap 'kill $npm_pid 2>/dev/null; rm -rf "$data" "$work"' EXIT
for _ in $(seq 50); do [ -s "$data/npm.url" ] && break; sleep 0.1; done
npm_url=$(cat "$data/npm.url")

step "Build the marketplace index from entry.json files" spirit registry build --root "$work" --npm-registry "$npm_url"
"$spirit" registry build --root "$work" --npm-registry "$npm_url"
if cmp -s "$work/registry/catalog.json" ../shared/spirit-registry-reference/registry/catalog.json 2>/dev/null ||
   cmp -s "$work/registry/catalog.json" testdata/registry/upstream-demo/want/registry/catalog.json; then
  echo "catalog.json is byte-identical to the official index's"
fi

step "Check the index offline, as the registry's CI does" spirit registry validate --root "$work"
"$spirit" registry validate --root "$work"

# The marketplace web site and an offline mirror of the example index. The
# site is kept in bin/demo-site so that it can be opened after the demo.
site=bin/demo-site
step "Write the marketplace web site of the example index (static files, search works from file://)" \
  spirit registry site --root "$registry" -o "$site"
"$spirit" registry site --root "$registry" -o "$site" >/dev/null
echo "open it: file://$(cd "$site" && pwd)/index.html"

step "Mirror the index with its verified tarballs (a tampered tarball is refused; exit 1 says so)" \
  spirit --registry "$registry" registry mirror -o "$data/mirror"
"$spirit" --registry "$registry" registry mirror -o "$data/mirror" || [ $? -eq 1 ]

step "Install from the mirror: no other network, the same integrity checks" \
  spirit --registry "$data/mirror" extension marketplace install fixture.unverified --review-acknowledged --yes
"$spirit" --registry "$data/mirror" extension marketplace install fixture.unverified --review-acknowledged --yes
