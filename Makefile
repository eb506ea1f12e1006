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
# Each step of make test and make check prints "==> NAME" and, when it ends,
# its time and the time since make started (scripts/step.sh).
export STEP_T0 ?= $(shell date +%s.%N)
STEP := @bash scripts/step.sh

.PHONY: build test check e2e bench fuzz lint demo clean docs

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/spirit

# Every test: the code gates (make check), `go install …@version` from a
# local module proxy (scripts/test-goinstall.sh), unit, command, end-to-end
# (testscript over the real binary) and the npm end-to-end tests against a
# real Verdaccio that the tests start; the packages whose code is concurrent
# (scripts/race-pkgs.sh derives the list) run under the race detector and,
# side by side, the others without it, so no test runs twice
# (scripts/test-go.sh); then every fuzz target for a
# few seconds, and the Windows tests under Wine. The browser test of the
# marketplace site may not skip here (SPIRIT_REQUIRE_BROWSER).
test: export SPIRIT_REQUIRE_BROWSER = 1
test:
	$(STEP) "deps: system packages" bash scripts/test-deps.sh
	$(STEP) "deps: go mod download" $(GO) mod download
	@$(MAKE) --no-print-directory check
	$(STEP) "test: go install from a module proxy" bash scripts/test-goinstall.sh
	$(STEP) "test: go test, race and plain side by side" env GO=$(GO) bash scripts/test-go.sh
	$(STEP) "test: fuzz targets, 3 s each" bash scripts/fuzz.sh 3s
	$(STEP) "test: windows under wine" env GO=$(GO) bash scripts/test-windows.sh
	@bash scripts/step.sh --total "make test"

# The gates every change must pass: formatting, a tidy go.mod, staticcheck at
# a pinned version; go build and go vet for the six shipped targets (linux/amd64
# among them, so no separate vet of the host build, which differs from it only
# by cgo and would vet the same files again).
check:
	$(STEP) "check: gofmt" sh -c 'out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$out"; exit 1; fi'
	$(STEP) "check: go mod tidy" $(GO) mod tidy -diff
	$(STEP) "check: staticcheck" $(GO) run $(STATICCHECK) ./...
	$(STEP) "check: go build and go vet, six targets" env GO=$(GO) bash scripts/check-targets.sh

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
# table of docs/performance.md from that run (scripts/bench.sh; BENCH_DOC=1 rewrites it).
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
