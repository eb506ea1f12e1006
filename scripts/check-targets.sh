#!/usr/bin/env bash
# Builds and vets spirit for every desktop the apps ship on: linux, darwin
# and windows on amd64 and arm64, without cgo, so no change breaks one of
# them silently. vet reuses what build compiled (one shared build cache).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
status=0
for os in linux darwin windows; do
	for arch in amd64 arm64; do
		echo "check-targets: $os/$arch"
		if ! GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" build ./... ||
			! GOOS=$os GOARCH=$arch CGO_ENABLED=0 "$GO" vet ./...; then
			echo "check-targets: $os/$arch FAILED" >&2
			status=1
		fi
	done
done
exit $status
