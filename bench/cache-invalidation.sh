#!/usr/bin/env bash
# Session-cache invalidation latency: two instances on one database (the second with
# DATABASE_URL to the first's embedded socket). For each of N sessions: viewer on B (cached),
# logOut through A, poll viewer on B until 209. Prints median/p99/max ms; exits 1 unless every
# one is within 50 ms.   INVALIDATION_N (100)
source "$(dirname "$0")/lib.sh"
N="${INVALIDATION_N:-100}"
ensure_tools
[ -n "${BIN:-}" ] || build_release gatehouse
BIN="$(swift build -c release --show-bin-path)"
new_dir; DIR="$NEW_DIR"
start_server "$DIR" /dev/null GATEHOUSE_HASH_COST=minimum
A_PID=$SERVER_PID A_URL=$SERVER_URL
start_server "$DIR/b" /dev/null GATEHOUSE_HASH_COST=minimum DATABASE_URL="$(pg_conninfo "$DIR")"
B_URL=$SERVER_URL
python3 "$ROOT/bench/client.py" seed "$A_URL" "$N" "$DIR/users.txt" 8 inv >&2
RES="$(python3 "$ROOT/bench/client.py" invalidation "$A_URL" "$B_URL" "$DIR/users.txt" "$N")"
echo "load average $(load_avg)" >&2
echo "$RES"
within="$(sed -n 's/.*within50=\([0-9]*\).*/\1/p' <<<"$RES")"
n="$(sed -n 's/^n=\([0-9]*\).*/\1/p' <<<"$RES")"
[ "$within" = "$n" ]
