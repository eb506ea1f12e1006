# spirit — every task of the project. `make demo` and `make test` do all set-up
# on a fresh machine (Go modules, Node packages such as Verdaccio).

GO        ?= go
BIN       := bin/spirit
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/spiritagents/spirit/internal/build.Version=$(VERSION)
FUZZTIME  ?= 10s

.PHONY: build test e2e bench fuzz lint demo clean

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/spirit

# Every test: unit, command, end-to-end (testscript over the real binary),
# and the npm end-to-end test against a real Verdaccio that the test starts.
test:
	bash scripts/test-deps.sh
	$(GO) mod download
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

# Only the end-to-end tests (testscript and the real-registry tests).
e2e:
	$(GO) test -count=1 -timeout 20m -run 'TestScript|TestE2E' ./...

# Benchmarks: Go benchmarks, then every scripts/bench-*.sh (whole commands
# timed side by side with the tool they are compared with).
bench: build
	$(GO) test -p 1 -run '^$$' -bench . -benchmem -cpu 1 ./...
	@for s in scripts/bench-*.sh; do [ -f "$$s" ] || continue; echo "== $$s"; bash "$$s" || exit 1; done

# Runs each fuzz target for FUZZTIME (10 s unless told otherwise).
fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

lint:
	$(GO) vet ./...
	@command -v staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@latest
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck ./...

# Builds spirit and runs its main jobs on the examples shipped in the repo, offline.
demo: build
	bash scripts/demo.sh

clean:
	rm -rf bin
