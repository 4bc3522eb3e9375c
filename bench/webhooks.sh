#!/usr/bin/env bash
# signUp and logIn at the minimum hash cost with one webhook endpoint (every event type, a local
# receiver that verifies each delivery with the standardwebhooks library: scripts/webhook_receiver.py)
# beside the same server without webhooks, in interleaved rounds, as ratios; and the delivery lag
# (receipt minus the event's timestamp) p50/p99 under that load. The target: at least 0.9.
#   bench/webhooks.sh [rounds (3)] [seconds per run (8)]   BENCH_USERS_N (300)
#   RESULTS=1  writes "## Webhooks (issue 32)" in bench/RESULTS.md.
#   GATEHOUSE_BIN_DIR=DIR  measures DIR/gatehouse instead of building this tree's release binary.
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
