# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
CHECK := --explicit-target-dependency-import-check error

.PHONY: deps test build release bench bench-parse clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build $(CHECK)

release: deps
	$(SWIFT) build -c release $(CHECK)

# The whole test suite (CI runs exactly this).
test: deps
	@scripts/install-deps.sh --test
	$(SWIFT) build --build-tests $(CHECK)
	$(SWIFT) test --skip-build $(CHECK)

# Parser throughput against graphql-core; writes nothing, prints a table.
bench-parse: deps
	python3 -c "import graphql" 2>/dev/null || python3 -m pip install --quiet graphql-core
	$(SWIFT) build -c release --product ParseBench
	bench/parse.sh

clean:
	rm -rf .build
