#!/usr/bin/env bash
# logInWithPasskey beside viewer and logIn, in interleaved rounds, and the cost of a TOTP check.
# Passkeys: PasskeyBench registers users with a software authenticator's P-256 passkey and signs
# one assertion per request ahead (each over its own single-use challenge); wrk sends each once.
# No argon2 hash is involved; the target is at least half the cached viewer rate. Beside them,
# the database's own ceiling for making sessions (session_insert_ceiling in lib.sh).
#   bench/passkey.sh [rounds (3)] [seconds per run (8)]   PASSKEY_USERS (50)  BODIES (per run; 40000)
#   RESULTS=1  writes "## Passkeys and TOTP (issue 19)" in bench/RESULTS.md.
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
U="${PASSKEY_USERS:-50}"
B="${BODIES:-40000}"
ensure_tools
build_release gatehouse PasskeyBench TOTPBench
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt" BENCH_THREADS=2

start_server "$DIR" "${SERVER_LOG:-/dev/null}"
log "seeding 50 password users"
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" 50 "$BENCH_USERS" 8
log "registering $U passkeys; signing $ROUNDS × $B assertions"
files=(); for r in $(seq "$ROUNDS"); do files+=("$DIR/bodies.$r"); done
BENCH_ORIGIN="http://localhost:$SERVER_PORT" "$BIN/PasskeyBench" "$SERVER_PORT" "$U" "$B" "${files[@]}"

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    run_wrk_cpu "$OUT/viewer" 64 2 "$D" viewer.lua "$SERVER_URL"
    BENCH_BODIES="$DIR/bodies.$r" run_wrk_cpu "$OUT/passkey" 64 2 "$D" passkey.lua "$SERVER_URL"
    run_wrk_cpu "$OUT/login" 8 8 "$D" login.lua "$SERVER_URL"
    c="$(session_insert_ceiling "$DIR" "$D")"
    v="$(wrk_rps "$OUT/viewer")" p="$(wrk_rps "$OUT/passkey")" l="$(wrk_rps "$OUT/login")"
    sent="$(wrk_field "$OUT/passkey" requests)"
    [ "${sent:-0}" -le "$B" ] || log "round $r sent $sent logInWithPasskey requests, more than the $B bodies: raise BODIES"
    e=0; for f in viewer passkey login; do e=$((e + $(wrk_errors "$OUT/$f"))); done
    echo "$v $p $l $e $(cpu_per_request "$OUT/passkey" server) $(cpu_per_request "$OUT/passkey" database) $(cpu_per_request "$OUT/viewer" server) ${c:-0}" >>"$OUT/rounds"
    log "round $r: viewer $v req/s; logInWithPasskey $p ($(ratio "$p" "$v")); logIn $l; session INSERTs alone (pgbench) $c/s ($(ratio "$c" "$v")); errors $e"
    for f in viewer passkey login; do
        log "  $f: CPU per request: server $(cpu_per_request "$OUT/$f" server) µs, database $(cpu_per_request "$OUT/$f" database) µs"
    done
    grep FIRST_ERROR "$OUT"/* >&2 || true
done
LOAD="$(load_avg)"
TOTP="$("$BIN/TOTPBench")"
SUMMARY="$(python3 - "$OUT/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
med = lambda i: statistics.median(r[i] for r in rows)
ratio = statistics.median(r[1] / r[0] for r in rows)
ceiling = statistics.median(r[7] / r[0] for r in rows)
print(f"{med(0):.0f} {med(1):.0f} {ratio:.2f} {med(2):.1f} {int(sum(r[3] for r in rows))} {med(4):.0f} {med(5):.0f} {med(6):.0f} {len(rows)} {med(7):.0f} {ceiling:.2f}")
PY
)"
read -r V P RP L E PS PD VS R C RC <<<"$SUMMARY"
echo "median of $R rounds: viewer $V req/s; logInWithPasskey $P ($RP of viewer); logIn $L; session INSERTs alone $C/s ($RC); errors $E; passkey CPU per request: server $PS µs, database $PD µs (viewer: server $VS µs); TOTP check: $TOTP (load $LOAD)"
if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo
        echo "## Passkeys and TOTP (issue 19): logInWithPasskey, a TOTP check"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`bench/passkey.sh $ROUNDS $D\`: one release server; $U users with a P-256 passkey"
        echo "(software authenticator, counter 0), every logInWithPasskey over its own challenge signed ahead; 64"
        echo "connections for viewer and logInWithPasskey, 8 for logIn (interactive hash cost); medians of $R interleaved"
        echo "rounds of ${D} s; load $LOAD. CPU per request from /proc (server process; its PostgreSQL's processes)."
        echo
        echo "| viewer (req/s) | logInWithPasskey | ÷ viewer | logIn | session INSERTs alone (pgbench) | ÷ viewer | errors | passkey CPU: server µs | database µs | viewer server µs |"
        echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        echo "| $V | $P | **$RP** | $L | $C | $RC | $E | $PS | $PD | $VS |"
        echo
        echo "A TOTP check (\`TOTPBench\`: unseal the secret, verify a code over the ±1 step window; then one conditional UPDATE): $TOTP."
    } >>"$ROOT/bench/RESULTS.md"
fi
