# Shared helpers for the load, soak, fault and timing scripts (sourced, not run).
# All traffic goes to 127.0.0.1; every process started here is recorded and killed on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"
PGBIN="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
BENCH_PIDS=()
BENCH_DIRS=()
BENCH_CLUSTERS=()

log() { echo "[$(date +%T)] $*" >&2; }

ensure_tools() {
    if ! command -v wrk >/dev/null; then
        apt-get install -y wrk >/dev/null || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
    fi
    [ -x "$PGBIN/pgbench" ] || { echo "pgbench not found in $PGBIN" >&2; exit 1; }
}

build_release() {
    local p
    for p in "$@"; do
        swift build -c release --product "$p" --explicit-target-dependency-import-check error >&2
    done
    BIN="$(swift build -c release --show-bin-path)"
}

# Kills what we started (servers by pid, then clusters via pg_ctl), removes temp dirs and a
# base build's worktree.
cleanup() {
    remove_base_worktree
    local pid
    for pid in "${BENCH_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${BENCH_PIDS[@]}"; do
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    local c
    for c in "${BENCH_CLUSTERS[@]}"; do
        [ -f "$c/postmaster.pid" ] && runuser -u gatehouse -- "$PGBIN/pg_ctl" stop -D "$c" -m immediate -w -t 20 >/dev/null 2>&1 || true
    done
    local d
    for d in "${BENCH_DIRS[@]}"; do [ -n "${KEEP_DATA:-}" ] || rm -rf "$d"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# base_binary REV: BASE_BIN, the release gatehouse of commit REV (and BASE_HASH, BASE_SHORT).
# Built in a temporary detached worktree (removed at once, or on exit) and kept in
# .build/compare/<commit>/gatehouse, so the next use of that commit skips the build.
BASE_WT=""
base_binary() {
    BASE_HASH="$(git -C "$ROOT" rev-parse --verify --quiet "$1^{commit}")" || { echo "not a commit: $1" >&2; exit 2; }
    BASE_SHORT="$(git -C "$ROOT" rev-parse --short "$BASE_HASH")"
    BASE_BIN="$ROOT/.build/compare/$BASE_HASH/gatehouse"
    if [ -x "$BASE_BIN" ]; then
        log "base $1 ($BASE_SHORT): cached binary $BASE_BIN"
        return
    fi
    new_dir; BASE_WT="$NEW_DIR/src"
    log "base $1 ($BASE_SHORT): release build in a temporary worktree $BASE_WT"
    git -C "$ROOT" worktree add --quiet --detach "$BASE_WT" "$BASE_HASH" >&2
    ( cd "$BASE_WT" && timeout --foreground 3600 swift build -c release --product gatehouse >&2 )
    local built
    built="$(cd "$BASE_WT" && swift build -c release --show-bin-path)/gatehouse"
    mkdir -p "$(dirname "$BASE_BIN")"
    cp "$built" "$BASE_BIN.tmp$$" && mv "$BASE_BIN.tmp$$" "$BASE_BIN"
    remove_base_worktree
}
# builds_to_measure: BUILDS, one "label|directory of its gatehouse" per build: BASE_REV's release
# binary first when BASE_REV is set ("before"), then this tree's ("after", from build_release).
builds_to_measure() {
    BUILDS=()
    if [ -n "${BASE_REV:-}" ]; then
        base_binary "$BASE_REV"
        BUILDS+=("before ($BASE_SHORT)|$(dirname "$BASE_BIN")")
    fi
    BUILDS+=("after ($(git -C "$ROOT" rev-parse --short HEAD))|$BIN")
}
remove_base_worktree() {
    [ -n "$BASE_WT" ] || return 0
    git -C "$ROOT" worktree remove --force "$BASE_WT" >/dev/null 2>&1 || true
    rm -rf "$BASE_WT"
    git -C "$ROOT" worktree prune || true
    # SwiftPM's lock files for that build directory (named after its path).
    local build="$BASE_WT/.build" lock
    lock="${TMPDIR:-/tmp}/${build//\//_}"
    rm -f "$lock.lock" "${lock}_workspace-state.json.lock"
    BASE_WT=""
}

# new_dir: a temp dir in NEW_DIR, removed on exit (not via $(...): the subshell would lose it).
# BENCH_TMPDIR: where the working directories go (/tmp by default); a directory of its own, not
# TMPDIR, which the servers started here would inherit.
new_dir() { NEW_DIR="$(mktemp -d "${BENCH_TMPDIR:-/tmp}/ghb-XXXXXX")"; chmod 755 "$NEW_DIR"; BENCH_DIRS+=("$NEW_DIR"); }

# start_server DATA_DIR LOGFILE [env assignments...]: sets SERVER_PID and SERVER_PORT.
# Rate limits and the per-address connection cap off (every load generator is one loopback
# address); other settings from the environment / the arguments. With SERVER_AS_ACCOUNT=1 (as
# root), the server is started as the gatehouse account instead of dropping to it itself: for
# builds older than that account, whose cluster the newer builds must reach.
BENCH_SECRET_KEY=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

start_server() {
    local dir="$1" logfile="$2"; shift 2
    mkdir -p "$dir"; chmod 755 "$dir"
    local out="$dir/stdout.$RANDOM" as=()
    if [ "${SERVER_AS_ACCOUNT:-0}" = 1 ] && [ "$(id -u)" = 0 ]; then
        id gatehouse >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin --user-group gatehouse
        chown gatehouse: "$dir"
        as=(setpriv --reuid=gatehouse --regid=gatehouse --clear-groups)  # execs: SERVER_PID is the server
    fi
    # A fixed GATEHOUSE_SECRET_KEY: runs on DATABASE_URL need one (the embedded default makes its own).
    env GATEHOUSE_DATA_DIR="$dir" GATEHOUSE_RATE_LIMIT_ADDRESS=0 GATEHOUSE_RATE_LIMIT_ACCOUNT=0 \
        GATEHOUSE_MAX_CONNECTIONS_PER_ADDRESS=100000 GATEHOUSE_SECRET_KEY="$BENCH_SECRET_KEY" "$@" \
        "${as[@]}" "$BIN/gatehouse" serve --port 0 >"$out" 2>"$logfile" &
    SERVER_PID=$! SERVER_DIR="$dir"
    BENCH_PIDS+=("$SERVER_PID")
    [ -d "$dir/pg" ] && BENCH_CLUSTERS+=("$dir/pg") || true
    for _ in $(seq 1200); do
        if grep -q "listening on" "$out" 2>/dev/null; then break; fi
        kill -0 "$SERVER_PID" 2>/dev/null || { echo "server exited:" >&2; tail -20 "$logfile" >&2; return 1; }
        sleep 0.1
    done
    [ -d "$dir/pg" ] && BENCH_CLUSTERS+=("$dir/pg") || true
    SERVER_PORT="$(sed -n 's#.*127.0.0.1:\([0-9]*\)/graphql.*#\1#p' "$out" | head -1)"
    [ -n "$SERVER_PORT" ] || { echo "no port in server output" >&2; cat "$out" >&2; return 1; }
    SERVER_URL="http://127.0.0.1:$SERVER_PORT/graphql"
}

# seeded_server N: the release server on a fresh embedded database in DIR (OUT for the runs'
# outputs) with N users signed up into BENCH_USERS; SERVER_* name it, and BENCH_LUA and
# BENCH_USERS are exported for the Lua scripts.
seeded_server() {
    ensure_tools
    build_release gatehouse
    new_dir; DIR="$NEW_DIR"
    OUT="$DIR/out"; mkdir -p "$OUT"
    export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt"
    start_server "$DIR" "${SERVER_LOG:-/dev/null}"
    log "seeding $1 users"
    python3 "$ROOT/bench/client.py" seed "$SERVER_URL" "$1" "$BENCH_USERS" 8
}

stop_server() {  # stop_server PID: SIGTERM, wait up to 20 s
    local pid="$1"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

pg_conninfo() { echo "host=$1/run port=5432 dbname=gatehouse user=gatehouse"; }
psqlq() { "$PGBIN/psql" "$1" -XAtq -v ON_ERROR_STOP=1 -c "$2"; }

# The database's own ceiling for making sessions, beside a log-in that makes one: pgbench (64
# clients, prepared) inserting session rows alone into the server's embedded cluster in DIR for
# SECONDS, as a log-in's one write does, for up to 64 of its users (one script each, picked at
# random). Prints inserts per second.
#   session_insert_ceiling DIR SECONDS
session_insert_ceiling() {
    local conninfo i=0 args=()
    conninfo="$(pg_conninfo "$1")"
    mkdir -p "$1/session-insert"
    for user in $(psqlq "$conninfo" "SELECT object_id FROM users ORDER BY object_id LIMIT 64"); do
        i=$((i + 1))
        cat >"$1/session-insert/$i.sql" <<SQL
INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at, last_used_at)
VALUES (substr(md5(random()::text), 1, 10), sha256(convert_to(random()::text || clock_timestamp()::text, 'UTF8')), '$user',
        '{"action": "login", "authProvider": "bench", "factors": ["bench"]}', now() + interval '1 year', now(), now(), now());
SQL
        args+=(-f "$1/session-insert/$i.sql")
    done
    timeout $(($2 + 60)) "$PGBIN/pgbench" -n -M prepared -c 64 -j 2 -T "$2" "${args[@]}" "$conninfo" 2>&1 \
        | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1
}

# start_standby DIR: a streaming standby (pg_basebackup -R) of the running embedded cluster of
# DIR, in STANDBY_DIR/pg on port 5433 with its socket in STANDBY_DIR/run; STANDBY is its conninfo.
start_standby() {
    grep -q "^local replication" "$1/pg/pg_hba.conf" || echo "local replication all trust" >>"$1/pg/pg_hba.conf"
    psqlq "$(pg_conninfo "$1")" "SELECT pg_reload_conf()" >/dev/null
    new_dir; STANDBY_DIR="$NEW_DIR"; chown gatehouse: "$STANDBY_DIR"
    runuser -u gatehouse -- mkdir -m 700 "$STANDBY_DIR/run"
    runuser -u gatehouse -- "$PGBIN/pg_basebackup" -D "$STANDBY_DIR/pg" -R -X stream --checkpoint=fast \
        -h "$1/run" -p 5432 -U gatehouse
    BENCH_CLUSTERS+=("$STANDBY_DIR/pg")
    runuser -u gatehouse -- "$PGBIN/pg_ctl" -D "$STANDBY_DIR/pg" -l "$STANDBY_DIR/log" -w \
        -o "-c port=5433 -c unix_socket_directories=$STANDBY_DIR/run" start >/dev/null
    STANDBY="host=$STANDBY_DIR/run port=5433 dbname=gatehouse user=gatehouse"
}

rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
hwm_kib() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
fd_count() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# Samples VmRSS of PID every 0.2 s into FILE (max kept) until the sampler is stopped.
start_rss_sampler() {
    local pid="$1" file="$2"
    echo 0 >"$file"
    ( max=0; while kill -0 "$pid" 2>/dev/null; do
        r=$(rss_kib "$pid"); [ "${r:-0}" -gt "$max" ] && { max=$r; echo "$max" >"$file"; }
        sleep 0.2; done ) &
    SAMPLER_PID=$!
    BENCH_PIDS+=("$SAMPLER_PID")
}
stop_rss_sampler() { kill "$SAMPLER_PID" 2>/dev/null || true; wait "$SAMPLER_PID" 2>/dev/null || true; }

# run_wrk OUTFILE CONNS THREADS SECONDS SCRIPT URL [extra env]: wrk with a Lua script; output kept.
run_wrk() {
    local out="$1" c="$2" t="$3" d="$4" script="$5" url="$6"
    timeout $((d + 30)) wrk -t"$t" -c"$c" -d"${d}s" --timeout 10s --latency -s "$ROOT/bench/lua/$script" "$url" >"$out" 2>&1 || true
}

# callgrind_account RUNS_DIR: AS_ACCOUNT, the prefix that runs a command as the gatehouse account
# when root (a server under callgrind runs as the account it would drop to, and so must
# callgrind_control: vgdb reaches a process of its own user only), and RUNS_DIR made writable by it.
callgrind_account() {
    AS_ACCOUNT=()
    mkdir -p "$1"
    if [ "$(id -u)" = 0 ]; then
        AS_ACCOUNT=(setpriv --reuid=gatehouse --regid=gatehouse --clear-groups)
        chown gatehouse: "$1"  # where callgrind writes
    fi
}

# callgrind_per_request BINARY SCRIPT SECONDS RUNS_DIR [env assignments...]: the instructions per
# request of BINARY (serving under callgrind with 2 HTTP event threads, rate limits off, the
# assignments in its environment, DATABASE_URL among them) for the wrk script SCRIPT: a 5-second
# warm-up, the counters zeroed, then SECONDS of load. Call callgrind_account RUNS_DIR first.
# CALLGRIND_FLAGS adds options to callgrind's (a cache simulation, say); CALLGRIND_DUMP, a path,
# keeps a copy of the dump there for a closer look.
callgrind_per_request() {
    local bin="$1" script="$2" seconds="$3" port=$((20000 + RANDOM % 20000)) out="$4/run.$RANDOM"; shift 4
    env GATEHOUSE_SECRET_KEY="$BENCH_SECRET_KEY" GATEHOUSE_RATE_LIMIT_ADDRESS=0 GATEHOUSE_RATE_LIMIT_ACCOUNT=0 GATEHOUSE_HTTP_THREADS=2 "$@" \
        "${AS_ACCOUNT[@]}" valgrind --tool=callgrind ${CALLGRIND_FLAGS:-} --callgrind-out-file="$out.cg.%p" "$bin" serve --port "$port" \
        >"$out.stdout" 2>/dev/null &
    local pid=$!
    BENCH_PIDS+=("$pid")
    for _ in $(seq 600); do grep -q "listening on" "$out.stdout" 2>/dev/null && break; sleep 0.2; done
    run_wrk "$out.warm" 2 1 5 "$script" "http://127.0.0.1:$port/graphql"
    "${AS_ACCOUNT[@]}" callgrind_control -z "$pid" >/dev/null
    run_wrk "$out.wrk" 2 1 "$seconds" "$script" "http://127.0.0.1:$port/graphql"
    "${AS_ACCOUNT[@]}" callgrind_control -d "$pid" >/dev/null  # the counts since the zeroing, in the first numbered dump
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    [ -z "${CALLGRIND_DUMP:-}" ] || cp "$out.cg.$pid.1" "$CALLGRIND_DUMP"
    [ "$(wrk_errors "$out.wrk")" = 0 ] || { echo "errors in $script:" >&2; grep -E "FIRST_ERROR|Socket errors" "$out.wrk" >&2 || true; }
    awk -v n="$(wrk_field "$out.wrk" requests)" '/^(summary|totals):/ { printf "%.0f\n", $2 / n; exit }' "$out.cg.$pid.1"
}

# CPU milliseconds used so far by the server and by its database, as "server database": the
# server's utime+stime; for the database (the embedded cluster of the server's data directory
# DIR, whose postmaster runs on its own) the postmaster's and its backends' utime+stime plus what
# their exited children left them (cutime+cstime). Differences over a run, divided by its
# requests, give each side's CPU per request.
cpu_ms() {  # cpu_ms SERVER_PID DATA_DIR
    local pids=() queue=() i=0 own rest=0 tick
    tick="$(getconf CLK_TCK)"
    [ -f "$2/pg/postmaster.pid" ] && queue=("$(head -1 "$2/pg/postmaster.pid")") && pids=("${queue[0]}")
    while [ $i -lt ${#queue[@]} ]; do
        for c in $(cat /proc/"${queue[$i]}"/task/*/children 2>/dev/null); do queue+=("$c"); pids+=("$c"); done
        i=$((i + 1))
    done
    # The fields after the ")" that ends the command name: utime, stime, cutime, cstime are the 12th to 15th.
    own="$(sed 's/.*) //' /proc/"$1"/stat | awk '{ print $12 + $13 }')"
    for p in "${pids[@]}"; do
        rest=$((rest + $(sed 's/.*) //' /proc/"$p"/stat 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }' || echo 0)))
    done
    echo "$((own * 1000 / tick)) $((rest * 1000 / tick))"
}

# run_wrk, with the CPU the server and its database spent during it appended to the output as
# "CPU server_ms=.. database_ms=..": SERVER_PID and SERVER_DIR name the server measured.
run_wrk_cpu() {
    local out="$1" before after
    before="$(cpu_ms "$SERVER_PID" "$SERVER_DIR")"
    run_wrk "$@"
    after="$(cpu_ms "$SERVER_PID" "$SERVER_DIR")"
    set -- $before $after
    echo "CPU server_ms=$(($3 - $1)) database_ms=$(($4 - $2))" >>"$out"
}

# Microseconds of CPU per successful request of a run_wrk_cpu output: cpu_per_request FILE server|database
cpu_per_request() {
    local ms ok
    ms="$(sed -n "s/^CPU.* $2_ms=\([0-9]*\).*/\1/p" "$1" | tail -1)"
    ok="$(wrk_field "$1" ok)"
    awk -v ms="$ms" -v ok="$ok" 'BEGIN { if (ok > 0) printf "%.0f", ms * 1000 / ok; else print "-" }'
}

# Fields of a wrk output (with our done() line "RESULT requests=.. errors=.. ...").
# Successful responses per second (from done()); plain wrk output (no Lua) falls back to Requests/sec.
wrk_rps() {
    local v; v="$(sed -n 's/^RESULT.* ok_per_s=\([^ ]*\).*/\1/p' "$1" | tail -1)"
    [ -n "$v" ] && echo "$v" || awk '/^Requests\/sec:/ { print $2 }' "$1"
}
wrk_pct() {  # wrk_pct FILE 50|99 -> milliseconds
    awk -v p="$2%" '$1 == p { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }; printf "%.2f", v }' "$1"
}
wrk_field() { sed -n "s/^RESULT.* $2=\([^ ]*\).*/\1/p" "$1" | tail -1; }
wrk_errors() {  # Lua-counted failures plus wrk's socket errors
    local e s
    e="$(wrk_field "$1" errors)"; s="$(awk '/Socket errors/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$1")"
    echo $(( ${e:-999999} + ${s:-0} ))
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
load_avg() { cut -d' ' -f1-3 /proc/loadavg; }

# logout_sessions USERS_FILE COUNT TOKENS_OUT CONNINFO: COUNT sessions to log out, copies of the
# users' sessions (USERS_FILE as client.py seed writes it) with fresh tokens, written to TOKENS_OUT
# (one token a line) and inserted through CONNINFO; sessions are analyzed after.
logout_sessions() {
    local users="$1" count="$2" tokens="$3" conninfo="$4" copy="$3.copy"
    python3 - "$users" "$count" "$tokens" "$copy" <<'PY'
import hashlib, os, sys
users = [l.split() for l in open(sys.argv[1]) if l.strip()]
with open(sys.argv[3], "w") as tokens, open(sys.argv[4], "w") as copy:
    for k in range(int(sys.argv[2])):
        token = "r:lo" + os.urandom(12).hex()
        tokens.write(token + "\n")
        copy.write(hashlib.sha256(token.encode()).hexdigest() + "\t" + users[k % len(users)][3] + "\n")
PY
    "$PGBIN/psql" "$conninfo" -XAtq -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE TEMP TABLE lo (digest text, user_id text);
\copy lo FROM '$copy'
INSERT INTO sessions SELECT (jsonb_populate_record(NULL::sessions, to_jsonb(s) || jsonb_build_object(
    'object_id', substr(md5(lo.digest), 1, 10), 'token_digest', '\\x' || lo.digest, 'installation_id', NULL))).*
FROM lo CROSS JOIN LATERAL (SELECT * FROM sessions WHERE user_id = lo.user_id LIMIT 1) AS s;
ANALYZE sessions;
SQL
}
