#!/usr/bin/env bash
# Read scaling (GATEHOUSE_READ_DATABASE_URL): the viewer with the session cache off, so every
# request is a database lookup, on two servers side by side over the same primary: one reading
# from the primary only, one reading from a streaming standby (pg_basebackup -R of the primary).
# Interleaved rounds (the order alternates); per run: successful requests/s, p50/p99, and CPU
# per request of the server, the primary's processes and the standby's (from /proc). Then the
# standby server's batch counts from /metrics, which show who answered.
#   bench/read-scaling.sh [rounds (3)] [seconds per run (8)]   BENCH_USERS_N (500)
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
N="${BENCH_USERS_N:-500}"
seeded_server "$N"
stop_server "$SERVER_PID"
# The seeding server stopped its embedded cluster; start it on its own for the measured servers.
runuser -u gatehouse -- "$PGBIN/pg_ctl" -D "$DIR/pg" -l "$DIR/primary.log" -w start >/dev/null
PRIMARY="$(pg_conninfo "$DIR")"
start_standby "$DIR"

start_server "$DIR/p" /dev/null DATABASE_URL="$PRIMARY" GATEHOUSE_SESSION_CACHE=false
PRIMARY_PID=$SERVER_PID PRIMARY_URL=$SERVER_URL
start_server "$DIR/s" "$DIR/standby-server.log" DATABASE_URL="$PRIMARY" GATEHOUSE_READ_DATABASE_URL="$STANDBY" \
    GATEHOUSE_SESSION_CACHE=false
READ_PID=$SERVER_PID READ_URL=$SERVER_URL

# measure NAME PID URL: a viewer run, with CPU of the server, the primary and the standby.
measure() {
    local out="$OUT/$1" before_p before_s after_p after_s
    before_p="$(cpu_ms "$2" "$DIR")"; before_s="$(cpu_ms "$2" "$STANDBY_DIR")"
    run_wrk "$out" 64 2 "$D" viewer.lua "$3"
    after_p="$(cpu_ms "$2" "$DIR")"; after_s="$(cpu_ms "$2" "$STANDBY_DIR")"
    set -- $before_p $before_s $after_p $after_s
    echo "CPU server_ms=$(($5 - $1)) database_ms=$(($6 - $2)) standby_ms=$(($8 - $4))" >>"$out"
}
row() {  # row NAME: req/s p50 p99 server database standby (µs per request) errors
    echo "$(wrk_rps "$OUT/$1") $(wrk_pct "$OUT/$1" 50) $(wrk_pct "$OUT/$1" 99) $(cpu_per_request "$OUT/$1" server)" \
        "$(cpu_per_request "$OUT/$1" database) $(cpu_per_request "$OUT/$1" standby) $(wrk_errors "$OUT/$1")"
}

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then measure primary "$PRIMARY_PID" "$PRIMARY_URL"; measure standby "$READ_PID" "$READ_URL"
    else measure standby "$READ_PID" "$READ_URL"; measure primary "$PRIMARY_PID" "$PRIMARY_URL"; fi
    echo "$(row primary) $(row standby)" >>"$OUT/rounds"
    log "round $r (load $(load_avg)): primary only: $(row primary); with standby: $(row standby)"
    grep FIRST_ERROR "$OUT/primary" "$OUT/standby" >&2 || true
done
log "load average at end: $(load_avg)"
curl -s "http://127.0.0.1:$(echo "$READ_URL" | sed 's#.*:\([0-9]*\)/graphql#\1#')/metrics" | grep '^gatehouse_read_lookup' >&2 || true
grep -E '"read database' "$DIR/standby-server.log" >&2 || true
python3 - "$OUT/rounds" <<'PY'
import statistics, sys
rows = [[float(x) if x not in ("-", "") else 0.0 for x in l.split()] for l in open(sys.argv[1]) if l.strip()]
med = lambda i: statistics.median(r[i] for r in rows)
names = ["req/s", "p50 ms", "p99 ms", "server µs/req", "primary µs/req", "standby µs/req", "errors"]
print(f"median of {len(rows)} rounds (viewer, session cache off, 64 connections):")
for label, base in (("primary only", 0), ("with standby", 7)):
    print(f"  {label}: " + ", ".join(f"{n} {med(base + i):.{0 if i in (0, 3, 4, 5, 6) else 2}f}" for i, n in enumerate(names)))
PY
