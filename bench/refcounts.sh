#!/usr/bin/env bash
# Which objects do the server's threads share reference counts on? A diagnostic, not a test.
#
#   bench/refcounts.sh [lua script, default health.lua] [seconds, default 8]
#
# Starts a server (release build, fresh embedded database, 50 users for the scripts that
# need them) and a second instance on that database with bench/refcounts.c preloaded, drives
# the second with wrk -t2 -c64 and prints, per request, the reference-count operations on
# each object that two or more threads counted, most first. Each such operation takes a
# cache line from the other core; an object counted once per request on one thread only
# (the request's own) does not appear.
source "$(dirname "$0")/lib.sh"
SCRIPT="${1:-health.lua}"
D="${2:-8}"
ensure_tools
build_release gatehouse
# Any C compiler: the system's, or the clang that comes with Swift.
"${CC:-$(command -v cc || command -v clang)}" -O2 -shared -fPIC -o "$ROOT/.build/refcounts.so" "$ROOT/bench/refcounts.c" -ldl -lpthread

new_dir; DIR="$NEW_DIR"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt"
start_server "$DIR" "$DIR/main.log"
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" 50 "$BENCH_USERS" 8 >&2
OUT="$DIR/refcounts.out"
start_server "$DIR/counted" "$DIR/counted.log" DATABASE_URL="$(pg_conninfo "$DIR")" \
    LD_PRELOAD="$ROOT/.build/refcounts.so" REFCOUNTS_OUT="$OUT"
wrk -t2 -c64 -d2s -s "$BENCH_LUA/$SCRIPT" "$SERVER_URL" >/dev/null  # warm the caches
kill -USR1 "$SERVER_PID"
wrk -t2 -c64 -d"${D}s" -s "$BENCH_LUA/$SCRIPT" "$SERVER_URL" >"$DIR/wrk.txt"
kill -USR2 "$SERVER_PID"
for _ in $(seq 100); do [ -e "$OUT" ] && break; sleep 0.1; done
REQUESTS="$(sed -n 's/^RESULT.* requests=\([0-9]*\).*/\1/p' "$DIR/wrk.txt")"
[ -n "$REQUESTS" ] && [ "$REQUESTS" -gt 0 ] || { echo "no requests counted" >&2; cat "$DIR/wrk.txt" >&2; exit 1; }
echo "$REQUESTS requests of $SCRIPT; reference-count operations per request on objects several threads counted:"
sort -k2 -rn "$OUT" | awk -v n="$REQUESTS" '$2 / n >= 0.5 { printf "%6.1f  %s\n", $2 / n, substr($0, index($0, $3)) }'
awk -v n="$REQUESTS" '{ s += $2 } END { printf "%6.1f  in all\n", s / n }' "$OUT"
