#!/usr/bin/env bash
# signUp and logIn at the minimum hash cost with the audit log on (the default) beside the same
# server with GATEHOUSE_AUDIT_LOG=off: in each round both servers take the same load at the same
# time (8 connections each), so both see the same machine; the ratios are of each side's CPU per
# request (its server's and its database's: what the rate of a saturated machine divides), and of
# the rates (target for both: at least 0.95). Then wrong-password log-ins on each server, a known
# name beside an unknown one (with the log on each writes its session.failed entry: the two must
# cost the same), and `gatehouse audit verify` over all of it.
#   bench/audit.sh [rounds (3)] [seconds per run (8)]   BENCH_USERS_N (300)
#   RESULTS=1  writes "## Audit log (issue 33)" in bench/RESULTS.md.
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
N="${BENCH_USERS_N:-300}"
ensure_tools
build_release gatehouse
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua"

start_server "$DIR/off" "${SERVER_LOG:-/dev/null}" GATEHOUSE_HASH_COST=minimum GATEHOUSE_AUDIT_LOG=off
OFF_URL=$SERVER_URL OFF_PID=$SERVER_PID OFF_DIR=$SERVER_DIR
start_server "$DIR/on" "${SERVER_LOG:-/dev/null}" GATEHOUSE_HASH_COST=minimum GATEHOUSE_AUDIT_LOG=on
ON_URL=$SERVER_URL ON_PID=$SERVER_PID ON_DIR=$SERVER_DIR
log "seeding $N users on each"
python3 "$ROOT/bench/client.py" seed "$OFF_URL" "$N" "$DIR/off-users.txt" 8
python3 "$ROOT/bench/client.py" seed "$ON_URL" "$N" "$DIR/on-users.txt" 8
# Statistics of the seeded tables now: a plan cached while users held a few rows scans them whole
# on every sign-up until autovacuum's next analyze, which a run of a minute may never see.
psqlq "$(pg_conninfo "$OFF_DIR")" "ANALYZE" >/dev/null
psqlq "$(pg_conninfo "$ON_DIR")" "ANALYZE" >/dev/null

# both NAME SCRIPT: the same load on both servers at once, each with its CPU appended.
both() {
    SERVER_PID=$OFF_PID SERVER_DIR=$OFF_DIR BENCH_USERS="$DIR/off-users.txt" \
        run_wrk_cpu "$OUT/$1-off" 8 1 "$D" "$2" "$OFF_URL" & local off=$!
    SERVER_PID=$ON_PID SERVER_DIR=$ON_DIR BENCH_USERS="$DIR/on-users.txt" \
        run_wrk_cpu "$OUT/$1-on" 8 1 "$D" "$2" "$ON_URL" & local on=$!
    wait "$off" "$on"
}
# CPU µs per request of a run, server + database.
cpu() { echo $(($(cpu_per_request "$OUT/$1" server) + $(cpu_per_request "$OUT/$1" database))); }

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    both signup signup.lua
    both login login.lua
    e=0; for f in signup-off signup-on login-off login-on; do e=$((e + $(wrk_errors "$OUT/$f"))); done
    row=""; for f in signup-off signup-on login-off login-on; do
        row="$row $(wrk_rps "$OUT/$f") $(cpu_per_request "$OUT/$f" server) $(cpu_per_request "$OUT/$f" database)"
    done
    echo "$e$row" >>"$OUT/rounds"
    log "round $r: signUp CPU/request $(cpu signup-off) → $(cpu signup-on) µs ($(ratio "$(cpu signup-off)" "$(cpu signup-on)")), rate $(ratio "$(wrk_rps "$OUT/signup-on")" "$(wrk_rps "$OUT/signup-off")");" \
        "logIn $(cpu login-off) → $(cpu login-on) µs ($(ratio "$(cpu login-off)" "$(cpu login-on)")), rate $(ratio "$(wrk_rps "$OUT/login-on")" "$(wrk_rps "$OUT/login-off")"); errors $e"
    grep FIRST_ERROR "$OUT"/* >&2 || true
done
LOAD="$(load_avg)"

# Wrong passwords on each server: a known name, then a name no account has.
wrong() {  # wrong SIDE known|unknown: "req/s p50"
    local side="$1" url pid dir
    if [ "$side" = off ]; then url=$OFF_URL pid=$OFF_PID dir=$OFF_DIR; else url=$ON_URL pid=$ON_PID dir=$ON_DIR; fi
    BENCH_WRONG="$2" SERVER_PID=$pid SERVER_DIR=$dir BENCH_USERS="$DIR/$side-users.txt" \
        run_wrk_cpu "$OUT/wrong-$2-$side" 16 2 "$D" wrong-password.lua "$url"
    echo "$(wrk_rps "$OUT/wrong-$2-$side") $(wrk_pct "$OUT/wrong-$2-$side" 50)"
}
read -r WKO_RPS WKO_P50 <<<"$(wrong off known)"
read -r WUO_RPS WUO_P50 <<<"$(wrong off unknown)"
read -r WK_RPS WRONG_KNOWN <<<"$(wrong on known)"
read -r WU_RPS WRONG_UNKNOWN <<<"$(wrong on unknown)"
WE=0; for f in wrong-known-off wrong-unknown-off wrong-known-on wrong-unknown-on; do WE=$((WE + $(wrk_errors "$OUT/$f"))); done

ENTRIES="$(psqlq "$(pg_conninfo "$ON_DIR")" "SELECT count(*) FROM audit_entries")"
VERIFY="$(env DATABASE_URL="$(pg_conninfo "$ON_DIR")" GATEHOUSE_SECRET_KEY="$BENCH_SECRET_KEY" "$BIN/gatehouse" audit verify 2>&1)"
VERIFIED=$?

SUMMARY="$(python3 - "$OUT/rounds" <<'PY'
import statistics, sys
# Per round: errors, then for signup-off, signup-on, login-off, login-on: req/s, server µs, database µs.
rows = [[float(v) for v in l.split()] for l in open(sys.argv[1]) if l.strip()]
med = lambda f: statistics.median(f(r) for r in rows)
out = []
for base in (1, 7):  # signUp, logIn
    off, on = base, base + 3
    out += [med(lambda r: r[off]), med(lambda r: r[on]), med(lambda r: r[on] / r[off]),
            med(lambda r: r[off + 1]), med(lambda r: r[off + 2]), med(lambda r: r[on + 1]), med(lambda r: r[on + 2]),
            med(lambda r: (r[off + 1] + r[off + 2]) / (r[on + 1] + r[on + 2]))]
print(" ".join(f"{v:.2f}" if i % 8 in (2, 7) else f"{v:.0f}" for i, v in enumerate(out)), int(sum(r[0] for r in rows)), len(rows))
PY
)"
read -r SO SN RS SOS SOD SNS SND CS LO LN RL LOS LOD LNS LND CL E R <<<"$SUMMARY"
echo "median of $R rounds, side by side: signUp CPU µs per request (server+database) $SOS+$SOD → $SNS+$SND with the audit log ($CS); logIn $LOS+$LOD → $LNS+$LND ($CL)"
echo "rates at the same time: signUp $SO → $SN req/s ($RS); logIn $LO → $LN ($RL); errors $E (load $LOAD)"
echo "wrong password, log off: known name $WKO_RPS req/s (p50 $WKO_P50 ms), unknown name $WUO_RPS req/s (p50 $WUO_P50 ms)"
echo "wrong password, log on: known name $WK_RPS req/s (p50 $WRONG_KNOWN ms), unknown name $WU_RPS req/s (p50 $WRONG_UNKNOWN ms); errors $WE"
echo "audit log: $ENTRIES entries; $VERIFY"
if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo
        echo "## Audit log (issue 33)"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`bench/audit.sh $ROUNDS $D\`: two release servers at the minimum hash cost, one"
        echo "with \`GATEHOUSE_AUDIT_LOG=off\`, loaded at the same time with 8 connections each; medians of $R rounds of ${D} s;"
        echo "load $LOAD. CPU per request is the server's + its database's (µs); ÷ is off over on."
        echo
        echo "| | CPU per request off | on | ÷ by CPU | req/s off | on | ÷ by rate |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        echo "| signUp | $SOS + $SOD | $SNS + $SND | **$CS** | $SO | $SN | $RS |"
        echo "| logIn | $LOS + $LOD | $LNS + $LND | **$CL** | $LO | $LN | $RL |"
        echo
        echo "Wrong passwords (with the log on, each writes its \`session.failed\` entry), req/s and p50 ms:"
        echo
        echo "| | known name | unknown name |"
        echo "| --- | ---: | ---: |"
        echo "| log off | $WKO_RPS ($WKO_P50) | $WUO_RPS ($WUO_P50) |"
        echo "| log on | $WK_RPS ($WRONG_KNOWN) | $WU_RPS ($WRONG_UNKNOWN) |"
        echo
        echo "\`gatehouse audit verify\` afterwards over $ENTRIES entries: \`$VERIFY\`."
    } >>"$ROOT/bench/RESULTS.md"
fi
[ "$E" = 0 ] && [ "$WE" = 0 ] && [ "$VERIFIED" = 0 ]
