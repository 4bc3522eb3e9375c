#!/usr/bin/env bash
# signUp and logIn at the minimum hash cost with the audit log on (the default) beside the same
# server with GATEHOUSE_AUDIT_LOG=off, in interleaved rounds, as ratios (the target: at least
# 0.95), with each side's CPU per request (the server's and its database's); then wrong-password
# log-ins on each server, a known name beside an unknown one (with the log on each writes its
# session.failed entry: the two must cost the same), and `gatehouse audit verify` over all of it.
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

# run SIDE NAME SCRIPT: one run against the side's server, with its CPU appended.
run() {
    local side="$1" name="$2" script="$3" url pid dir
    if [ "$side" = off ]; then url=$OFF_URL pid=$OFF_PID dir=$OFF_DIR; else url=$ON_URL pid=$ON_PID dir=$ON_DIR; fi
    SERVER_PID=$pid SERVER_DIR=$dir BENCH_USERS="$DIR/$side-users.txt" run_wrk_cpu "$OUT/$name-$side" 16 2 "$D" "$script" "$url"
}

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    run off signup signup.lua; run on signup signup.lua
    run off login login.lua; run on login login.lua
    so="$(wrk_rps "$OUT/signup-off")" sn="$(wrk_rps "$OUT/signup-on")"
    lo="$(wrk_rps "$OUT/login-off")" ln="$(wrk_rps "$OUT/login-on")"
    e=0; for f in signup-off signup-on login-off login-on; do e=$((e + $(wrk_errors "$OUT/$f"))); done
    cpu=""; for f in signup-off signup-on login-off login-on; do
        cpu="$cpu $(cpu_per_request "$OUT/$f" server) $(cpu_per_request "$OUT/$f" database)"
    done
    echo "$so $sn $lo $ln $e$cpu" >>"$OUT/rounds"
    log "round $r: signUp $so → $sn req/s ($(ratio "$sn" "$so")); logIn $lo → $ln ($(ratio "$ln" "$lo")); errors $e"
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
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
num = lambda v: float(v) if v not in ("-", "") else float("nan")
med = lambda i: statistics.median(num(r[i]) for r in rows)
rs = statistics.median(num(r[1]) / num(r[0]) for r in rows); rl = statistics.median(num(r[3]) / num(r[2]) for r in rows)
cpu = " ".join(f"{med(i):.0f}" for i in range(5, 13))
print(f"{med(0):.0f} {med(1):.0f} {rs:.2f} {med(2):.0f} {med(3):.0f} {rl:.2f} {int(sum(num(r[4]) for r in rows))} {len(rows)} {cpu}")
PY
)"
read -r SO SN RS LO LN RL E R SOS SOD SNS SND LOS LOD LNS LND <<<"$SUMMARY"
echo "median of $R rounds: signUp $SO → $SN req/s with the audit log ($RS); logIn $LO → $LN ($RL); errors $E (load $LOAD)"
echo "CPU µs per request (server+database): signUp $SOS+$SOD → $SNS+$SND; logIn $LOS+$LOD → $LNS+$LND"
echo "wrong password, log off: known name $WKO_RPS req/s (p50 $WKO_P50 ms), unknown name $WUO_RPS req/s (p50 $WUO_P50 ms)"
echo "wrong password, log on: known name $WK_RPS req/s (p50 $WRONG_KNOWN ms), unknown name $WU_RPS req/s (p50 $WRONG_UNKNOWN ms); errors $WE"
echo "audit log: $ENTRIES entries; $VERIFY"
if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo
        echo "## Audit log (issue 33)"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`bench/audit.sh $ROUNDS $D\`: two release servers at the minimum hash cost, one"
        echo "with \`GATEHOUSE_AUDIT_LOG=off\`, 16 connections; medians of $R interleaved rounds of ${D} s; load $LOAD."
        echo "CPU per request is the server's + its database's (µs)."
        echo
        echo "| | off (req/s) | on (req/s) | ÷ | CPU off | CPU on |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: |"
        echo "| signUp | $SO | $SN | **$RS** | $SOS + $SOD | $SNS + $SND |"
        echo "| logIn | $LO | $LN | **$RL** | $LOS + $LOD | $LNS + $LND |"
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
