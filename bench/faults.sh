#!/usr/bin/env bash
# make faults: (a) PostgreSQL restarted under the mixed load, (b) the server SIGKILLed during
# sign-ups (alone, then together with PostgreSQL), (c) pool and password hashing exhausted.
# Bounded in time (~3 minutes); exits non-zero on any failed check. RESULTS=1 writes the section
# "## Faults" of bench/RESULTS.md. Uses the minimum hash cost except in (c), so that sign-ups
# and log-ins are many; nothing here measures throughput.
source "$(dirname "$0")/lib.sh"
ensure_tools
build_release gatehouse
export BENCH_LUA="$ROOT/bench/lua"
REPORT="$(mktemp /tmp/ghb-faults-XXXXXX.md)"; BENCH_DIRS+=("$REPORT")
FAIL=0
note() { echo "$*" >>"$REPORT"; echo "$*" >&2; }
check() {  # check DESCRIPTION COMMAND...
    local what="$1"; shift
    if "$@"; then note "- $what: ok"; else note "- $what: **FAILED**"; FAIL=1; fi
}
pyq() { python3 -c "$1" "${@:2}"; }
PG_AS=(runuser -u gatehouse --)
LOAD_START="$(load_avg)"

PARTS="${FAULTS_PARTS:-a b c}"
# ---------------------------------------------------------------------------------------------
if [[ " $PARTS " == *" a "* ]]; then
note "### (a) PostgreSQL restarted during the mixed load"
note ""
new_dir; DIR="$NEW_DIR"
start_server "$DIR" "$DIR/server.log" GATEHOUSE_HASH_COST=minimum GATEHOUSE_POOL_TIMEOUT=2 GATEHOUSE_POOL_SIZE=10
PID=$SERVER_PID URL=$SERVER_URL CONNINFO="$(pg_conninfo "$DIR")"
python3 "$ROOT/bench/client.py" seed "$URL" 400 "$DIR/users.txt" 8 fu
# The probe's users (viewer/logIn) are not the wrk's, so wrk's logOuts never hit the probe.
head -200 "$DIR/users.txt" >"$DIR/wrk-users.txt"; tail -200 "$DIR/users.txt" >"$DIR/probe-users.txt"
BENCH_USERS="$DIR/wrk-users.txt" BENCH_THREADS=8 run_wrk "$DIR/wrk-a" 8 8 24 mixed.lua "$URL" &
WRK=$!
python3 "$ROOT/bench/client.py" probe "$URL" "$DIR/probe-users.txt" "$DIR/probe-a" 24 viewer,login,signup 6 &
PROBE=$!
sleep 6
T_DOWN=$(date +%s.%N)
"${PG_AS[@]}" "$PGBIN/pg_ctl" stop -D "$DIR/pg" -m fast -w -t 30 >/dev/null
T_STOPPED=$(date +%s.%N)
sleep 6
T_START=$(date +%s.%N)
"${PG_AS[@]}" "$PGBIN/pg_ctl" start -D "$DIR/pg" -l "$DIR/pg-restart.log" -w -t 30 >/dev/null
T_UP=$(date +%s.%N)
wait "$PROBE" || true; wait "$WRK" || true
ALIVE=0; kill -0 "$PID" 2>/dev/null && ALIVE=1
ANALYSIS="$(pyq '
import sys
t_down, t_stopped, t_up = map(float, sys.argv[2:5])
rows = [l.split() for l in open(sys.argv[1])]
rows = [(float(a), float(b), k, int(s), int(c), m) for a, b, k, s, c, m in rows]
during = [r for r in rows if r[0] >= t_stopped and r[0] + r[1] <= t_up]
down_err = [r for r in during if r[4] != 0]
msgs = sorted(set(r[5] for r in down_err))
maxlat = max(r[1] for r in rows)
kinds = ["viewer", "login", "signup"]
first_ok = {k: min([r[0] + r[1] for r in rows if r[2] == k and r[4] == 0 and r[0] >= t_up] or [1e18]) - t_up for k in kinds}
late_fail = [r for r in rows if r[0] >= t_up + 5 and r[4] != 0]
before = [r for r in rows if r[0] + r[1] < t_down]
print(f"requests={len(rows)} before_down={len(before)} before_down_errors={sum(1 for r in before if r[4] != 0)} "
      f"while_down={len(during)} while_down_errors={len(down_err)} max_latency_s={maxlat:.3f} "
      f"recovered_s=" + "/".join(f"{first_ok[k]:.2f}" for k in kinds) + f" failures_after_5s={len(late_fail)}")
print("messages=" + ",".join(msgs))
' "$DIR/probe-a" "$T_DOWN" "$T_STOPPED" "$T_UP")"
note "Probe (6 threads: viewer, logIn, signUp in turn; pool timeout 2 s) next to wrk mixed (8 connections);"
note "PostgreSQL stopped (\`pg_ctl stop -m fast\`) for ~6 s, then started again."
note ""
note "    $(head -1 <<<"$ANALYSIS")"
note "    $(tail -1 <<<"$ANALYSIS")  (messages of failed requests while down)"
note "    wrk mixed: $(grep RESULT "$DIR/wrk-a")"
note ""
kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$ANALYSIS" | head -1; }
check "server survived" [ "$ALIVE" = 1 ]
check "requests while down failed (not succeeded from nowhere, not hung): $(kv while_down_errors) of $(kv while_down)" \
    [ "$(kv while_down)" -gt 0 ]
check "no request took longer than the pool timeout + 1 s (max $(kv max_latency_s) s)" \
    awk -v x="$(kv max_latency_s)" 'BEGIN { exit !(x <= 3.0) }'
check "errors while down say \"Database unavailable.\" ($(tail -1 <<<"$ANALYSIS" | cut -d= -f2))" \
    bash -c "tail -1 <<<'$ANALYSIS' | cut -d= -f2 | tr ',' '\n' | grep -v '^$' | grep -qvx 'Database_unavailable.' && exit 1 || exit 0"
check "viewer/logIn/signUp succeed again within 5 s of PostgreSQL being back ($(kv recovered_s) s)" \
    awk -v x="$(kv recovered_s)" 'BEGIN { split(x, a, "/"); exit !(a[1] <= 5 && a[2] <= 5 && a[3] <= 5) }'
check "no failure later than 5 s after the restart ($(kv failures_after_5s))" [ "$(kv failures_after_5s)" = 0 ]
ORPHAN_USERS="$(psqlq "$CONNINFO" "SELECT count(*) FROM users u WHERE u.username LIKE 'fa%' AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.object_id AND s.created_with->>'action' = 'signup')")"
ORPHAN_SESSIONS="$(psqlq "$CONNINFO" "SELECT count(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.object_id = s.user_id)")"
SIGNED="$(psqlq "$CONNINFO" "SELECT count(*) FROM users WHERE username LIKE 'fa%'")"
check "every user signed up during the test has its sign-up session ($ORPHAN_USERS of $SIGNED without)" [ "$ORPHAN_USERS" = 0 ]
check "no session without a user ($ORPHAN_SESSIONS)" [ "$ORPHAN_SESSIONS" = 0 ]
stop_server "$PID"
fi

# ---------------------------------------------------------------------------------------------
if [[ " $PARTS " == *" b "* ]]; then
note ""
note "### (b) SIGKILL during sign-ups, then restart on the same data directory"
note ""
new_dir; DIR="$NEW_DIR"
for round in server both; do
    start_server "$DIR" "$DIR/server-$round.log" GATEHOUSE_HASH_COST=minimum
    PID=$SERVER_PID URL=$SERVER_URL CONNINFO="$(pg_conninfo "$DIR")"
    python3 "$ROOT/bench/client.py" signup-until-dead "$URL" "$DIR/su-$round" 8 "k$round" 20 &
    SU=$!
    sleep 4
    if [ "$round" = both ]; then
        PM="$(head -1 "$DIR/pg/postmaster.pid")"
        kill -KILL "$PID" "$PM"
        for _ in $(seq 100); do pgrep -u gatehouse -f "$DIR/pg" >/dev/null || pgrep -P "$PM" >/dev/null || break; sleep 0.1; done
    else
        kill -KILL "$PID"
    fi
    wait "$SU" || true
    STALE=no; [ -f "$DIR/pg/postmaster.pid" ] && STALE=yes
    T0=$(date +%s.%N)
    URL=""
    start_server "$DIR" "$DIR/server-$round-2.log" GATEHOUSE_HASH_COST=minimum || { tail -5 "$DIR/postgres.log" >&2; }
    PID=${SERVER_PID:-0} URL=${SERVER_URL:-}
    T1=$(date +%s.%N)
    GRANTED=$(wc -l <"$DIR/su-$round.granted") ATTEMPTED=$(wc -l <"$DIR/su-$round.attempted")
    LOGIN="$(python3 "$ROOT/bench/client.py" login-all "$URL" "$DIR/su-$round.granted" || true)"
    psqlq "$CONNINFO" "SELECT username FROM users WHERE username LIKE 'k$round%'" | sort >"$DIR/db-$round"
    cut -d' ' -f1 "$DIR/su-$round.granted" | sort >"$DIR/granted-$round"
    cut -d' ' -f1 "$DIR/su-$round.attempted" | sort >"$DIR/attempted-$round"
    EXTRA="$(comm -23 "$DIR/db-$round" "$DIR/granted-$round" | wc -l)"
    EXTRA_UNATTEMPTED="$(comm -23 "$DIR/db-$round" "$DIR/granted-$round" | comm -23 - "$DIR/attempted-$round" | wc -l)"
    MISSING="$(comm -13 "$DIR/db-$round" "$DIR/granted-$round" | wc -l)"
    what=$([ "$round" = server ] && echo "the server alone (PostgreSQL left running, adopted on restart)" || echo "the server and the postmaster together (stale postmaster.pid: $STALE)")
    note "SIGKILL of $what after ~4 s of 8 parallel sign-ups: $GRANTED tokens received of $ATTEMPTED attempts;"
    note "restart took $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }') s; $LOGIN"
    note ""
    check "restart after killing $round: server up, database recovered" [ -n "$URL" ]
    check "every user that got a token exists ($MISSING missing) and logs in, its token still valid" \
        bash -c "[ '$MISSING' = 0 ] && grep -q 'failed=0' <<<'$LOGIN'"
    check "users without a received token: $EXTRA, all among the requests in flight at the kill (at most 8)" \
        bash -c "[ '$EXTRA_UNATTEMPTED' = 0 ] && [ '$EXTRA' -le 8 ]"
    stop_server "$PID"
done
fi

# ---------------------------------------------------------------------------------------------
if [[ " $PARTS " == *" c "* ]]; then
note ""
note "### (c) Pool and password hashing exhausted"
note ""
new_dir; DIR="$NEW_DIR"
start_server "$DIR" "$DIR/server.log" GATEHOUSE_POOL_SIZE=2 GATEHOUSE_POOL_TIMEOUT=1 GATEHOUSE_STATEMENT_TIMEOUT=1500 \
    GATEHOUSE_HASH_WORKERS=1 GATEHOUSE_HASH_MAX_WAIT=0.1 GATEHOUSE_SESSION_CACHE=false
PID=$SERVER_PID URL=$SERVER_URL CONNINFO="$(pg_conninfo "$DIR")"
python3 "$ROOT/bench/client.py" seed "$URL" 40 "$DIR/users.txt" 2 fc
summarize() {  # summarize FILE [from to]: counts by outcome, max and p99 latency
    pyq '
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
lo, hi = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) > 3 else (0, 1e18)
rows = [r for r in rows if lo <= float(r[0]) <= hi]
lat = sorted(float(r[1]) for r in rows)
by = {}
for r in rows: by[(r[4], r[5])] = by.get((r[4], r[5]), 0) + 1
p99 = lat[int(0.99 * (len(lat) - 1))] if lat else 0
print(f"n={len(rows)} max_s={max(lat or [0]):.3f} p99_s={p99:.3f} " + " ".join(f"[{c}:{m}]={n}" for (c, m), n in sorted(by.items())))
' "$@"
}
# Hashing: 1 worker admitting waits up to 0.1 s (about one waiting), 16 clients logging in at the production cost.
python3 "$ROOT/bench/client.py" probe "$URL" "$DIR/users.txt" "$DIR/hash" 8 login 16
H="$(summarize "$DIR/hash")"
note "Hashing (1 worker, max wait 0.1 s, interactive cost), 16 clients logging in for 8 s: $H"
check "hashing overload is refused with 155 \"Too many requests.\", nothing else fails" \
    bash -c "grep -q '\[155:Too_many_requests.\]' <<<'$H' && ! grep -oE '\[[^]]*\]' <<<'$H' | grep -vE '^\[(0|155):' >/dev/null"
check "log-ins still succeed under the overload" grep -q '\[0:-\]' <<<"$H"
check "latency bounded (max $(sed -n 's/.*max_s=\([^ ]*\).*/\1/p' <<<"$H") s < 2 s)" \
    awk -v x="$(sed -n 's/.*max_s=\([^ ]*\).*/\1/p' <<<"$H")" 'BEGIN { exit !(x < 2) }'
# Pool: a transaction holds an exclusive lock on sessions for 5 s, so the 2 pooled connections
# block (statement timeout 1.5 s) and other requests wait for one (pool timeout 1 s).
python3 "$ROOT/bench/client.py" probe "$URL" "$DIR/users.txt" "$DIR/pool" 12 viewer 16 &
PROBE=$!
sleep 2
T_LOCK=$(date +%s.%N)
"$PGBIN/psql" "$CONNINFO" -XAtq -c "BEGIN; LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(5); COMMIT;" >/dev/null
T_FREE=$(date +%s.%N)
wait "$PROBE" || true
P_DURING="$(summarize "$DIR/pool" "$T_LOCK" "$T_FREE")"
P_AFTER="$(summarize "$DIR/pool" "$(awk -v t="$T_FREE" 'BEGIN { printf "%.3f", t + 1 }')" 1e18)"
note "Pool (2 connections, pool timeout 1 s, statement timeout 1.5 s, session cache off), 16 viewer clients;"
note "a psql transaction holds ACCESS EXCLUSIVE on sessions for 5 s."
note ""
note "    during the lock: $P_DURING"
note "    from 1 s after:  $P_AFTER"
note ""
check "exhausted pool answers \"Database unavailable.\" and nothing else fails" \
    bash -c "grep -q 'Database_unavailable.' <<<'$P_DURING' && ! grep -oE '\[[^]]*\]' <<<'$P_DURING' | grep -vE '^\[(0:-|1:Database_unavailable.)\]' >/dev/null"
check "latency bounded by pool timeout + statement timeout (max $(sed -n 's/.*max_s=\([^ ]*\).*/\1/p' <<<"$P_DURING") s <= 3 s)" \
    awk -v x="$(sed -n 's/.*max_s=\([^ ]*\).*/\1/p' <<<"$P_DURING")" 'BEGIN { exit !(x <= 3.0) }'
check "recovers when the lock is gone: all requests from 1 s after succeed" \
    bash -c "! grep -oE '\[[^]]*\]' <<<'$P_AFTER' | grep -vE '^\[0:' >/dev/null && grep -q '\[0:-\]' <<<'$P_AFTER'"
check "server survived" kill -0 "$PID"
stop_server "$PID"
fi

LOAD_END="$(load_avg)"
SECTION="$(mktemp /tmp/ghb-faults-section-XXXXXX.md)"; BENCH_DIRS+=("$SECTION")
{
    echo "## Faults"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`make faults\` (bench/faults.sh), release build, embedded PostgreSQL 15."
    echo "Load average $LOAD_START at the start, $LOAD_END at the end. Result: $([ "$FAIL" = 0 ] && echo "**all checks pass**" || echo "**some checks FAILED**")."
    echo "Probe lines: n = requests, then [code:message]=count (code 0 = success, -1 = transport error)."
    echo
    cat "$REPORT"
} >"$SECTION"
echo; cat "$SECTION"
[ "${RESULTS:-0}" = 1 ] && python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$SECTION"
exit "$FAIL"
