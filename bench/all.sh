#!/usr/bin/env bash
# make bench: load test of the release server on a fresh embedded database, against its limits
# (pgbench on the same cluster, raw argon2id, a static response from the same HTTP layer).
# Writes the section "## Load: make bench" of bench/RESULTS.md (RESULTS=0 to skip).
#   BENCH_SECONDS (15)  BENCH_ROUNDS (3)  BENCH_USERS_N (2000)  GATEHOUSE_HTTP_THREADS (server default)
#   BENCH_INVALIDATION (1: also run bench/cache-invalidation.sh)
source "$(dirname "$0")/lib.sh"
D="${BENCH_SECONDS:-15}"
ROUNDS="${BENCH_ROUNDS:-3}"
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

log "seeding $N users"
python3 "$ROOT/bench/client.py" seed "$MAIN_URL" "$N" "$BENCH_USERS" 8
sleep 3
IDLE_RSS="$(rss_kib "$MAIN_PID")"
log "idle RSS after seeding: $(mib "$IDLE_RSS") MiB"
CONNINFO="$(pg_conninfo "$DIR")"

# --- the runs ------------------------------------------------------------------------------
# Each ratio is the median of BENCH_ROUNDS rounds in which the limit and the server's run go
# back to back, so that both see the same machine (other engineers' load here moves either
# by ±30% from minute to minute).
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
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
declare -A LIMIT RATIOS
# combine NAME LIMIT_NAME: NAME's rounds (NAME.1 ...) into NAME: median rate, latencies and ratio,
# summed errors, highest RSS; RATIOS[NAME] lists the rounds' ratios.
combine() {
    local n="$1" l="$2" r rps=() p50=() p99=() ratios=() err=0 peak=0
    for r in $(seq "$ROUNDS"); do
        rps+=("${RPS[$n.$r]}"); p50+=("${P50[$n.$r]}"); p99+=("${P99[$n.$r]}")
        ratios+=("$(ratio "${RPS[$n.$r]}" "${LIMIT[$l.$r]}")")
        err=$((err + ${ERR[$n.$r]})); [ "${PEAK[$n.$r]}" -gt "$peak" ] && peak="${PEAK[$n.$r]}"
        unset "ERR[$n.$r]"
    done
    RPS[$n]="$(median "${rps[@]}")"; P50[$n]="$(median "${p50[@]}")"; P99[$n]="$(median "${p99[@]}")"
    ERR[$n]="$err"; PEAK[$n]="$peak"; RATIOS[$n]="${ratios[*]}"
}
declare -A LIMIT_ROUNDS
limits() {  # limits NAME: LIMIT[NAME] is the median of NAME's rounds, LIMIT_ROUNDS[NAME] lists them
    local r v=(); for r in $(seq "$ROUNDS"); do v+=("${LIMIT[$1.$r]}"); done
    LIMIT[$1]="$(median "${v[@]}")"; LIMIT_ROUNDS[$1]="${v[*]}"
    LIMIT_ROUNDS[$1]="${LIMIT_ROUNDS[$1]// / / }"
}

log "viewer with and without the session cache (second instance on the same database), against pgbench"
start_server "$DIR/nocache" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_SESSION_CACHE=false
NOCACHE_PID=$SERVER_PID NOCACHE_URL=$SERVER_URL
mkdir -p "$DIR/pgb"
i=0
head -128 "$BENCH_USERS.digests" | while read -r d; do
    i=$((i + 1))
    cat >"$DIR/pgb/s$i.sql" <<SQL
SELECT u.object_id, u.username, u.email, u.email_verified, u.acl::text, u.created_at, u.updated_at, s.expires_at FROM sessions s JOIN users u ON u.object_id = s.user_id WHERE s.token_digest = '\\x$d'::bytea;
SQL
done
PGB_ARGS=(); for f in "$DIR"/pgb/*.sql; do PGB_ARGS+=(-f "$f"); done
SAVED_MAIN=$MAIN_PID
PGB_FAILED=0
for r in $(seq "$ROUNDS"); do
    log "round $r: pgbench, viewer SQL, 64 clients"
    timeout $((D + 60)) "$PGBIN/pgbench" -n -M prepared -c 64 -j 2 -T "$D" "${PGB_ARGS[@]}" "$CONNINFO" >"$OUT/pgbench.$r" 2>&1 || true
    LIMIT[pgbench.$r]="$(printf "%.0f" "$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$OUT/pgbench.$r" | head -1)")"
    failed="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$OUT/pgbench.$r")"
    PGB_FAILED=$((PGB_FAILED + ${failed:-0}))
    log "  pgbench: ${LIMIT[pgbench.$r]} tps"
    measure "viewer.$r" 64 2 viewer.lua
    MAIN_PID=$NOCACHE_PID measure "viewer_nocache.$r" 64 2 viewer.lua "$NOCACHE_URL"
done
stop_server "$NOCACHE_PID"
combine viewer pgbench
combine viewer_nocache pgbench
limits pgbench
log "pgbench: ${LIMIT[pgbench]} (rounds: ${LIMIT_ROUNDS[pgbench]}), failed $PGB_FAILED"

log "limit: StaticServer with $THREADS_MODE threads, against { health }"
SPORT=$((20000 + RANDOM % 20000))
"$BIN/StaticServer" "$SPORT" "$THREADS_MODE" >"$OUT/static.log" 2>&1 &
STATIC_PID=$!; BENCH_PIDS+=("$STATIC_PID")
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$SPORT/" >/dev/null && break; sleep 0.1; done
for r in $(seq "$ROUNDS"); do
    # The same request and wrk script as the { health } run (POST, body checked), so the two differ only in the server's work.
    run_wrk "$OUT/static.$r" 64 2 "$D" health.lua "http://127.0.0.1:$SPORT/graphql"
    LIMIT[static.$r]="$(wrk_rps "$OUT/static.$r")"
    log "round $r: static ${LIMIT[static.$r]} req/s"
    measure "health.$r" 64 2 health.lua
done
kill -INT "$STATIC_PID"; wait "$STATIC_PID" 2>/dev/null || true
combine health static
limits static

WORKERS="$(tr '\0' '\n' <"/proc/$MAIN_PID/environ" | sed -n 's/^GATEHOUSE_HASH_WORKERS=//p')"
WORKERS="${WORKERS:-$(nproc)}"
raw_hash() {  # raw_hash NAME: HashBench on as many threads as the pool has workers, into LIMIT[NAME]
    "$BIN/HashBench" "$WORKERS" "$D" interactive >"$OUT/$1"
    LIMIT[$1]="$(sed -n 's/.* rate=\([^ ]*\).*/\1/p' "$OUT/$1")"
    log "$1: raw argon2id, $WORKERS threads: ${LIMIT[$1]}/s"
}
# Each run next to its own raw measurement: raw, logIn, signUp, raw.
for r in $(seq "$ROUNDS"); do
    raw_hash "hash.$r"
    measure "login.$r" 8 8 login.lua
    measure "signup.$r" 8 8 signup.lua
    raw_hash "hash_after.$r"
done
combine login hash
combine signup hash_after
limits hash
limits hash_after

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

# Last: it logs seeded sessions out. Against a raw measurement just before it.
raw_hash hash_mixed
measure mixed 8 8 mixed.lua

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
row() {  # row LABEL NAME LIMIT_NAME LIMIT TARGET_OP TARGET: the ratio is the median of the rounds' when there were rounds
    local label="$1" n="$2" ln="$3" lim="$4" op="$5" tgt="$6" r range=""
    if [ -n "${RATIOS[$n]:-}" ]; then
        # shellcheck disable=SC2086
        r="$(median ${RATIOS[$n]})"; range=" (rounds: ${RATIOS[$n]// / / })"
    else
        r="$(ratio "${RPS[$n]}" "$lim")"
    fi
    echo "| $label | ${RPS[$n]} | ${P50[$n]} | ${P99[$n]} | ${ERR[$n]} | $(mib "${PEAK[$n]}") | $ln $lim | **$r**$range | $op $tgt: $(verdict "$r" "$tgt" "$op") |"
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
    echo "Limits, measured in the same run, each in $ROUNDS rounds back to back with the runs compared with it (medians; a"
    echo "row's ratio is the median of its rounds' ratios): pgbench (viewer SELECT, \`-M prepared -c 64 -j 2\`, 128 seeded digests)"
    echo "**${LIMIT[pgbench]} q/s** (rounds: ${LIMIT_ROUNDS[pgbench]}); raw argon2id (HashBench, $WORKERS threads, interactive) before logIn"
    echo "**${LIMIT[hash]} hashes/s** (${LIMIT_ROUNDS[hash]}) and after signUp **${LIMIT[hash_after]}** (${LIMIT_ROUNDS[hash_after]}); StaticServer ($THREADS_MODE threads, wrk -t2 -c64 with the \`{ health }\`"
    echo "request and script) **${LIMIT[static]} req/s** (${LIMIT_ROUNDS[static]}). pgbench failed transactions: $PGB_FAILED."
    echo
    echo "| run | req/s | p50 ms | p99 ms | errors | peak RSS MiB | limit | ratio | target |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |"
    row "viewer, cache on, 64 conns" viewer pgbench "${LIMIT[pgbench]}" ">" 1.0
    row "viewer, cache off, 64 conns" viewer_nocache pgbench "${LIMIT[pgbench]}" ">=" 0.6
    row "{ health }, 64 conns" health static "${LIMIT[static]}" ">=" 0.7
    row "logIn, 8 conns" login "raw hash" "${LIMIT[hash]}" ">=" 0.9
    row "signUp, 8 conns" signup "raw hash (after)" "${LIMIT[hash_after]}" ">=" 0.9
    row "mixed 90/8/2, 8 conns" mixed "raw hash (just before) ÷ 0.1" "$(awk -v h="${LIMIT[hash_mixed]}" 'BEGIN { printf "%.1f", h / 0.1 }')" ">=" 0.9
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
