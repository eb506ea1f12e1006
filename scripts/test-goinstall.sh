#!/usr/bin/env bash
# `go install github.com/spiritagents/spirit/cmd/spirit@VERSION` works from a
# module proxy: this checkout (tracked and untracked files, not ignored ones)
# is published as VERSION (default v0.0.1-goinstall.test) into a file proxy
# by internal/fileproxy (golang.org/x/mod/zip), the dependencies are served
# offline from the module cache, and the binary installed into a temporary
# GOBIN must print that version. The go command refuses `go install …@version`
# for a module whose go.mod has a replace directive, so that is checked first.
# Run by `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${VERSION:-v0.0.1-goinstall.test}
module=$(go list -m)

if go mod edit -json | grep -q '"Replace": \['; then
  echo "test-goinstall: go.mod has a replace directive; \`go install $module/cmd/spirit@$VERSION\` refuses such a module:" >&2
  grep -n 'replace' go.mod >&2
  echo "Hint: use the published module, or move the patched copy into a package of this module." >&2
  exit 1
fi

cache=$(go env GOMODCACHE)/cache/download
work=$(mktemp -d "${TMPDIR:-/tmp}/spirit-goinstall.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The install below is offline: every dependency is served from the module
# cache, whose copies must be the ones this checkout's go.sum names.
go mod download
go mod verify >/dev/null

go run ./internal/fileproxy -version "$VERSION" -out "$work/proxy" .

# A fresh module cache, so the version is read from the proxy, not from an
# earlier run; -trimpath keeps the temporary path out of the build cache's
# keys, so a second run compiles only what changed. A user's install checks
# every module against sum.golang.org; this one cannot reach it, and this
# version is published nowhere, so no checksum database is asked
# (GOSUMDB=off): the dependencies were verified against go.sum above.
(
  cd "$work"
  env GOPROXY="file://$work/proxy,file://$cache" GOSUMDB=off GOFLAGS="-modcacherw -trimpath" \
    GOMODCACHE="$work/modcache" GOBIN="$work/bin" GOTOOLCHAIN=local GOWORK=off \
    go install "$module/cmd/spirit@$VERSION"
)

got=$("$work/bin/spirit" --version)
[ "$got" = "spirit $VERSION" ] || {
  echo "test-goinstall: spirit --version printed \"$got\", want \"spirit $VERSION\" (a proxy install knows no commit)" >&2
  exit 1
}
json=$("$work/bin/spirit" --version --json)
grep -q "\"version\": \"$VERSION\"" <<<"$json" && grep -q '"commit": ""' <<<"$json" || {
  echo "test-goinstall: spirit --version --json printed $json" >&2
  exit 1
}
# The installed binary works: its embedded schema and runner came with the zip.
"$work/bin/spirit" extension validate testdata/examples/hello-tools >/dev/null
echo "test-goinstall: go install $module/cmd/spirit@$VERSION from a file proxy: $got"
