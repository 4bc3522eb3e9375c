#!/usr/bin/env bash
# make soak: the mixed load (90% viewer, 8% logIn, 2% logOut + logIn) for SOAK_SECONDS (600),
# in one wrk run, sampling the server every minute. Checks: no errors;
# RSS at the end within 10% of RSS after the first minute; open file descriptors and database
# connections not growing: at the end no more than the most seen in the first half of the run (the
# pool opens connections as demand needs them, up to its size, while the load warms up). Exits
# non-zero if any check fails. Appends nothing by itself:
# RESULTS=1 writes the section "## Soak" of bench/RESULTS.md.
#   SOAK_SECONDS (600)  SOAK_USERS (500)  SOAK_CONNECTIONS (8)
source "$(dirname "$0")/lib.sh"
TOTAL="${SOAK_SECONDS:-600}"
N="${SOAK_USERS:-500}"
C="${SOAK_CONNECTIONS:-8}"
ensure_tools
build_release gatehouse
new_dir; DIR="$NEW_DIR"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt" BENCH_THREADS="$C"
start_server "$DIR" /dev/null
PID=$SERVER_PID
CONNINFO="$(pg_conninfo "$DIR")"
LOAD_START="$(load_avg)"
log "soak: ${TOTAL} s of mixed load, $C connections, server pid $PID; seeding $N users"
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" "$N" "$BENCH_USERS" 8
db_conns() { psqlq "$CONNINFO" "SELECT count(*) FROM pg_stat_activity WHERE datname = 'gatehouse' AND pid <> pg_backend_pid()"; }
# One wrk run for the whole time (the mixed script keeps each user's current token in its own
# state, so splitting the run would reuse tokens it had logged out); samples every CHUNK seconds.
CHUNK=60; [ "$TOTAL" -lt 240 ] && CHUNK=$(( TOTAL / 4 > 5 ? TOTAL / 4 : 5 ))
printf "| minute | peak RSS MiB | fds | db conns | sessions |\n| ---: | ---: | ---: | ---: | ---: |\n" >"$DIR/table"
run_wrk "$DIR/wrk" "$C" "$C" "$TOTAL" mixed.lua "$SERVER_URL" &
WRK=$!
minute=0
while [ $(( (minute + 1) * CHUNK )) -le "$TOTAL" ]; do
    # RSS moves by 64 MiB whenever a hash starts or ends: keep each minute's highest sample.
    rss=0
    for ((k = 0; k < CHUNK; k++)); do r="$(rss_kib "$PID")"; [ "$r" -gt "$rss" ] && rss=$r; sleep 1; done
    minute=$((minute + 1))
    kill -0 "$PID" 2>/dev/null || { echo "server died" >&2; exit 1; }
    fds="$(fd_count "$PID")" conns="$(db_conns)" sessions="$(psqlq "$CONNINFO" "SELECT count(*) FROM sessions")"
    [ "$minute" = 1 ] && { RSS1=$rss FDS1=$fds CONNS1=$conns; }
    if [ $(( minute * CHUNK * 2 )) -le "$TOTAL" ]; then
        [ "$fds" -gt "${FDS_HALF:-0}" ] && FDS_HALF=$fds
        [ "$conns" -gt "${CONNS_HALF:-0}" ] && CONNS_HALF=$conns
    fi
    RSSN=$rss FDSN=$fds CONNSN=$conns
    echo "| $(awk -v m="$minute" -v c="$CHUNK" 'BEGIN { printf "%g", m * c / 60 }') | $(mib "$rss") | $fds | $conns | $sessions |" >>"$DIR/table"
    log "sample $minute: RSS $(mib "$rss") MiB, fds $fds, db conns $conns, sessions $sessions"
done
wait "$WRK" || true
f="$DIR/wrk"
errors="$(wrk_errors "$f")"; requests="$(wrk_field "$f" requests)"
grep FIRST_ERROR "$f" >&2 || true
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
    echo "Totals: $requests requests ($(wrk_rps "$f") successful/s, p50 $(wrk_pct "$f" 50) ms, p99 $(wrk_pct "$f" 99) ms), $errors errors. Checks:"
    check "no errors ($errors)" '[ "$errors" = 0 ]'
    check "RSS at the end $(mib "$RSSN") MiB within 10% of $(mib "$RSS1") MiB after the first minute" \
        "awk -v a=$RSSN -v b=$RSS1 'BEGIN { exit !(a <= b * 1.10) }'"
    check "open fds not growing ($FDS1 after the first minute, at most $FDS_HALF in the first half, $FDSN at the end)" '[ "$FDSN" -le "$FDS_HALF" ]'
    check "database connections not growing ($CONNS1 after the first minute, at most $CONNS_HALF in the first half, $CONNSN at the end)" '[ "$CONNSN" -le "$CONNS_HALF" ]'
} >"$DIR/section.md"
cat "$DIR/section.md"
[ "${RESULTS:-0}" = 1 ] && python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$DIR/section.md"
exit "$fail"
