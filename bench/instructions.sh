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

callgrind_account "$DIR/runs"
measure() {  # measure BINARY SCRIPT [CACHE]: prints instructions per request (CACHE: true or false)
    callgrind_per_request "$1" "$2" "$D" "$DIR/runs" GATEHOUSE_SESSION_CACHE="${3:-true}" DATABASE_URL="$CONNINFO"
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
