# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
CHECK := --explicit-target-dependency-import-check error

.PHONY: deps run test build release bench bench-parse soak faults clean schema

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(CHECK)

release: deps
	$(SWIFT) build -c release $(CHECK) --product gatehouse

# Builds in release mode and runs the server (embedded PostgreSQL unless DATABASE_URL is set).
# Extra options: make run ARGS="--port 8080".
run: release
	.build/release/gatehouse serve $(ARGS)

# Re-embeds schema.graphql into the binary after editing it (a test fails if they differ).
schema:
	scripts/embed-schema.sh

# The whole test suite (CI runs exactly this).
test: deps
	$(SWIFT) build --build-tests $(CHECK)
	$(SWIFT) test --skip-build $(CHECK)

# Parser throughput against graphql-core; writes nothing, prints a table.
bench-parse: deps
	python3 -c "import graphql" 2>/dev/null || python3 -m pip install --quiet graphql-core
	$(SWIFT) build -c release --product ParseBench
	bench/parse.sh

# Load test against its limits (pgbench, raw argon2id, static HTTP); writes bench/RESULTS.md.
# BENCH_SECONDS=15 per run by default.
bench: deps
	bench/all.sh

# The mixed load for SOAK_SECONDS (600); fails on errors, RSS growth, fd or connection growth.
soak: deps
	bench/soak.sh

# PostgreSQL restart, SIGKILL and recovery, pool and hashing-queue exhaustion; ~3 minutes.
faults: deps
	bench/faults.sh
	bench/enumeration.sh

clean:
	rm -rf .build
