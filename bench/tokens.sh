#!/usr/bin/env bash
# Access tokens (issue 30): `viewer { accessToken { token } }` beside the cached `viewer` on the
# same sessions, then the key set and the discovery document beside `{ health }`, in interleaved
# rounds (each pair's order alternates between rounds, so the machine's drift falls on both), on
# one release server with the session cache on (64 connections, keep-alive). First `openssl speed`
# of ECDSA P-256 on the same machine: what one signature costs, which a token adds to the viewer.
# Prints each round and the medians: rates, the ratio the contract sets (tokens at least 0.4 of
# the viewer), and the server's CPU per request (which depends less on the machine's other load).
#   bench/tokens.sh [rounds (3)] [seconds per run (5)]   BENCH_USERS_N (200)
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-5}"
N="${BENCH_USERS_N:-200}"

log "openssl speed -seconds 3 ecdsap256"
openssl speed -seconds 3 ecdsap256 2>/dev/null | grep -E "^ *256 bits ecdsa" | tee /dev/stderr \
    | awk '{ printf "openssl ecdsap256: %s sign/s, %s verify/s\n", $(NF-1), $NF }' >"${TMPDIR:-/tmp}/ghb-openssl.$$"
OPENSSL="$(cat "${TMPDIR:-/tmp}/ghb-openssl.$$")"; rm -f "${TMPDIR:-/tmp}/ghb-openssl.$$"

seeded_server "$N"
BASE="${SERVER_URL%/graphql}"
log "load average at start: $(load_avg)"
# Every session cached and the key in memory before the rounds.
run_wrk "$OUT/warmup" 64 2 2 token.lua "$SERVER_URL"

run() {  # run NAME SCRIPT URL [EXPECT]: one run of round $r, its output (and the CPU spent) in $OUT/NAME.$r
    BENCH_EXPECT="${4:-}" run_wrk_cpu "$OUT/$1.$r" 64 2 "$D" "$2" "$3"
}

: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then
        run viewer viewer.lua "$SERVER_URL"; run token token.lua "$SERVER_URL"
    else
        run token token.lua "$SERVER_URL"; run viewer viewer.lua "$SERVER_URL"
    fi
    run health health.lua "$SERVER_URL"
    run jwks get.lua "$BASE/.well-known/jwks.json" '"keys":[{"kty":"EC"'
    run discovery get.lua "$BASE/.well-known/openid-configuration" '"jwks_uri"'

    line=""; cpu=""; errors=0
    for k in viewer token health jwks discovery; do
        line="$line $(wrk_rps "$OUT/$k.$r")"
        cpu="$cpu $(cpu_per_request "$OUT/$k.$r" server)"
        errors=$((errors + $(wrk_errors "$OUT/$k.$r")))
        grep FIRST_ERROR "$OUT/$k.$r" >&2 || true
    done
    echo "$line $errors$cpu" >>"$OUT/rounds"
    set -- $line
    log "round $r: viewer $1, token $2 ($(ratio "$2" "$1")); health $3, jwks $4 ($(ratio "$4" "$3")), discovery $5 ($(ratio "$5" "$3")) req/s; errors $errors; server CPU µs a request:$cpu"
done
log "load average at end: $(load_avg)"
echo "$OPENSSL"
python3 - "$OUT/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
med = [statistics.median(r[i] for r in rows) for i in range(5)]
token_ratio = statistics.median(r[1] / r[0] for r in rows)
jwks_ratio = statistics.median(r[3] / r[2] for r in rows)
discovery_ratio = statistics.median(r[4] / r[2] for r in rows)
print(f"median of {len(rows)} rounds (req/s): viewer {med[0]:.0f}, viewer+accessToken {med[1]:.0f} "
      f"(ratio {token_ratio:.2f}, min {min(r[1] / r[0] for r in rows):.2f}); health {med[2]:.0f}, "
      f"jwks {med[3]:.0f} ({jwks_ratio:.2f}), discovery {med[4]:.0f} ({discovery_ratio:.2f}); "
      f"errors {int(sum(r[5] for r in rows))}")
cpu = [statistics.median(r[6 + i] for r in rows) for i in range(5)]
print(f"server CPU per request (µs, median): viewer {cpu[0]:.0f}, viewer+accessToken {cpu[1]:.0f} "
      f"(+{cpu[1] - cpu[0]:.0f}); health {cpu[2]:.0f}, jwks {cpu[3]:.0f}, discovery {cpu[4]:.0f}")
PY
