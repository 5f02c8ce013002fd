# nodesim's two everyday commands: `make run` simulates a shipped scenario, `make test`
# passes the tests. Both need only Go (1.26+); modules download on first use.

GO       ?= go
BIN      := bin/nodesim
SCENARIO ?= scenarios/crashloop.yaml
ARGS     ?=

.PHONY: all build run test bench fuzz check-go clean

all: build

check-go:
	@command -v $(GO) >/dev/null 2>&1 || { echo "nodesim needs Go 1.26 or newer on PATH (https://go.dev/doc/install)" >&2; exit 2; }

# Quiet on stdout: `make run ARGS="-o json" | jq .` sees only nodesim's own output (go build
# writes nothing on success, and its errors go to stderr).
build: check-go
	@$(GO) build -o $(BIN) ./cmd/nodesim

# Simulate a shipped scenario: make run SCENARIO=scenarios/startup.yaml ARGS="-o json"
run: build
	@./$(BIN) run $(SCENARIO) $(ARGS)

# The browser tests of report.html need Chromium: the script installs it where it can and
# never fails (without it those tests skip).
test: check-go
	@sh scripts/ensure-chromium.sh
	$(GO) test ./...

# Speed and memory targets live here, never in timed test assertions. The workloads of the
# README's performance table are the scenarios under bench/; BENCHCOUNT=3 and benchstat give
# the table's medians.
BENCHCOUNT ?= 1
bench: check-go
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) -timeout 60m ./sim/ ./engine/ ./sweep/ ./internal/strictyaml/

# Fuzz the scenario loader, then whole runs under the invariant checker (FUZZTIME each,
# 10m by default).
FUZZTIME ?= 10m
fuzz: check-go
	$(GO) test ./scenarios -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -timeout 0
	$(GO) test ./engine -run '^$$' -fuzz '^FuzzRun$$' -fuzztime $(FUZZTIME) -timeout 0

clean:
	rm -rf bin
