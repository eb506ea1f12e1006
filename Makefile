# spirit — every task of the project. `make demo` and `make test` do all set-up
# on a fresh machine (Go modules, Node packages such as Verdaccio).

GO        ?= go
BIN       := bin/spirit
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The commit and its time (not the time of the build, so that two builds of
# a commit are the same bytes); `spirit --version` prints them.
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE      ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
BUILDPKG  := github.com/spiritagents/spirit/internal/build
LDFLAGS   := -X $(BUILDPKG).Version=$(VERSION) -X $(BUILDPKG).Commit=$(COMMIT) -X $(BUILDPKG).Date=$(DATE)
FUZZTIME  ?= 10s
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Packages with concurrency: make test runs them under the race detector.
RACE_PKGS := ./exthost/... ./install/... ./mcp/... ./npm/... ./catalog/...

.PHONY: build test check e2e bench fuzz lint demo clean docs

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/spirit

# Every test: the code gates (make check), `go install …@version` from a
# local module proxy (scripts/test-goinstall.sh), unit, command, end-to-end
# (testscript over the real binary) and the npm end-to-end test against a real
# Verdaccio that the test starts; the packages with concurrency run under the
# race detector; then every fuzz target for a few seconds. The browser test
# of the marketplace site may not skip here (SPIRIT_REQUIRE_BROWSER).
test: export SPIRIT_REQUIRE_BROWSER = 1
test:
	bash scripts/test-deps.sh
	$(GO) mod download
	$(MAKE) --no-print-directory check
	bash scripts/test-goinstall.sh
	$(GO) test -count=1 -timeout 20m -race $(RACE_PKGS)
	$(GO) test -count=1 -timeout 20m $$($(GO) list ./... | grep -v -E '/(exthost|install|mcp|npm|catalog)(/|$$)')
	bash scripts/fuzz.sh 3s
	GO=$(GO) bash scripts/test-windows.sh

# The gates every change must pass: formatting, a tidy go.mod, go vet and
# staticcheck at a pinned version; build and vet for the six shipped targets.
check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	GO=$(GO) bash scripts/check-targets.sh

# Release files in dist/: an archive and a CycloneDX SBOM per target, the npm
# packages, checksums.txt; reproducible (internal/dist, docs/releasing.md).
# DIST_TARGETS=linux/amd64 makes one target only.
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
.PHONY: dist
dist:
	$(GO) run ./internal/dist -version '$(VERSION)' -targets '$(DIST_TARGETS)' -out dist

# Only the end-to-end tests (testscript and the real-registry tests).
e2e:
	$(GO) test -count=1 -timeout 20m -run 'TestScript|TestE2E' ./...

# Benchmarks: Go benchmarks, then every scripts/bench-*.sh (whole commands
# timed side by side with the tool they are compared with), then the
# README's table from that run (scripts/bench.sh; BENCH_README=1 rewrites it).
bench: build
	bash scripts/bench.sh

# Runs each fuzz target for FUZZTIME (10 s unless told otherwise).
fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

lint: check

# Builds spirit and runs its main jobs on the examples shipped in the repo, offline.
demo: build
	bash scripts/demo.sh

# The command reference, docs/reference/*.md and docs/man/*.1, from the cobra tree.
docs:
	$(GO) run ./internal/gendocs

clean:
	rm -rf bin dist
