#!/usr/bin/env bash
# Instructions per request of two builds: BASE_REV's release gatehouse and this tree's, each
# run under callgrind (2 HTTP event threads) against one database, counters zeroed after a
# warm-up, then ROUNDS runs of `{ health }` and of the viewer, session cache on and off. Instruction
# counts do not depend on the machine's other load, so small differences show.
#   bench/instructions.sh BASE_REV     ROUNDS (2)  BENCH_SECONDS (10, per run)
source "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] || { echo "usage: bench/instructions.sh BASE_REV   (ROUNDS, BENCH_SECONDS)" >&2; exit 2; }
ROUNDS="${ROUNDS:-2}"
D="${BENCH_SECONDS:-10}"
ensure_tools
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
base_binary "$1"
build_release gatehouse
NEW_BIN="$BIN/gatehouse"

new_dir; DIR="$NEW_DIR"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt"
# The base creates the database (a build refuses a schema newer than it knows; the new build applies
# its migrations when it starts), as the gatehouse account that the new build drops to.
BIN="$(dirname "$BASE_BIN")" SERVER_AS_ACCOUNT=1 start_server "$DIR/db" /dev/null
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" 64 "$BENCH_USERS" 8
CONNINFO="$(pg_conninfo "$DIR/db")"

# As root, both builds run as the gatehouse account (which the new one would drop to), and so does
# callgrind_control: vgdb reaches a process of its own user only.
AS_ACCOUNT=()
mkdir -p "$DIR/runs"
if [ "$(id -u)" = 0 ]; then
    AS_ACCOUNT=(setpriv --reuid=gatehouse --regid=gatehouse --clear-groups)
    chown gatehouse: "$DIR/runs"  # where callgrind writes
fi

measure() {  # measure BINARY SCRIPT [CACHE]: prints instructions per request (CACHE: true or false)
    local bin="$1" script="$2" cache="${3:-true}" port=$((20000 + RANDOM % 20000)) out="$DIR/runs/run.$RANDOM"
    GATEHOUSE_SESSION_CACHE="$cache" DATABASE_URL="$CONNINFO" GATEHOUSE_SECRET_KEY="$BENCH_SECRET_KEY" GATEHOUSE_RATE_LIMIT_ADDRESS=0 GATEHOUSE_RATE_LIMIT_ACCOUNT=0 GATEHOUSE_HTTP_THREADS=2 \
        "${AS_ACCOUNT[@]}" valgrind --tool=callgrind --callgrind-out-file="$out.cg.%p" "$bin" serve --port "$port" \
        >"$out.stdout" 2>/dev/null &
    local pid=$!
    BENCH_PIDS+=("$pid")
    for _ in $(seq 600); do grep -q "listening on" "$out.stdout" 2>/dev/null && break; sleep 0.2; done
    run_wrk "$out.warm" 2 1 5 "$script" "http://127.0.0.1:$port/graphql"
    "${AS_ACCOUNT[@]}" callgrind_control -z "$pid" >/dev/null
    run_wrk "$out.wrk" 2 1 "$D" "$script" "http://127.0.0.1:$port/graphql"
    "${AS_ACCOUNT[@]}" callgrind_control -d "$pid" >/dev/null  # the counts since the zeroing, in the first numbered dump
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    awk -v n="$(wrk_field "$out.wrk" requests)" '/^(summary|totals):/ { printf "%.0f\n", $2 / n; exit }' "$out.cg.$pid.1"
}

# Every base run before the first new one: the new build migrates the database when it starts, and
# an older build refuses a schema newer than it knows. Instruction counts do not depend on what else
# the machine does, so the two need not alternate.
declare -A COUNT
for build in base new; do
    bin="$BASE_BIN"; [ "$build" = base ] || bin="$NEW_BIN"
    for r in $(seq "$ROUNDS"); do
        for script in health viewer; do COUNT[$build.$script.$r]="$(measure "$bin" "$script.lua")"; done
        COUNT[$build.viewer-uncached.$r]="$(measure "$bin" viewer.lua false)"
    done
done
echo "| request | base $BASE_SHORT | new (working tree) |"
echo "| --- | ---: | ---: |"
for r in $(seq "$ROUNDS"); do
    for script in health viewer viewer-uncached; do echo "| $script (round $r) | ${COUNT[base.$script.$r]} | ${COUNT[new.$script.$r]} |"; done
done
