#!/usr/bin/env bash
# The OAuth token endpoint's refresh grant (issue 31) beside logInWith as a guest, in interleaved
# rounds on one release server: each call of either writes one durable row (the next refresh token;
# a session), so the ratio is what the token endpoint's own work costs beside a log-in's. The
# target is at least 0.9. Every seeded user's session approves one code a round for the
# first-party public client "bench" (which always gets a refresh token), exchanged once; in a
# round, each chain's refreshes follow on from its latest token (a used one would end the chain).
#   bench/oauth-refresh.sh [rounds (3)] [seconds per run (5)]   BENCH_USERS_N (200)
#   BENCH_SCOPE ("openid"): the grants' scope; without openid a refresh signs no ID token.
# With INSTRUCTIONS=1, instead of timed rounds: the instructions a request of each (the server
# under callgrind, 2 HTTP event threads, 2 connections, counters zeroed after a 5-second warm-up),
# which unlike rates do not depend on the machine's other load.
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-5}"
N="${BENCH_USERS_N:-200}"
SCOPE="${BENCH_SCOPE:-openid}"
# Each wrk thread's pool of refresh tokens must outnumber its 32 connections (wrk asks a script for
# one request more than its connections when it starts).
[ "$N" -ge 128 ] || N=128
ensure_tools
build_release gatehouse
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt" BENCH_THREADS=2
CLIENTS='[{"client_id": "bench", "redirect_uris": ["http://127.0.0.1:9/cb"], "name": "Bench", "first_party": true}]'
start_server "$DIR" "${SERVER_LOG:-/dev/null}" GATEHOUSE_OAUTH_CLIENTS="$CLIENTS" GATEHOUSE_OAUTH_TOKEN_RATE_LIMIT=0
log "seeding $N users, each with a refresh token a round"
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" "$N" "$BENCH_USERS" 8
python3 - "${SERVER_URL%/graphql}" "$BENCH_USERS" "$ROUNDS" "$DIR/refresh" "$SCOPE" <<'PY'
import base64, hashlib, http.client, json, secrets, sys, urllib.parse
base, users, rounds, prefix, scope = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
files = [open(f"{prefix}.{r + 1}", "w") for r in range(rounds)]
u = urllib.parse.urlparse(base); c = http.client.HTTPConnection(u.hostname, u.port)
def post(path, items):
    c.request("POST", path, urllib.parse.urlencode(items), {"Content-Type": "application/x-www-form-urlencoded"})
    r = c.getresponse(); return r, r.read()
for line, out in ((line, out) for line in open(users) for out in files):
    token = line.split()[2]
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    r, _ = post("/oauth/authorize", [("response_type", "code"), ("client_id", "bench"), ("redirect_uri", "http://127.0.0.1:9/cb"),
        ("scope", scope), ("code_challenge", challenge), ("code_challenge_method", "S256"), ("session_token", token), ("decision", "approve")])
    code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(r.getheader("Location")).query))["code"]
    r, body = post("/oauth/token", [("grant_type", "authorization_code"), ("client_id", "bench"), ("code", code),
        ("redirect_uri", "http://127.0.0.1:9/cb"), ("code_verifier", verifier)])
    assert r.status == 200, body
    print(json.loads(body)["refresh_token"], file=out)
PY
if [ -n "${INSTRUCTIONS:-}" ]; then
    command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
    callgrind_account "$DIR/runs"
    export BENCH_THREADS=1
    for r in $(seq "$ROUNDS"); do
        set -- "$DIR/runs" DATABASE_URL="$(pg_conninfo "$DIR")" GATEHOUSE_OAUTH_CLIENTS="$CLIENTS" GATEHOUSE_OAUTH_TOKEN_RATE_LIMIT=0
        l="$(callgrind_per_request "$BIN/gatehouse" loginwith-anonymous.lua "$D" "$@")"
        f="$(BENCH_REFRESH="$DIR/refresh.$r" BENCH_REFRESH_KEEP=1 callgrind_per_request "$BIN/gatehouse" refresh.lua "$D" "$@")"
        log "round $r: instructions a request: logInWith $l, refresh grant $f ($(ratio "$f" "$l") of logInWith's)"
    done
    exit 0
fi
# Every guest made and every code path warm before the rounds (the refreshes chain on from here).
run_wrk "$OUT/warmup" 64 2 2 loginwith-anonymous.lua "$SERVER_URL"
log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then order="loginwith refresh"; else order="refresh loginwith"; fi
    for k in $order; do
        case "$k" in
            loginwith) run_wrk_cpu "$OUT/loginwith.$r" 64 2 "$D" loginwith-anonymous.lua "$SERVER_URL" ;;
            refresh) BENCH_REFRESH="$DIR/refresh.$r" run_wrk_cpu "$OUT/refresh.$r" 64 2 "$D" refresh.lua "${SERVER_URL%/graphql}" ;;
        esac
    done
    l="$(wrk_rps "$OUT/loginwith.$r")" f="$(wrk_rps "$OUT/refresh.$r")"
    e=$(( $(wrk_errors "$OUT/loginwith.$r") + $(wrk_errors "$OUT/refresh.$r") ))
    echo "$l $f $e $(cpu_per_request "$OUT/loginwith.$r" server) $(cpu_per_request "$OUT/refresh.$r" server)" >>"$OUT/rounds"
    log "round $r: logInWith $l req/s, refresh grant $f req/s ($(ratio "$f" "$l")); errors $e; server CPU µs a request: logInWith $(cpu_per_request "$OUT/loginwith.$r" server), refresh $(cpu_per_request "$OUT/refresh.$r" server)"
    grep FIRST_ERROR "$OUT"/*."$r" >&2 || true
    [ -n "$f" ] || { echo "the refresh run measured nothing; wrk said:" >&2; cat "$OUT/refresh.$r" >&2; }
done
log "load average at end: $(load_avg)"
python3 - "$OUT/rounds" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
print("median: logInWith %.0f req/s, refresh grant %.0f req/s, ratio %.2f (target at least 0.9); errors %d"
      % (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows),
         statistics.median(r[1] / r[0] for r in rows), sum(r[2] for r in rows)))
PY
