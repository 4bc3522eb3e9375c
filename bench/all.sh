#!/usr/bin/env bash
# make bench: load test of the release server on a fresh embedded database, against its limits
# (pgbench on the same cluster, raw argon2id, a static response from the same HTTP layer).
# Writes the section "## Load: make bench" of bench/RESULTS.md (RESULTS=0 to skip).
#   BENCH_SECONDS (15)  BENCH_USERS_N (2000)  GATEHOUSE_HTTP_THREADS (server default)
#   BENCH_INVALIDATION (1: also run bench/cache-invalidation.sh)
source "$(dirname "$0")/lib.sh"
D="${BENCH_SECONDS:-15}"
N="${BENCH_USERS_N:-2000}"
ensure_tools
build_release gatehouse StaticServer HashBench
LOAD_START="$(load_avg)"
log "load average at start: $LOAD_START"

new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt"
SERVER_LOG="${SERVER_LOG:-/dev/null}"
start_server "$DIR" "$SERVER_LOG"
MAIN_PID=$SERVER_PID MAIN_URL=$SERVER_URL
THREADS_MODE="$(tr '\0' '\n' <"/proc/$MAIN_PID/environ" | sed -n 's/^GATEHOUSE_HTTP_THREADS=//p')"
THREADS_MODE="${THREADS_MODE:-$("$BIN/gatehouse" serve --help 2>&1 | sed -n 's/.*--http-threads.*default[^0-9]*\([0-9]*\).*/\1/p' | head -1)}"
THREADS_MODE="${THREADS_MODE:-0}"
log "server pid $MAIN_PID on $MAIN_URL (http threads $THREADS_MODE)"
if [ -n "${BENCH_HASH_NICE:-}" ]; then  # experiment: renice the hashing threads (nice 10 by default)
    for t in /proc/"$MAIN_PID"/task/*; do
        [ "$(awk '{ print $19 }' "$t/stat")" = 10 ] && renice -n "$BENCH_HASH_NICE" -p "${t##*/}" >/dev/null
    done
fi

log "seeding $N users"
python3 "$ROOT/bench/client.py" seed "$MAIN_URL" "$N" "$BENCH_USERS" 8
sleep 3
IDLE_RSS="$(rss_kib "$MAIN_PID")"
log "idle RSS after seeding: $(mib "$IDLE_RSS") MiB"
CONNINFO="$(pg_conninfo "$DIR")"

# --- limits ---------------------------------------------------------------------------------
log "limit: pgbench, viewer SQL, 64 clients"
mkdir -p "$DIR/pgb"
i=0
head -128 "$BENCH_USERS.digests" | while read -r d; do
    i=$((i + 1))
    cat >"$DIR/pgb/s$i.sql" <<SQL
SELECT u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at, s.expires_at FROM sessions s JOIN users u ON u.object_id = s.user_id WHERE s.token_digest = '\\x$d'::bytea;
SQL
done
PGB_ARGS=(); for f in "$DIR"/pgb/*.sql; do PGB_ARGS+=(-f "$f"); done
timeout $((D + 60)) "$PGBIN/pgbench" -n -M prepared -c 64 -j 2 -T "$D" "${PGB_ARGS[@]}" "$CONNINFO" >"$OUT/pgbench" 2>&1 || true
PGB_TPS="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$OUT/pgbench" | head -1)"
PGB_TPS="$(printf "%.0f" "${PGB_TPS:-0}")"
PGB_FAILED="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$OUT/pgbench")"
log "pgbench: $PGB_TPS tps (failed ${PGB_FAILED:-?})"

WORKERS="$(tr '\0' '\n' <"/proc/$MAIN_PID/environ" | sed -n 's/^GATEHOUSE_HASH_WORKERS=//p')"
WORKERS="${WORKERS:-$(nproc)}"
log "limit: raw argon2id, $WORKERS threads"
"$BIN/HashBench" "$WORKERS" "$D" interactive >"$OUT/hashraw"
HASH_RATE="$(sed -n 's/.* rate=\([^ ]*\).*/\1/p' "$OUT/hashraw")"
log "raw hash: $HASH_RATE/s"

log "limit: StaticServer with $THREADS_MODE threads"
SPORT=$((20000 + RANDOM % 20000))
"$BIN/StaticServer" "$SPORT" "$THREADS_MODE" >"$OUT/static.log" 2>&1 &
STATIC_PID=$!; BENCH_PIDS+=("$STATIC_PID")
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$SPORT/" >/dev/null && break; sleep 0.1; done
# The same request and wrk script as the { health } run (POST, body checked), so the two differ only in the server's work.
run_wrk "$OUT/static" 64 2 "$D" health.lua "http://127.0.0.1:$SPORT/graphql"
kill -INT "$STATIC_PID"; wait "$STATIC_PID" 2>/dev/null || true
STATIC_RPS="$(wrk_rps "$OUT/static")"
log "static: $STATIC_RPS req/s"

# --- the server -----------------------------------------------------------------------------
declare -A RPS P50 P99 ERR PEAK
measure() {  # measure NAME CONNS THREADS SCRIPT [URL]
    local name="$1" c="$2" t="$3" script="$4" url="${5:-$MAIN_URL}"
    log "run: $name (-c$c -t$t, $D s)"
    start_rss_sampler "$MAIN_PID" "$OUT/$name.rss"
    BENCH_THREADS="$t" BENCH_RUN="$name$RANDOM" run_wrk "$OUT/$name" "$c" "$t" "$D" "$script" "$url"
    stop_rss_sampler
    RPS[$name]="$(wrk_rps "$OUT/$name")"; P50[$name]="$(wrk_pct "$OUT/$name" 50)"; P99[$name]="$(wrk_pct "$OUT/$name" 99)"
    ERR[$name]="$(wrk_errors "$OUT/$name")"; PEAK[$name]="$(cat "$OUT/$name.rss")"
    log "  ${RPS[$name]} req/s, p50 ${P50[$name]} ms, p99 ${P99[$name]} ms, errors ${ERR[$name]}, peak RSS $(mib "${PEAK[$name]}") MiB"
    grep FIRST_ERROR "$OUT/$name" >&2 || true
}

measure viewer 64 2 viewer.lua
measure health 64 2 health.lua
measure login 8 8 login.lua
measure signup 8 8 signup.lua

log "run: viewer during logIn saturation"
start_rss_sampler "$MAIN_PID" "$OUT/vl.rss"
BENCH_THREADS=8 run_wrk "$OUT/vl-login" 8 8 $((D + 2)) login.lua "$MAIN_URL" &
LW=$!
sleep 1
run_wrk "$OUT/vl-viewer" 64 2 "$D" viewer.lua "$MAIN_URL"
wait "$LW" || true
stop_rss_sampler
RPS[vl]="$(wrk_rps "$OUT/vl-viewer")"; P50[vl]="$(wrk_pct "$OUT/vl-viewer" 50)"; P99[vl]="$(wrk_pct "$OUT/vl-viewer" 99)"
ERR[vl]=$(( $(wrk_errors "$OUT/vl-viewer") + $(wrk_errors "$OUT/vl-login") )); PEAK[vl]="$(cat "$OUT/vl.rss")"
VL_LOGIN_RPS="$(wrk_rps "$OUT/vl-login")"
log "  viewer ${RPS[vl]} req/s p99 ${P99[vl]} ms; logIn $VL_LOGIN_RPS req/s; errors ${ERR[vl]}"

measure mixed 8 8 mixed.lua

log "run: viewer without the session cache (second instance on the same database)"
start_server "$DIR/nocache" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_SESSION_CACHE=false
NOCACHE_PID=$SERVER_PID NOCACHE_URL=$SERVER_URL
SAVED_MAIN=$MAIN_PID; MAIN_PID=$NOCACHE_PID
# The mixed run logged some seeded sessions out: use only sessions that still exist.
"$PGBIN/psql" "$CONNINFO" -XAtq -c "SELECT encode(token_digest, 'hex') FROM sessions" >"$DIR/live.digests"
python3 - "$BENCH_USERS" "$DIR/live.digests" "$DIR/users-live.txt" <<'PY'
import hashlib, sys
live = set(l.strip() for l in open(sys.argv[2]))
with open(sys.argv[3], 'w') as out:
    for l in open(sys.argv[1]):
        if hashlib.sha256(l.split()[2].encode()).hexdigest() in live: out.write(l)
PY
# pgbench measured its limit on the freshly seeded tables; the log-in and mixed runs since then
# inserted and deleted thousands of sessions. Vacuum first, so both read tables in the same state
# (and no autovacuum of those writes runs during the measurement).
"$PGBIN/psql" "$CONNINFO" -XAtq -c "VACUUM ANALYZE sessions" -c "VACUUM ANALYZE users" >/dev/null
sleep 2
BENCH_USERS="$DIR/users-live.txt" measure viewer_nocache 64 2 viewer.lua "$NOCACHE_URL"
stop_server "$NOCACHE_PID"

# The other HTTP threading mode, for choosing the default: { health } through an epoll pool of
# 2 threads (and a static response through the same), against the mode measured above.
ALT_THREADS=$([ "$THREADS_MODE" = 0 ] && echo 2 || echo 0)
log "run: { health } with GATEHOUSE_HTTP_THREADS=$ALT_THREADS (third instance) and StaticServer with $ALT_THREADS"
start_server "$DIR/alt" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_HTTP_THREADS="$ALT_THREADS"
ALT_PID=$SERVER_PID; MAIN_PID=$ALT_PID
measure health_alt 64 2 health.lua "$SERVER_URL"
stop_server "$ALT_PID"
MAIN_PID=$SAVED_MAIN
"$BIN/StaticServer" "$SPORT" "$ALT_THREADS" >"$OUT/static-alt.log" 2>&1 &
STATIC_PID=$!; BENCH_PIDS+=("$STATIC_PID")
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$SPORT/" >/dev/null && break; sleep 0.1; done
run_wrk "$OUT/static-alt" 64 2 "$D" health.lua "http://127.0.0.1:$SPORT/graphql"
kill -INT "$STATIC_PID"; wait "$STATIC_PID" 2>/dev/null || true
STATIC_ALT_RPS="$(wrk_rps "$OUT/static-alt")"

HWM="$(hwm_kib "$MAIN_PID")"
LOAD_END="$(load_avg)"
log "VmHWM $(mib "$HWM") MiB; load average at end: $LOAD_END"
stop_server "$MAIN_PID"

INVALIDATION=""
if [ "${BENCH_INVALIDATION:-1}" = 1 ]; then
    INVALIDATION="$("$ROOT/bench/cache-invalidation.sh" 2>"$OUT/invalidation.log" | tail -1 || true)"
    log "invalidation: $INVALIDATION"
fi

# --- report ---------------------------------------------------------------------------------
verdict() { awk -v x="$1" -v t="$2" -v op="$3" 'BEGIN { ok = (op == ">=" ? x >= t : (op == ">" ? x > t : x < t)); print (ok ? "meets" : "**MISSES**") }'; }
row() {  # row LABEL NAME LIMIT_NAME LIMIT TARGET_OP TARGET
    local label="$1" n="$2" ln="$3" lim="$4" op="$5" tgt="$6" r
    r="$(ratio "${RPS[$n]}" "$lim")"
    echo "| $label | ${RPS[$n]} | ${P50[$n]} | ${P99[$n]} | ${ERR[$n]} | $(mib "${PEAK[$n]}") | $ln $lim | **$r** | $op $tgt: $(verdict "$r" "$tgt" "$op") |"
}
SECTION="$DIR/section.md"
{
    echo "## Load: make bench"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`make bench\` (bench/all.sh, ${D} s per run, $N users seeded through signUp at the"
    echo "production hash cost), release build, embedded PostgreSQL 15, HTTP threads: $THREADS_MODE ($( [ "$THREADS_MODE" = 0 ] && echo "one thread per connection" || echo "event threads (epoll), blocking requests on other threads")),"
    echo "hash workers $WORKERS, rate limits off, request log to $SERVER_LOG. 2 cores shared by wrk, server and PostgreSQL;"
    echo "load average $LOAD_START at the start, $LOAD_END at the end (the machine is shared with other engineers)."
    echo
    echo "Limits, measured in the same run: pgbench (viewer SELECT, \`-M prepared -c 64 -j 2\`, 128 seeded digests) **$PGB_TPS q/s**;"
    echo "raw argon2id (HashBench, $WORKERS threads, interactive) **$HASH_RATE hashes/s**; StaticServer ($THREADS_MODE threads, wrk -t2 -c64 with the \`{ health }\` request and script) **$STATIC_RPS req/s**."
    echo
    echo "| run | req/s | p50 ms | p99 ms | errors | peak RSS MiB | limit | ratio | target |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |"
    row "viewer, cache on, 64 conns" viewer pgbench "$PGB_TPS" ">" 1.0
    row "viewer, cache off, 64 conns" viewer_nocache pgbench "$PGB_TPS" ">=" 0.6
    row "{ health }, 64 conns" health static "$STATIC_RPS" ">=" 0.7
    row "logIn, 8 conns" login "raw hash" "$HASH_RATE" ">=" 0.9
    row "signUp, 8 conns" signup "raw hash" "$HASH_RATE" ">=" 0.9
    row "mixed 90/8/2, 8 conns" mixed "raw hash ÷ 0.1" "$(awk -v h="$HASH_RATE" 'BEGIN { printf "%.1f", h / 0.1 }')" ">=" 0.9
    row "{ health } with HTTP threads $ALT_THREADS (other mode)" health_alt "static ($ALT_THREADS threads)" "$STATIC_ALT_RPS" ">=" 0.7
    echo "| viewer (64 conns) while logIn saturates (8 conns: $VL_LOGIN_RPS logIn/s) | ${RPS[vl]} | ${P50[vl]} | ${P99[vl]} | ${ERR[vl]} | $(mib "${PEAK[vl]}") | p99 | ${P99[vl]} ms | < 20 ms: $(verdict "${P99[vl]}" 20 "<") |"
    echo
    TOTAL_ERR=0; for k in "${!ERR[@]}"; do TOTAL_ERR=$((TOTAL_ERR + ${ERR[$k]})); done
    echo "- Errors (unexpected \`errors\` in a body, non-200, socket errors) over all runs: **$TOTAL_ERR** (target 0: $( [ "$TOTAL_ERR" = 0 ] && echo meets || echo '**MISSES**'))."
    echo "- RSS: idle after seeding **$(mib "$IDLE_RSS") MiB** (target < 40: $(verdict "$(mib "$IDLE_RSS")" 40 "<")); peak during the hashing runs"
    echo "  $(mib "${PEAK[login]}") / $(mib "${PEAK[signup]}") / $(mib "${PEAK[mixed]}") MiB (logIn / signUp / mixed), VmHWM at the end **$(mib "$HWM") MiB** (target < 256: $(verdict "$(mib "$HWM")" 256 "<"))."
    echo "- The mixed row's limit is the hash rate over the hashing share of requests (10%): that mix is bound by argon2id."
    [ -n "$INVALIDATION" ] && echo "- Session-cache invalidation (bench/cache-invalidation.sh, two instances on one database, 100 logOuts): $INVALIDATION (ms; target: all within 50 ms)."
} >"$SECTION"
cat "$SECTION"
cp -r "$OUT" "${BENCH_OUT_KEEP:-/tmp/ghb-last-out}" 2>/dev/null || true
[ "${RESULTS:-1}" = 0 ] || python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$SECTION"
