# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
CHECK := --explicit-target-dependency-import-check error

.PHONY: deps run test build release bench bench-compare bench-parse bench-engine conformance soak faults ha clean fuzz fuzz-build

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

# The whole test suite (CI runs exactly this). The test packages include chromium, for the
# browser tests of the pages (screenshots in .build/screenshots/).
test:
	@scripts/install-deps.sh --test
	$(SWIFT) build --build-tests $(CHECK)
	$(SWIFT) test --skip-build $(CHECK)

# Parser throughput against graphql-core; writes nothing, prints a table.
bench-parse: deps
	python3 -c "import graphql" 2>/dev/null || python3 -m pip install --quiet graphql-core
	$(SWIFT) build -c release --product ParseBench
	bench/parse.sh

# The engine against graphql-core on conformance/corpus.jsonl (parse, validation,
# execution), the introspection round trip of the engine tests' schema
# (Tests/GraphQLTests/Fixtures/golden-schema.graphql) and the goldens conformance/golden.py
# writes from it; fails on any difference.
conformance:
	python3 -c "import graphql" 2>/dev/null || python3 -m pip install --quiet graphql-core==3.2.8
	$(SWIFT) build $(CHECK) --product ConformanceRunner
	python3 conformance/run.py .build/debug/ConformanceRunner
	python3 conformance/golden.py --check

# Engine throughput (parse + validate + execute) against graphql-core; prints a table.
bench-engine:
	python3 -c "import graphql" 2>/dev/null || python3 -m pip install --quiet graphql-core==3.2.8
	bench/engine.sh

# libFuzzer + AddressSanitizer (LeakSanitizer included) on six targets, built outside
# SwiftPM into .build/fuzz (the normal build is untouched); see Fuzz/README.md.
# Each runs FUZZ_SECONDS (default 600); exits non-zero on a crash, leak, timeout or OOM.
# Short run: make fuzz FUZZ_SECONDS=60. One target: make fuzz FUZZ_TARGETS=json.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= lexer-parser validate-execute json http-request jwt cbor-cose
fuzz-build: deps
	Fuzz/build.sh $(FUZZ_TARGETS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh $(FUZZ_TARGETS)

# Load test against its limits (pgbench, raw argon2id, static HTTP); writes bench/RESULTS.md.
# BENCH_SECONDS=15 per run by default. Then mail delivery, the capacity model's CPU per operation
# and read scaling on a standby (these print their figures).
bench: deps
	bench/all.sh
	bench/mail.sh
	bench/capacity.sh
	bench/read-scaling.sh

# The working tree's server against BASE's, in interleaved rounds on one database; prints a table
# (writes no file unless COMPARE_OUT is set). make bench-compare BASE=HEAD~1 [ROUNDS=5 BENCH_SECONDS=8].
bench-compare: deps
	@[ -n "$(BASE)" ] || { echo "usage: make bench-compare BASE=<rev>" >&2; exit 2; }
	bench/compare.sh "$(BASE)"

# The mixed load for SOAK_SECONDS (600); fails on errors, RSS growth, fd or connection growth.
soak: deps
	bench/soak.sh

# PostgreSQL restart, SIGKILL and recovery, pool and hashing-queue exhaustion; ~3 minutes.
faults: deps
	bench/faults.sh
	bench/enumeration.sh

# High availability: two instances on a Patroni pair (etcd, synchronous_mode) behind HAProxy and
# with a multi-host DATABASE_URL, under a mixed load; SIGKILL of the postmaster, of the whole
# node, a switchover; checks every acknowledged write (scripts/ha/run). As root; ~8 minutes.
# One fault or route: make ha HA_RUNS=node HA_ROUTES=haproxy. Reports in .build/ha/.
ha:
	scripts/ha/run

clean:
	rm -rf .build
