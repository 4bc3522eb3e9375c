#!/usr/bin/env bash
# signUp and logIn at the minimum hash cost with one webhook endpoint (every event type, a local
# receiver that verifies each delivery with the standardwebhooks library: scripts/webhook_receiver.py)
# beside the same server without webhooks, in interleaved rounds, as ratios; and the delivery lag
# (receipt minus the event's timestamp) p50/p99 under that load. The target: at least 0.9.
#   bench/webhooks.sh [rounds (3)] [seconds per run (8)]   BENCH_USERS_N (300)
#   RESULTS=1  writes "## Webhooks (issue 32)" in bench/RESULTS.md.
#   GATEHOUSE_BIN_DIR=DIR  measures DIR/gatehouse instead of building this tree's release binary.
#   CALLGRIND=SECONDS  instead: instructions per signUp and logIn of the server process (callgrind,
#     2 HTTP event threads, CALLGRIND_CONNECTIONS (8) connections), plain and hooked, in ROUNDS
#     runs of SECONDS each on one server process per variant (so what grows with the deliveries
#     made shows from round to round); BASE_REV=REV measures that commit's build first.
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
N="${BENCH_USERS_N:-300}"
SECRET="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
ensure_tools
if [ -n "${GATEHOUSE_BIN_DIR:-}" ]; then BIN="$GATEHOUSE_BIN_DIR"; else build_release gatehouse; fi
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT" "$DIR/receiver"
export BENCH_LUA="$ROOT/bench/lua"

/usr/bin/python3 "$ROOT/scripts/webhook_receiver.py" --dir "$DIR/receiver" --secret "$SECRET" >"$DIR/receiver/log" 2>&1 &
RECEIVER_PID=$!
BENCH_PIDS+=($RECEIVER_PID)
for _ in $(seq 100); do [ -f "$DIR/receiver/port" ] && break; sleep 0.1; done
[ -f "$DIR/receiver/port" ] || { cat "$DIR/receiver/log" >&2; exit 1; }
HOOKS="[{\"url\": \"http://127.0.0.1:$(cat "$DIR/receiver/port")/in\", \"secret\": \"$SECRET\", \"events\": [\"*\"]}]"

if [ -n "${CALLGRIND:-}" ]; then
    command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
    builds_to_measure
    callgrind_account "$DIR/runs"
    CONNS="${CALLGRIND_CONNECTIONS:-8}"
    # callgrind_server BINARY [env assignments...]: CG_PID and CG_URL of BINARY serving under
    # callgrind on the database DATABASE_URL names; CG_OUT is the prefix of its dumps.
    callgrind_server() {
        local bin="$1" port=$((20000 + RANDOM % 20000)); shift
        CG_OUT="$DIR/runs/cg.$RANDOM"
        env GATEHOUSE_SECRET_KEY="$BENCH_SECRET_KEY" GATEHOUSE_RATE_LIMIT_ADDRESS=0 GATEHOUSE_RATE_LIMIT_ACCOUNT=0 \
            GATEHOUSE_MAX_CONNECTIONS_PER_ADDRESS=100000 GATEHOUSE_HTTP_THREADS=2 GATEHOUSE_HASH_COST=minimum "$@" \
            "${AS_ACCOUNT[@]}" valgrind --tool=callgrind --callgrind-out-file="$CG_OUT.%p" "$bin" serve --port "$port" \
            >"$CG_OUT.stdout" 2>/dev/null &
        CG_PID=$! CG_URL="http://127.0.0.1:$port/graphql" CG_DUMPS=0
        BENCH_PIDS+=("$CG_PID")
        for _ in $(seq 600); do grep -q "listening on" "$CG_OUT.stdout" 2>/dev/null && break; sleep 0.2; done
    }
    # callgrind_run SCRIPT SECONDS: CG_RESULT, the instructions per request of the callgrind
    # server for SCRIPT (counters zeroed before, dumped after).
    callgrind_run() {
        local wrk="$CG_OUT.$CG_DUMPS.wrk"
        "${AS_ACCOUNT[@]}" callgrind_control -z "$CG_PID" >/dev/null 2>&1
        run_wrk "$wrk" "$CONNS" "$CONNS" "$2" "$1" "$CG_URL"
        "${AS_ACCOUNT[@]}" callgrind_control -d "$CG_PID" >/dev/null 2>&1
        CG_DUMPS=$((CG_DUMPS + 1))
        [ "$(wrk_errors "$wrk")" = 0 ] || { grep -E "FIRST_ERROR|Socket errors" "$wrk" >&2 || true; }
        CG_RESULT="$(awk -v n="$(wrk_field "$wrk" requests)" '/^(summary|totals):/ { printf "%.0f\n", $2 / n; exit }' "$CG_OUT.$CG_PID.$CG_DUMPS")"
    }
    # callgrind_warm SCRIPT: load until a run of 10 s serves 100 requests (the first requests under
    # valgrind translate the code they run, and initialize what is lazily initialized).
    callgrind_warm() {
        for _ in $(seq 6); do
            run_wrk "$CG_OUT.warm" "$CONNS" "$CONNS" 10 "$1" "$CG_URL"
            [ "$(wrk_field "$CG_OUT.warm" ok)" -ge 100 ] && return 0
        done
        log "warm-up of $1 under callgrind served $(wrk_field "$CG_OUT.warm" ok) requests in its last 10 s"
    }
    TABLE=()
    for build in "${BUILDS[@]}"; do
        label="${build%%|*}" BIN="${build#*|}"
        new_dir; DB="$NEW_DIR"
        # A plain server owns the embedded cluster; the measured servers use it through DATABASE_URL.
        SERVER_AS_ACCOUNT=1 start_server "$DB" /dev/null GATEHOUSE_HASH_COST=minimum
        OWNER_PID=$SERVER_PID
        export BENCH_USERS="$DB/users.txt"
        python3 "$ROOT/bench/client.py" seed "$SERVER_URL" 64 "$BENCH_USERS" 8
        declare -A COUNT=()
        for variant in plain hooked; do
            hooks=()
            [ "$variant" = hooked ] && hooks=(GATEHOUSE_WEBHOOKS="$HOOKS")
            callgrind_server "$BIN/gatehouse" DATABASE_URL="$(pg_conninfo "$DB")" "${hooks[@]}"
            callgrind_warm signup.lua
            callgrind_warm login.lua
            for r in $(seq "$ROUNDS"); do
                callgrind_run signup.lua "$D"; COUNT[$variant.signup.$r]="$CG_RESULT"
                callgrind_run login.lua "$D"; COUNT[$variant.login.$r]="$CG_RESULT"
                log "$label $variant round $r: signUp ${COUNT[$variant.signup.$r]}, logIn ${COUNT[$variant.login.$r]}"
            done
            stop_server "$CG_PID"
        done
        stop_server "$OWNER_PID"
        for r in $(seq "$ROUNDS"); do
            for request in signup login; do
                p="${COUNT[plain.$request.$r]}" h="${COUNT[hooked.$request.$r]}"
                TABLE+=("| $label | $request (round $r) | $p | $h | $((h - p)) |")
            done
        done
    done
    echo "Instructions per request of the server process (callgrind, $CONNS connections, $D s per run):"
    echo "| build | request | plain | with a webhook | added |"
    echo "| --- | --- | ---: | ---: | ---: |"
    printf '%s\n' "${TABLE[@]}"
    exit 0
fi

start_server "$DIR/plain" "${SERVER_LOG:-/dev/null}" GATEHOUSE_HASH_COST=minimum
PLAIN_URL=$SERVER_URL PLAIN_PID=$SERVER_PID
start_server "$DIR/hooked" "${SERVER_LOG:-/dev/null}" GATEHOUSE_HASH_COST=minimum GATEHOUSE_WEBHOOKS="$HOOKS"
HOOKED_URL=$SERVER_URL HOOKED_PID=$SERVER_PID
log "seeding $N users on each"
python3 "$ROOT/bench/client.py" seed "$PLAIN_URL" "$N" "$DIR/plain-users.txt" 8
python3 "$ROOT/bench/client.py" seed "$HOOKED_URL" "$N" "$DIR/hooked-users.txt" 8

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
# CPU of the receiver in milliseconds (utime+stime).
receiver_ms() { sed 's/.*) //' /proc/"$RECEIVER_PID"/stat | awk -v t="$(getconf CLK_TCK)" '{ printf "%d", ($12 + $13) * 1000 / t }'; }
# run: OUTFILE plain|hooked SCRIPT: wrk with the server's, its database's and the receiver's CPU appended.
run() {
    local users="$DIR/$2-users.txt" url="$PLAIN_URL" before
    SERVER_PID=$PLAIN_PID SERVER_DIR="$DIR/plain"
    [ "$2" = hooked ] && url="$HOOKED_URL" SERVER_PID=$HOOKED_PID SERVER_DIR="$DIR/hooked"
    before="$(receiver_ms)"
    BENCH_USERS="$users" run_wrk_cpu "$1" 16 2 "$D" "$3" "$url"
    echo "CPU receiver_ms=$(($(receiver_ms) - before))" >>"$1"
}
for r in $(seq "$ROUNDS"); do
    run "$OUT/signup-plain" plain signup.lua
    run "$OUT/signup-hooked" hooked signup.lua
    run "$OUT/login-plain" plain login.lua
    run "$OUT/login-hooked" hooked login.lua
    for f in signup-plain signup-hooked login-plain login-hooked; do
        log "  $f: CPU per request (µs): server $(cpu_per_request "$OUT/$f" server), database $(cpu_per_request "$OUT/$f" database), receiver $(cpu_per_request "$OUT/$f" receiver)"
    done
    sp="$(wrk_rps "$OUT/signup-plain")" sh="$(wrk_rps "$OUT/signup-hooked")"
    lp="$(wrk_rps "$OUT/login-plain")" lh="$(wrk_rps "$OUT/login-hooked")"
    e=0; for f in signup-plain signup-hooked login-plain login-hooked; do e=$((e + $(wrk_errors "$OUT/$f"))); done
    echo "$sp $sh $lp $lh $e" >>"$OUT/rounds"
    log "round $r: signUp $sp → $sh req/s ($(ratio "$sh" "$sp")); logIn $lp → $lh ($(ratio "$lh" "$lp")); errors $e"
    grep FIRST_ERROR "$OUT"/* >&2 || true
done
LOAD="$(load_avg)"
# The deliveries of the last run drain; then the lag of every delivery.
for _ in $(seq 600); do
    pending="$(curl -s "${HOOKED_URL%/graphql}/metrics" | sed -n 's/^gatehouse_webhook_pending \([0-9]*\).*/\1/p')"
    [ "${pending:-1}" = 0 ] && break; sleep 0.5
done
SUMMARY="$(python3 - "$OUT/rounds" "$DIR/receiver/requests.jsonl" <<'PY'
import datetime, json, statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
rs = statistics.median(r[1] / r[0] for r in rows); rl = statistics.median(r[3] / r[2] for r in rows)
sp, sh, lp, lh = (statistics.median(r[i] for r in rows) for i in range(4))
lags, bad = [], 0
for line in open(sys.argv[2]):
    d = json.loads(line)
    if not d["verified"]: bad += 1; continue
    t = datetime.datetime.fromisoformat(d["body"]["timestamp"].replace("Z", "+00:00")).timestamp()
    lags.append((d["received"] - t) * 1000)
lags.sort()
p = lambda q: lags[min(len(lags) - 1, int(q * len(lags)))] if lags else 0
print(f"{sp:.0f} {sh:.0f} {rs:.2f} {lp:.0f} {lh:.0f} {rl:.2f} {int(sum(r[4] for r in rows))} {len(rows)} {len(lags)} {p(0.5):.0f} {p(0.99):.0f} {bad}")
PY
)"
read -r SP SH RS LP LH RL E R COUNT P50 P99 BAD <<<"$SUMMARY"
echo "median of $R rounds: signUp $SP → $SH req/s with a webhook endpoint ($RS); logIn $LP → $LH ($RL); $COUNT deliveries, lag p50 $P50 ms, p99 $P99 ms; unverified $BAD; errors $E (load $LOAD)"
if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo
        echo "## Webhooks (issue 32)"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`bench/webhooks.sh $ROUNDS $D\`: two release servers at the minimum hash cost, one"
        echo "with a webhook endpoint taking every event (a local receiver verifying each delivery with the standardwebhooks"
        echo "library), 16 connections; medians of $R interleaved rounds of ${D} s; load $LOAD."
        echo
        echo "| signUp (req/s) | with a webhook | ÷ | logIn | with a webhook | ÷ | deliveries | lag p50 (ms) | lag p99 (ms) | errors |"
        echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        echo "| $SP | $SH | **$RS** | $LP | $LH | **$RL** | $COUNT | $P50 | $P99 | $E |"
    } >>"$ROOT/bench/RESULTS.md"
fi
[ "$E" = 0 ] && [ "$BAD" = 0 ]
