#!/usr/bin/env bash
# The viewer against its limit, in interleaved rounds: pgbench running the viewer SQL (64 clients),
# then the server's viewer with the session cache on and off (64 connections, keep-alive).
# Prints one line per round and the medians, as ratios to pgbench. A quicker companion to
# make bench for work on the viewer path (fewer seeded users, no hashing runs).
#   bench/viewer.sh [rounds (3)] [seconds per run (8)]   BENCH_USERS_N (300)
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
N="${BENCH_USERS_N:-300}"
seeded_server "$N"
CACHED_PID=$SERVER_PID CACHED_URL=$SERVER_URL
CONNINFO="$(pg_conninfo "$DIR")"
start_server "$DIR/nocache" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_SESSION_CACHE=false
NOCACHE_PID=$SERVER_PID NOCACHE_URL=$SERVER_URL

mkdir -p "$DIR/pgb"
i=0
head -128 "$BENCH_USERS.digests" | while read -r d; do
    i=$((i + 1))
    echo "SELECT u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at, s.expires_at FROM sessions s JOIN users u ON u.object_id = s.user_id WHERE s.token_digest = '\\x$d'::bytea;" >"$DIR/pgb/s$i.sql"
done
PGB_ARGS=(); for f in "$DIR"/pgb/*.sql; do PGB_ARGS+=(-f "$f"); done

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    timeout $((D + 60)) "$PGBIN/pgbench" -n -M prepared -c 64 -j 2 -T "$D" "${PGB_ARGS[@]}" "$CONNINFO" >"$OUT/pgbench" 2>&1 || true
    pgb="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$OUT/pgbench" | head -1)"
    run_wrk "$OUT/on" 64 2 "$D" viewer.lua "$CACHED_URL"
    run_wrk "$OUT/off" 64 2 "$D" viewer.lua "$NOCACHE_URL"
    on="$(wrk_rps "$OUT/on")" off="$(wrk_rps "$OUT/off")"
    errors=$(( $(wrk_errors "$OUT/on") + $(wrk_errors "$OUT/off") ))
    echo "$pgb $on $off $errors" >>"$OUT/rounds"
    log "round $r: pgbench $pgb q/s; viewer cache on $on req/s ($(ratio "$on" "$pgb")), off $off req/s ($(ratio "$off" "$pgb")); errors $errors"
    grep FIRST_ERROR "$OUT/on" "$OUT/off" >&2 || true
done
log "load average at end: $(load_avg)"
python3 - "$OUT/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
pgb, on, off = (statistics.median(r[i] for r in rows) for i in range(3))
ron = statistics.median(r[1] / r[0] for r in rows); roff = statistics.median(r[2] / r[0] for r in rows)
print(f"median of {len(rows)} rounds: pgbench {pgb:.0f} q/s; viewer cache on {on:.0f} req/s ({ron:.2f}); "
      f"cache off {off:.0f} req/s ({roff:.2f}); errors {int(sum(r[3] for r in rows))}")
PY
