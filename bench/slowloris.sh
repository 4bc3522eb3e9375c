#!/usr/bin/env bash
# Slow-loris (issue 16): one loopback address (127.0.0.2) opens ATTEMPTS trickling connections
# (a header byte a second each, reopened when closed) while an honest client on 127.0.0.1 sends
# `{ health }` on a new connection every 20 ms (bench/slowloris.py). Three runs on the release
# server: no attack; the attack against the defaults (32 connections per address, 15 s request
# deadline); the attack with both off (cap 100000, deadline 3600 s), as before they existed.
# Prints a Markdown table of the honest client's latency and failures and what the attacker held.
#   bench/slowloris.sh [seconds per run (25)] [attempts (1000)]
source "$(dirname "$0")/lib.sh"
D="${1:-25}"
ATTEMPTS="${2:-1000}"
ulimit -n 8192  # the attacker's sockets and the server's
build_release gatehouse
new_dir; DIR="$NEW_DIR"

start_server "$DIR" /dev/null GATEHOUSE_MAX_CONNECTIONS_PER_ADDRESS=32 GATEHOUSE_REQUEST_TIMEOUT=15
GUARDED_PORT=$SERVER_PORT
CONNINFO="$(pg_conninfo "$DIR")"
start_server "$DIR/open" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_MAX_CONNECTIONS_PER_ADDRESS=100000 GATEHOUSE_REQUEST_TIMEOUT=3600
OPEN_PORT=$SERVER_PORT

log "no attack ($D s)"
quiet="$(python3 "$ROOT/bench/slowloris.py" "$GUARDED_PORT" "$D")"
log "attack, defaults ($ATTEMPTS connections, $D s)"
guarded="$(python3 "$ROOT/bench/slowloris.py" "$GUARDED_PORT" "$D" "$ATTEMPTS")"
log "attack, cap and deadline off ($ATTEMPTS connections, $D s)"
open="$(python3 "$ROOT/bench/slowloris.py" "$OPEN_PORT" "$D" "$ATTEMPTS")"

row() {  # row LABEL JSON
    python3 -c '
import json, sys
r = json.loads(sys.argv[2])
f = lambda v: "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (sys.argv[1], f(r["requests"]), f(r["failures"]),
      f(r["p50_ms"]), f(r["p99_ms"]), f(r.get("held_median")), f(r.get("held_max")), f(r.get("refused")), f(r.get("cut"))))
' "$1" "$2"
}
echo "| run | honest requests | failed | p50 ms | p99 ms | attacker held (median) | held (most) | attacker refused | cut by deadline |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
row "no attack" "$quiet"
row "attack, 32 per address, 15 s deadline" "$guarded"
row "attack, cap and deadline off" "$open"
