#!/usr/bin/env bash
# GATEHOUSE_PASSWORD_BLOCKLIST: the cost of one check against a sorted 10-million-line SHA-1 file
# (about 470 MB, written to a temporary directory and deleted after). Builds BlocklistBench in
# release mode; prints its lines (mean and p99 per check, warm and with the page cache dropped).
#   LINES (default 10000000)  LOOKUPS (warm, default 200000)  COLD (default 200)
# Target: at most 1 ms per check.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product BlocklistBench --explicit-target-dependency-import-check error >&2
"$(swift build -c release --show-bin-path)/BlocklistBench" "${LINES:-10000000}" "${LOOKUPS:-200000}" "${COLD:-200}"
