#!/usr/bin/env bash
# logInWith with provider ID tokens beside viewer and logIn, in interleaved rounds: a Google-style
# provider (RS256) and an Apple-style one (ES256), both served by the local OpenID Connect provider
# of the tests (scripts/oidc_provider.py), each token's user created on first use. No argon2 hash
# is involved; the target is at least half the cached viewer rate. Beside them, the database's own
# ceiling for making sessions: pgbench (64 clients) inserting session rows alone, as a log-in's
# one write does, into the same cluster.
#   bench/loginwith.sh [rounds (3)] [seconds per run (8)]   BENCH_USERS_N (300)  TOKENS_N (500 per provider)
#   RESULTS=1  writes "## Third-party log-in (issue 18): logInWith" in bench/RESULTS.md.
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
N="${BENCH_USERS_N:-300}"
T="${TOKENS_N:-500}"
ensure_tools
build_release gatehouse
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT" "$DIR/oidc"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt" BENCH_TOKENS="$DIR/tokens.txt"

/usr/bin/python3 "$ROOT/scripts/oidc_provider.py" --dir "$DIR/oidc" >"$DIR/oidc/log" 2>&1 &
BENCH_PIDS+=($!)
for _ in $(seq 100); do [ -f "$DIR/oidc/port" ] && break; sleep 0.1; done
ISSUER="http://127.0.0.1:$(cat "$DIR/oidc/port")"
PROVIDERS="{\"google\": {\"issuer\": \"$ISSUER\", \"jwks_uri\": \"$ISSUER/jwks\", \"client_ids\": [\"test-client\"]},
  \"apple\": {\"issuer\": \"$ISSUER\", \"jwks_uri\": \"$ISSUER/jwks\", \"client_ids\": [\"test-client\"]}}"
start_server "$DIR" "${SERVER_LOG:-/dev/null}" GATEHOUSE_AUTH_PROVIDERS="$PROVIDERS"
log "seeding $N users; minting $T tokens per provider"
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" "$N" "$BENCH_USERS" 8
/usr/bin/python3 - "$ISSUER" "$T" >"$BENCH_TOKENS" <<'PY'
import http.client, json, sys, time
from urllib.parse import urlparse
u = urlparse(sys.argv[1]); c = http.client.HTTPConnection(u.hostname, u.port)
for provider, field, alg in (("google", "id_token", "RS256"), ("apple", "token", "ES256")):
    for i in range(int(sys.argv[2])):
        sub = f"{provider}-{i}"
        c.request("POST", "/mint", json.dumps({"claims": {"sub": sub, "exp": int(time.time()) + 3600}, "alg": alg}))
        r = c.getresponse(); token = r.read().decode().strip()
        assert r.status == 200, token
        if token.startswith("{"): token = json.loads(token)["token"]
        print(provider, field, sub, token)
PY
grep '^google' "$BENCH_TOKENS" >"$DIR/google.txt"; grep '^apple' "$BENCH_TOKENS" >"$DIR/apple.txt"

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    run_wrk_cpu "$OUT/viewer" 64 2 "$D" viewer.lua "$SERVER_URL"
    BENCH_TOKENS="$DIR/google.txt" run_wrk_cpu "$OUT/google" 64 2 "$D" loginwith.lua "$SERVER_URL"
    BENCH_TOKENS="$DIR/apple.txt" run_wrk_cpu "$OUT/apple" 64 2 "$D" loginwith.lua "$SERVER_URL"
    run_wrk_cpu "$OUT/login" 8 8 "$D" login.lua "$SERVER_URL"
    p="$(session_insert_ceiling "$DIR" "$D")"
    v="$(wrk_rps "$OUT/viewer")" g="$(wrk_rps "$OUT/google")" a="$(wrk_rps "$OUT/apple")" l="$(wrk_rps "$OUT/login")"
    e=0; for f in viewer google apple login; do e=$((e + $(wrk_errors "$OUT/$f"))); done
    echo "$v $g $a $l $e ${p:-0} $(cpu_per_request "$OUT/google" server) $(cpu_per_request "$OUT/google" database) $(cpu_per_request "$OUT/apple" server) $(cpu_per_request "$OUT/apple" database)" >>"$OUT/rounds"
    log "round $r: viewer $v req/s; logInWith RS256 $g ($(ratio "$g" "$v")), ES256 $a ($(ratio "$a" "$v")); logIn $l; session INSERTs alone (pgbench) $p/s ($(ratio "$p" "$v")); errors $e"
    for f in viewer google apple login; do
        log "  $f: CPU per request: server $(cpu_per_request "$OUT/$f" server) µs, database $(cpu_per_request "$OUT/$f" database) µs"
    done
    grep FIRST_ERROR "$OUT"/* >&2 || true
done
LOAD="$(load_avg)"
SUMMARY="$(python3 - "$OUT/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
v, g, a, l, p, gs, gd, as_, ad = (statistics.median(r[i] for r in rows) for i in (0, 1, 2, 3, 5, 6, 7, 8, 9))
rg = statistics.median(r[1] / r[0] for r in rows); ra = statistics.median(r[2] / r[0] for r in rows)
rp = statistics.median(r[5] / r[0] for r in rows)
print(f"{v:.0f} {g:.0f} {rg:.2f} {a:.0f} {ra:.2f} {l:.1f} {int(sum(r[4] for r in rows))} {len(rows)} {p:.0f} {rp:.2f} {gs:.0f} {gd:.0f} {as_:.0f} {ad:.0f}")
PY
)"
read -r V G RG A RA L E R P RP GS GD AS AD <<<"$SUMMARY"
echo "median of $R rounds: viewer $V req/s; logInWith RS256 $G ($RG of viewer), ES256 $A ($RA); logIn $L; session INSERTs alone $P/s ($RP); CPU per logInWith: RS256 server $GS µs + database $GD µs, ES256 $AS + $AD µs; errors $E (load $LOAD)"
if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo
        echo "## Third-party log-in (issue 18): logInWith"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`bench/loginwith.sh $ROUNDS $D\`: one release server, the local OpenID Connect"
        echo "provider of the tests as a Google-style (RS256) and an Apple-style (ES256) provider, $T tokens each (every"
        echo "token's user created by its first logInWith, logged in after), $N password users; 64 connections for viewer"
        echo "and logInWith, 8 for logIn (interactive hash cost); medians of $R interleaved rounds of ${D} s; load $LOAD."
        echo
        echo "| viewer (req/s) | logInWith RS256 | ÷ viewer | logInWith ES256 | ÷ viewer | logIn | session INSERTs alone (pgbench) | ÷ viewer | errors |"
        echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        echo "| $V | $G | **$RG** | $A | **$RA** | $L | $P | $RP | $E |"
        echo
        echo "CPU per logInWith (from /proc, medians): RS256 server $GS µs, database $GD µs; ES256 server $AS µs, database $AD µs."
    } >>"$ROOT/bench/RESULTS.md"
fi
[ "$E" = 0 ]
