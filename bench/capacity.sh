#!/usr/bin/env bash
# The capacity model's figures: CPU per operation of the server and of its database (from /proc,
# so contention on a shared machine changes them little), for the viewer with the session cache
# (hit) and without it (miss), log-in and sign-up, and log-out. Log-in and sign-up run twice:
# at the production argon2id cost (the server's CPU; a few per second here, too few for the
# database's share to stand out from its background) and, on a second server over the same
# database, at the minimum cost with its own users (`_min`: the database's CPU, which the cost
# does not change). Interleaved rounds; an idle run of the same length first measures the
# database's own background CPU, which the summary subtracts. docs/operations.md ("Capacity")
# turns these into a model.
#   bench/capacity.sh [rounds (3)] [seconds per run (8)]   BENCH_USERS_N (500)
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
N="${BENCH_USERS_N:-500}"
seeded_server "$N"
CACHED_PID=$SERVER_PID CACHED_URL=$SERVER_URL
export BENCH_TOKENS="$DIR/logout.txt"
CONNINFO="$(pg_conninfo "$DIR")"
start_server "$DIR/nocache" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_SESSION_CACHE=false
NOCACHE_PID=$SERVER_PID NOCACHE_URL=$SERVER_URL
start_server "$DIR/min" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_HASH_COST=minimum
MIN_PID=$SERVER_PID MIN_URL=$SERVER_URL
python3 "$ROOT/bench/client.py" seed "$MIN_URL" "$N" "$DIR/users-min.txt" 8 m

# Sessions to log out: more than the runs can use, made in SQL as copies of the seeded ones.
M=$((ROUNDS * D * 5000))
log "making $M sessions to log out"
logout_sessions "$BENCH_USERS" "$M" "$BENCH_TOKENS" "$CONNINFO"

# measure NAME PID CONNS THREADS SCRIPT URL: a run with the CPU of the server and the database.
measure() {
    local name="$1" pid="$2"; shift 2
    SERVER_PID="$pid" SERVER_DIR="$DIR" run_wrk_cpu "$OUT/$name" "$1" "$2" "$D" "$3" "$4"
}
idle() {  # the database's CPU over D seconds with no requests
    local before after; before="$(cpu_ms "$CACHED_PID" "$DIR")"; sleep "$D"; after="$(cpu_ms "$CACHED_PID" "$DIR")"
    set -- $before $after; echo $(($4 - $2))
}
OPS="viewer_hit viewer_miss login signup login_min signup_min logout"
log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    idle_ms="$(idle)"
    order="$OPS"; [ $((r % 2)) = 0 ] && order="$(echo $OPS | tr ' ' '\n' | tac | tr '\n' ' ')"
    for op in $order; do
        case $op in
            viewer_hit) measure $op "$CACHED_PID" 64 2 viewer.lua "$CACHED_URL" ;;
            viewer_miss) measure $op "$NOCACHE_PID" 64 2 viewer.lua "$NOCACHE_URL" ;;
            login) measure $op "$CACHED_PID" 8 8 login.lua "$CACHED_URL" ;;
            signup) BENCH_RUN="c$r" measure $op "$CACHED_PID" 8 8 signup.lua "$CACHED_URL" ;;
            login_min) BENCH_USERS="$DIR/users-min.txt" measure $op "$MIN_PID" 8 8 login.lua "$MIN_URL" ;;
            signup_min) BENCH_RUN="m$r" measure $op "$MIN_PID" 8 8 signup.lua "$MIN_URL" ;;
            logout) BENCH_THREADS=8 measure $op "$CACHED_PID" 8 8 logout.lua "$CACHED_URL" ;;
        esac
        grep FIRST_ERROR "$OUT/$op" >&2 || true
    done
    line="$idle_ms"
    for op in $OPS; do
        line="$line $op $(wrk_field "$OUT/$op" ok) $(sed -n 's/^CPU server_ms=\([0-9]*\) database_ms=\([0-9]*\)/\1 \2/p' "$OUT/$op") $(wrk_errors "$OUT/$op")"
    done
    echo "$line" >>"$OUT/rounds"
    log "round $r (load $(load_avg)): idle database ${idle_ms} ms; $(for op in $OPS; do
        echo -n "$op $(wrk_rps "$OUT/$op")/s server $(cpu_per_request "$OUT/$op" server) µs database $(cpu_per_request "$OUT/$op" database) µs; "; done)"
done
log "load average at end: $(load_avg)"
python3 - "$OUT/rounds" "$D" <<'PY'
import statistics, sys
seconds = float(sys.argv[2])
rounds = []
for line in open(sys.argv[1]):
    f = line.split()
    if not f: continue
    idle, ops = float(f[0]), {}
    for i in range(1, len(f), 5):
        ops[f[i]] = tuple(float(x) for x in f[i + 1:i + 5])  # ok, server_ms, database_ms, errors
    rounds.append((idle, ops))
idle = statistics.median(r[0] for r in rounds)
print(f"median of {len(rounds)} rounds, {seconds:.0f} s runs; idle database CPU {idle:.0f} ms per run (subtracted)")
print("| operation | per s | Gatehouse CPU µs/op | database CPU µs/op | errors |")
print("| --- | --- | --- | --- | --- |")
for op in rounds[0][1]:
    rate = statistics.median(r[1][op][0] / seconds for r in rounds)
    server = statistics.median(r[1][op][1] * 1000 / max(1, r[1][op][0]) for r in rounds)
    database = statistics.median(max(0, r[1][op][2] - r[0]) * 1000 / max(1, r[1][op][0]) for r in rounds)
    errors = sum(r[1][op][3] for r in rounds)
    print(f"| {op} | {rate:.0f} | {server:.0f} | {database:.0f} | {errors:.0f} |")
PY
