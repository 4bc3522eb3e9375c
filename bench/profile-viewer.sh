#!/usr/bin/env bash
# Issue 29's figure: the cached viewer selecting displayName, photoURL and three declared fields
# (bench/user-fields.graphql) beside the same viewer without them, on one release server with
# those fields declared and every seeded user's profile set. ROUNDS interleaved timed runs of both
# (successful requests per second, the profile viewer first in even rounds), then the instructions
# per request of both under callgrind (stable on a loaded machine, unlike timings).
#   bench/profile-viewer.sh    ROUNDS (9)  BENCH_SECONDS (8, per run)  BENCH_USERS_N (500)
#   CALLGRIND_SECONDS (10; 0 skips callgrind)
source "$(dirname "$0")/lib.sh"
ROUNDS="${ROUNDS:-9}"
D="${BENCH_SECONDS:-8}"
N="${BENCH_USERS_N:-500}"
CG_SECONDS="${CALLGRIND_SECONDS:-10}"
ensure_tools
build_release gatehouse
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt"
# A copy the server reads after it drops to the gatehouse account.
FIELDS="$DIR/user-fields.graphql"
cp "$ROOT/bench/user-fields.graphql" "$FIELDS"; chmod 644 "$FIELDS"

start_server "$DIR/db" "$DIR/server.log" GATEHOUSE_USER_FIELDS="@$FIELDS"
log "seeding $N users with their profiles ($(load_avg))"
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" "$N" "$BENCH_USERS" 8
python3 "$ROOT/bench/client.py" profiles "$SERVER_URL" "$BENCH_USERS"
for script in viewer viewer-profile; do run_wrk "$OUT/warmup.$script" 64 2 2 "$script.lua" "$SERVER_URL"; done

declare -A RPS CPU
for r in $(seq "$ROUNDS"); do
    order=(viewer viewer-profile); [ $((r % 2)) = 0 ] && order=(viewer-profile viewer)
    for script in "${order[@]}"; do
        run_wrk_cpu "$OUT/$script.$r" 64 2 "$D" "$script.lua" "$SERVER_URL"
        [ "$(wrk_errors "$OUT/$script.$r")" = 0 ] || { grep -E "FIRST_ERROR|Socket errors" "$OUT/$script.$r" >&2; exit 1; }
        RPS[$script.$r]="$(wrk_rps "$OUT/$script.$r")"
        CPU[$script.$r]="$(cpu_per_request "$OUT/$script.$r" server)"
    done
    log "round $r: viewer ${RPS[viewer.$r]}, with the profile ${RPS[viewer-profile.$r]} requests/s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
plain=(); profile=(); ratios=(); cpu_plain=(); cpu_profile=(); cpu_ratios=()
for r in $(seq "$ROUNDS"); do
    plain+=("${RPS[viewer.$r]}"); profile+=("${RPS[viewer-profile.$r]}")
    ratios+=("$(ratio "${RPS[viewer-profile.$r]}" "${RPS[viewer.$r]}")")
    cpu_plain+=("${CPU[viewer.$r]}"); cpu_profile+=("${CPU[viewer-profile.$r]}")
    cpu_ratios+=("$(ratio "${CPU[viewer.$r]}" "${CPU[viewer-profile.$r]}")")
done
# The server's CPU per request, the other view of the same runs: a ratio of plain over profile,
# so that it reads like the rates' (1.0 = the profile costs nothing more).
echo "| round | viewer { user { username } } (req/s) | + displayName photoURL bio newsletter plan (req/s) | ratio | server CPU µs per request (plain / profile) | ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for r in $(seq "$ROUNDS"); do
    echo "| $r | ${RPS[viewer.$r]} | ${RPS[viewer-profile.$r]} | ${ratios[$((r - 1))]} | ${CPU[viewer.$r]} / ${CPU[viewer-profile.$r]} | ${cpu_ratios[$((r - 1))]} |"
done
m1="$(median "${plain[@]}")"; m2="$(median "${profile[@]}")"
c1="$(median "${cpu_plain[@]}")"; c2="$(median "${cpu_profile[@]}")"
echo "| median | $m1 | $m2 | $(ratio "$m2" "$m1") (of the rounds' ratios: $(median "${ratios[@]}")) | $c1 / $c2 | $(ratio "$c1" "$c2") (of the rounds': $(median "${cpu_ratios[@]}")) |"
echo "load average after the timed runs: $(load_avg)"

if [ "$CG_SECONDS" != 0 ]; then
    command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
    callgrind_account "$DIR/runs"
    CONNINFO="$(pg_conninfo "$DIR/db")"
    # 64 users, as bench/instructions.sh: the warm-up caches every session, so the counts are the cached viewer's.
    head -64 "$BENCH_USERS" >"$DIR/users-64.txt"
    export BENCH_USERS="$DIR/users-64.txt"
    declare -A COUNT
    for script in viewer viewer-profile viewer viewer-profile; do
        COUNT[$script]="${COUNT[$script]:-} $(callgrind_per_request "$BIN/gatehouse" "$script.lua" "$CG_SECONDS" "$DIR/runs" \
            DATABASE_URL="$CONNINFO" GATEHOUSE_USER_FIELDS="@$FIELDS")"
    done
    echo
    echo "| request | instructions per request (two runs) |"
    echo "| --- | ---: |"
    echo "| viewer { user { username } } |${COUNT[viewer]} |"
    echo "| + displayName photoURL bio newsletter plan |${COUNT[viewer-profile]} |"
fi
