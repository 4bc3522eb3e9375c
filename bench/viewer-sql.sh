#!/usr/bin/env bash
# Viewer lookup through the Postgres pool vs pgbench, on a fresh embedded cluster.
# Usage: bench/viewer-sql.sh [seconds per level, default 10]
# Builds PoolBench in release, seeds 2,000 users and sessions, runs 1, 16 and 64 threads/clients,
# prints a markdown table (level, ours q/s, pgbench q/s, ratio). Leaves no server running.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_LEVEL="${1:-10}"
swift build -c release --product PoolBench --explicit-target-dependency-import-check error
DATA_DIR="$(mktemp -d /tmp/ghbench-XXXXXX)"
trap 'rm -rf "$DATA_DIR"' EXIT
# Pool of at most 8 connections (4 per core here): the threads share it, as HTTP workers would.
# POOL_SIZE=0 gives one connection per thread, like pgbench's one per client.
"$(swift build -c release --show-bin-path)/PoolBench" --data-dir "$DATA_DIR" --seconds "$SECONDS_PER_LEVEL" --levels 1,16,64 --pool-size "${POOL_SIZE:-8}"
