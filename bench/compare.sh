#!/usr/bin/env bash
# Two builds of the server side by side: the release gatehouse of BASE_REV against the working
# tree's, in interleaved rounds on one embedded database. For the rule that a change to a hot path
# re-runs the load against the build before it; prints a Markdown table (it edits no file but
# COMPARE_OUT; paste the table into bench/RESULTS.md with its context).
#   bench/compare.sh BASE_REV        (make bench-compare BASE=<rev>)
#   ROUNDS (5)  BENCH_SECONDS (8, per run)  BENCH_USERS_N (2000)  WARMUP_SECONDS (2)
#   COMPARE_OUT (also write the table there)  COMPARE_VACUUM (1: vacuum before the uncached viewer)
# BASE_REV is built in a temporary detached worktree (removed on exit) and its binary kept in
# .build/compare/<commit>/gatehouse, so the next comparison against it skips that build.
# Each round runs every workload on both builds back to back, base first in odd rounds and new
# first in even ones, so the machine's drift (other engineers' builds) falls on both alike.
# Exits 1 if any run had an error (unexpected `errors` in a body, non-200, socket errors).
CALLER_PWD="$PWD"
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] || { echo "usage: bench/compare.sh BASE_REV   (ROUNDS, BENCH_SECONDS, BENCH_USERS_N, COMPARE_OUT)" >&2; exit 2; }
BASE_REV="$1"
NEW_DESC="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo '+uncommitted changes')"
ROUNDS="${ROUNDS:-5}"
D="${BENCH_SECONDS:-8}"
N="${BENCH_USERS_N:-2000}"
WARMUP="${WARMUP_SECONDS:-2}"
ensure_tools

# --- the two binaries -----------------------------------------------------------------------
SAT_PID=""  # the background logIn load of a saturation run, while it runs
trap '[ -z "$SAT_PID" ] || kill -TERM "$SAT_PID" 2>/dev/null; cleanup' EXIT
base_binary "$BASE_REV"
log "new: the working tree ($NEW_DESC), release build"
build_release gatehouse
NEW_BIN="$BIN/gatehouse"

# --- servers on one database ----------------------------------------------------------------
# The base creates the database (a migration the new build adds is applied when it starts, after
# the base servers, which refuse a schema newer than they know at start).
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt"
LOAD_START="$(load_avg)"
log "load average at start: $LOAD_START"
declare -A URL PID
BIN="$(dirname "$BASE_BIN")"
# As the gatehouse account, which newer builds drop to: they must reach the cluster the base makes.
export SERVER_AS_ACCOUNT=1
start_server "$DIR/base" /dev/null
PID[base]=$SERVER_PID URL[base]=$SERVER_URL
CONNINFO="$(pg_conninfo "$DIR/base")"
start_server "$DIR/base-nocache" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_SESSION_CACHE=false
PID[base_nocache]=$SERVER_PID URL[base_nocache]=$SERVER_URL
unset SERVER_AS_ACCOUNT
BIN="$(dirname "$NEW_BIN")"
start_server "$DIR/new" /dev/null DATABASE_URL="$CONNINFO"
PID[new]=$SERVER_PID URL[new]=$SERVER_URL
start_server "$DIR/new-nocache" /dev/null DATABASE_URL="$CONNINFO" GATEHOUSE_SESSION_CACHE=false
PID[new_nocache]=$SERVER_PID URL[new_nocache]=$SERVER_URL
for k in base base_nocache new new_nocache; do log "$k: pid ${PID[$k]} on ${URL[$k]}"; done

log "seeding $N users"
timeout 3600 python3 "$ROOT/bench/client.py" seed "${URL[base]}" "$N" "$BENCH_USERS" 8
# Every instance answers the viewer once over before the rounds (session caches filled, pools open).
for k in base new base_nocache new_nocache; do
    run_wrk "$OUT/warmup.$k" 64 2 "$WARMUP" viewer.lua "${URL[$k]}"
done
sleep 2

# --- the rounds -----------------------------------------------------------------------------
declare -A VAL ERR
ERR[base]=0 ERR[new]=0
record() {  # record WORKLOAD BUILD ROUND VALUE FILES...: one run's figure and its errors
    local w="$1" b="$2" r="$3" v="$4" f e; shift 4
    VAL[$w.$b.$r]="$v"
    for f in "$@"; do
        e="$(wrk_errors "$f")"; ERR[$w.$b]=$(( ${ERR[$w.$b]:-0} + e )); ERR[$b]=$(( ${ERR[$b]} + e ))
        grep -E "FIRST_ERROR|Socket errors" "$f" >&2 || true
    done
}
TICKS_PER_SECOND="$(getconf CLK_TCK)"
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }  # utime + stime of PID
run_rate() {  # run_rate WORKLOAD BUILD ROUND CONNS THREADS SCRIPT INSTANCE
    local w="$1" b="$2" r="$3" c="$4" t="$5" s="$6" i="$7" f="$OUT/$1.$2.$3" before after
    before="$(cpu_ticks "${PID[$i]}")"
    BENCH_THREADS="$t" run_wrk "$f" "$c" "$t" "$D" "$s" "${URL[$i]}"
    after="$(cpu_ticks "${PID[$i]}")"
    record "$w" "$b" "$r" "$(wrk_rps "$f")" "$f"
    # The server process's own CPU per request (PostgreSQL's not included): unlike the rate,
    # it hardly depends on what else the machine is doing.
    VAL[cpu_$w.$b.$r]="$(awk -v t=$((after - before)) -v hz="$TICKS_PER_SECOND" -v n="$(wrk_field "$f" requests)" \
        'BEGIN { if (n > 0) printf "%.1f", t / hz * 1e6 / n; else print 0 }')"
    log "  $w $b: ${VAL[$w.$b.$r]} req/s, server CPU ${VAL[cpu_$w.$b.$r]} µs a request, errors $(wrk_errors "$f")"
}
run_saturated() {  # run_saturated BUILD ROUND: the viewer's p99 while logIn saturates the same build
    local b="$1" r="$2" f="$OUT/vl.$1.$2"
    # As bench/all.sh: logIn from 1 s before the viewer's run to 1 s after it. run_wrk's command,
    # but timeout in the background itself (not a subshell), so that the exit trap's TERM reaches wrk.
    BENCH_THREADS=8 timeout $((D + 32)) wrk -t8 -c8 -d"$((D + 2))s" --timeout 10s --latency \
        -s "$ROOT/bench/lua/login.lua" "${URL[$b]}" >"$f.login" 2>&1 &
    SAT_PID=$!
    sleep 1
    run_wrk "$f.viewer" 64 2 "$D" viewer.lua "${URL[$b]}"
    wait "$SAT_PID" || true
    SAT_PID=""
    record vl "$b" "$r" "$(wrk_pct "$f.viewer" 99)" "$f.viewer" "$f.login"
    log "  vl $b: viewer p99 ${VAL[vl.$b.$r]} ms ($(wrk_rps "$f.viewer") req/s), logIn $(wrk_rps "$f.login") req/s"
}
vacuum() {
    timeout 300 "$PGBIN/psql" "$CONNINFO" -XAtq -c "VACUUM ANALYZE sessions" -c "VACUUM ANALYZE users" >/dev/null
    sleep 2
}

for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then ORDER=(base new); else ORDER=(new base); fi
    log "round $r of $ROUNDS: ${ORDER[0]} first"
    for b in "${ORDER[@]}"; do run_rate viewer "$b" "$r" 64 2 viewer.lua "$b"; done
    # From the second round on, the tables carry the previous round's log-in writes (sessions
    # inserted and replaced); vacuum so that no autovacuum lands in one build's run only.
    [ "${COMPARE_VACUUM:-1}" = 0 ] || vacuum
    for b in "${ORDER[@]}"; do run_rate viewer_nocache "$b" "$r" 64 2 viewer.lua "${b}_nocache"; done
    for b in "${ORDER[@]}"; do run_rate health "$b" "$r" 64 2 health.lua "$b"; done
    for b in "${ORDER[@]}"; do run_rate login "$b" "$r" 8 8 login.lua "$b"; done
    for b in "${ORDER[@]}"; do run_saturated "$b" "$r"; done
done
LOAD_END="$(load_avg)"
log "load average at end: $LOAD_END"

# --- the table ------------------------------------------------------------------------------
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
row() {  # row WORKLOAD LABEL
    local w="$1" label="$2" b r v mb mn rb=() rn=()
    for r in $(seq "$ROUNDS"); do
        for b in base new; do
            v="${VAL[$w.$b.$r]:-}"; [ -n "$v" ] || v=0
            if [ "$b" = base ]; then rb+=("$v"); else rn+=("$v"); fi
        done
    done
    mb="$(median "${rb[@]}")"; mn="$(median "${rn[@]}")"
    local sb="${rb[*]}" sn="${rn[*]}"
    echo "| $label | $mb | $mn | **$(ratio "$mn" "$mb")** | ${sb// / / } | ${sn// / / } | ${ERR[${w#cpu_}.base]:-0} / ${ERR[${w#cpu_}.new]:-0} |"
}
TABLE="$DIR/compare.md"
{
    echo "base \`$BASE_REV\` ($BASE_SHORT) against new (working tree, $NEW_DESC): \`bench/compare.sh\`, $(date -u '+%Y-%m-%d %H:%M UTC'),"
    echo "$ROUNDS interleaved rounds (base first in odd rounds, new first in even), ${D} s per run, $N users seeded, release builds,"
    echo "one embedded PostgreSQL for both, rate limits off, request log to /dev/null; load average $LOAD_START at the start, $LOAD_END at the end."
    echo
    echo "| workload | base (median) | new (median) | new ÷ base | base rounds | new rounds | errors base / new |"
    echo "| --- | ---: | ---: | ---: | --- | --- | ---: |"
    row viewer "viewer, cache on, 64 conns (req/s)"
    row viewer_nocache "viewer, cache off, 64 conns (req/s)"
    row health "\`{ health }\`, 64 conns (req/s)"
    row login "logIn, 8 conns (req/s)"
    row vl "viewer p99 while logIn saturates (ms; lower is better)"
    row cpu_viewer "server CPU per viewer, cache on (µs; lower is better)"
    row cpu_viewer_nocache "server CPU per viewer, cache off (µs; PostgreSQL's not included)"
    row cpu_health "server CPU per \`{ health }\` (µs; lower is better)"
    echo
    echo "Errors over all runs (must be 0): base **${ERR[base]}**, new **${ERR[new]}**."
} >"$TABLE"
cat "$TABLE"
if [ -n "${COMPARE_OUT:-}" ]; then
    case "$COMPARE_OUT" in /*) ;; *) COMPARE_OUT="$CALLER_PWD/$COMPARE_OUT" ;; esac
    cp "$TABLE" "$COMPARE_OUT"; log "table written to $COMPARE_OUT"
fi
if [ "${ERR[base]}" != 0 ] || [ "${ERR[new]}" != 0 ]; then log "errors in the runs (see FIRST_ERROR lines above)"; exit 1; fi
