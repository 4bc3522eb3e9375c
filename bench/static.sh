#!/usr/bin/env bash
# Static-response throughput of HTTPServer: builds StaticServer in release, runs
# wrk against it (wrk -t2 -c64 -d10s), prints requests/s and latency, stops it.
#     bench/static.sh [port]        (default 18080)
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${1:-18080}"

if ! command -v wrk >/dev/null; then
    apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi

swift build -c release --product StaticServer --explicit-target-dependency-import-check error
BIN="$(swift build -c release --show-bin-path)/StaticServer"

"$BIN" "$PORT" 2 &
SERVER=$!
trap 'kill -INT "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT

for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$PORT/" >/dev/null && break
    sleep 0.1
done
echo "keep-alive check:"
curl -sv "http://127.0.0.1:$PORT/" "http://127.0.0.1:$PORT/" 2>&1 | grep -E "Re-using existing connection" || echo "  NO connection reuse"

wrk -t2 -c64 -d10s --latency "http://127.0.0.1:$PORT/"
