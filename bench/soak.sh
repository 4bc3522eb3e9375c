#!/usr/bin/env bash
# make soak: the mixed load (90% viewer, 8% logIn, 2% logOut + logIn) for SOAK_SECONDS (600),
# in wrk runs of 60 s back to back, sampling the server after each minute. Checks: no errors;
# RSS at the end within 10% of RSS after the first minute; open file descriptors and database
# connections not growing. Exits non-zero if any check fails. Appends nothing by itself:
# RESULTS=1 writes the section "## Soak" of bench/RESULTS.md.
#   SOAK_SECONDS (600)  SOAK_USERS (500)  SOAK_CONNECTIONS (8)
source "$(dirname "$0")/lib.sh"
TOTAL="${SOAK_SECONDS:-600}"
N="${SOAK_USERS:-500}"
C="${SOAK_CONNECTIONS:-8}"
ensure_tools
build_release gatehouse
DIR="$(new_dir)"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt" BENCH_THREADS="$C"
start_server "$DIR" /dev/null
PID=$SERVER_PID
CONNINFO="$(pg_conninfo "$DIR")"
LOAD_START="$(load_avg)"
log "soak: ${TOTAL} s of mixed load, $C connections, server pid $PID; seeding $N users"
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" "$N" "$BENCH_USERS" 8
db_conns() { psqlq "$CONNINFO" "SELECT count(*) FROM pg_stat_activity WHERE datname = 'gatehouse' AND pid <> pg_backend_pid()"; }
CHUNK=60; [ "$TOTAL" -lt 120 ] && CHUNK=$(( TOTAL / 4 > 5 ? TOTAL / 4 : 5 ))
elapsed=0 minute=0 errors=0 requests=0
printf "| minute | req/s | p99 ms | errors | RSS MiB | fds | db conns | sessions |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" >"$DIR/table"
while [ "$elapsed" -lt "$TOTAL" ]; do
    d=$(( TOTAL - elapsed < CHUNK ? TOTAL - elapsed : CHUNK ))
    run_wrk "$DIR/wrk.$minute" "$C" "$C" "$d" mixed.lua "$SERVER_URL"
    elapsed=$((elapsed + d)); minute=$((minute + 1))
    kill -0 "$PID" 2>/dev/null || { echo "server died" >&2; exit 1; }
    f="$DIR/wrk.$((minute - 1))"
    e="$(wrk_errors "$f")"; errors=$((errors + e)); requests=$((requests + $(wrk_field "$f" requests)))
    rss="$(rss_kib "$PID")" fds="$(fd_count "$PID")" conns="$(db_conns)" sessions="$(psqlq "$CONNINFO" "SELECT count(*) FROM sessions")"
    [ "$minute" = 1 ] && { RSS1=$rss FDS1=$fds CONNS1=$conns; }
    RSSN=$rss FDSN=$fds CONNSN=$conns
    echo "| $minute | $(wrk_rps "$f") | $(wrk_pct "$f" 99) | $e | $(mib "$rss") | $fds | $conns | $sessions |" >>"$DIR/table"
    log "chunk $minute: $(wrk_rps "$f") req/s, errors $e, RSS $(mib "$rss") MiB, fds $fds, db conns $conns, sessions $sessions"
    grep FIRST_ERROR "$f" >&2 || true
done
LOAD_END="$(load_avg)"
fail=0
check() { if eval "$2"; then echo "- $1: ok"; else echo "- $1: **FAILED**"; fail=1; fi; }
{
    echo "## Soak"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`make soak\` (bench/soak.sh, SOAK_SECONDS=$TOTAL): mixed load (90% viewer, 8% logIn,"
    echo "2% logOut followed by logIn) on $C connections over $N seeded users, release build, embedded PostgreSQL,"
    echo "server defaults (rate limits off). Load average $LOAD_START at the start, $LOAD_END at the end."
    echo
    cat "$DIR/table"
    echo
    echo "Totals: $requests requests, $errors errors. Checks:"
    check "no errors ($errors)" '[ "$errors" = 0 ]'
    check "RSS at the end $(mib "$RSSN") MiB within 10% of $(mib "$RSS1") MiB after the first minute" \
        "awk -v a=$RSSN -v b=$RSS1 'BEGIN { exit !(a <= b * 1.10) }'"
    check "open fds not growing ($FDS1 -> $FDSN)" '[ "$FDSN" -le "$FDS1" ]'
    check "database connections not growing ($CONNS1 -> $CONNSN)" '[ "$CONNSN" -le "$CONNS1" ]'
} >"$DIR/section.md"
cat "$DIR/section.md"
[ "${RESULTS:-0}" = 1 ] && python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$DIR/section.md"
exit "$fail"
