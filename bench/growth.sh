#!/usr/bin/env bash
# Growth: the same operations on a database of USERS users (imported with `gatehouse users
# import`) and USERS x SESSIONS_PER_USER sessions (made in SQL), beside a database of 1,000 users
# and as many sessions each, in one run: signUp and logIn at the minimum hash cost, the viewer
# with the session cache (hits) and without it (misses), logOut, resetPassword,
# revokeOtherSessions; the server's RSS; bytes on disk per user and per session; and each `users`
# search of bench/growth.py (every filter, each order, second pages, counts) with the master key on
# one connection, its p50 and p99 against the contract's 50 ms at p99. Each size has its own
# embedded cluster and servers; the measured users (BENCH_USERS_N, signed up through the API) are
# the same number at both sizes, the bulk (written by bench/growth.py) is what differs. Prints a
# table of the large size's figures as ratios to the small one's, then the searches' latencies.
# Runs alternate between the sizes, ROUNDS times.
#   bench/growth.sh [USERS (1000000)] [SESSIONS_PER_USER (10)] [SECONDS (5)] [ROUNDS (2)]
#   BENCH_USERS_N (300); BENCH_SEARCH_SECONDS (2): each search's run; GROWTH_OPS: the operations
#   to run (all by default, e.g. "reset"); BIN=dir of a built
#   gatehouse to skip the release build; BENCH_TMPDIR: where the clusters go (about 6 GB at the full
#   size; /tmp by default).
source "$(dirname "$0")/lib.sh"
BIG="${1:-1000000}"
PER_USER="${2:-10}"
D="${3:-5}"
ROUNDS="${4:-2}"
N="${BENCH_USERS_N:-300}"
SEARCH_SECONDS="${BENCH_SEARCH_SECONDS:-2}"
SMALL=1000
export BENCH_MASTER_KEY=growth-bench-master-key-0123456789
ensure_tools
if [ -z "${BIN:-}" ]; then build_release gatehouse; fi
new_dir; TOP="$NEW_DIR"
export BENCH_LUA="$ROOT/bench/lua"

# world LABEL SIZE: a cluster with SIZE imported users and SIZE x PER_USER sessions, N users
# signed up through the API, a server with the session cache (and the master key) and one
# without. Sets <LABEL>_{DIR,CACHED_PID,CACHED_URL,NOCACHE_PID,NOCACHE_URL}, writes <LABEL>'s
# build figures and the request bodies of its `users` searches (<LABEL>/queries).
world() {
    local label="$1" size="$2" dir="$TOP/$1"
    mkdir -p "$dir/out"
    # Every resetPassword writes its message at both sizes: with the contract's 3 per address and
    # hour, the 1,000 addresses of the small size are used up within seconds and the rest of its
    # run measures the no-send answer, a different path from the large size's.
    start_server "$dir" "$dir/server.log" GATEHOUSE_HASH_COST=minimum GATEHOUSE_MASTER_KEY="$BENCH_MASTER_KEY" \
        GATEHOUSE_MAIL_PER_ADDRESS_HOUR=1000000
    local cached_pid=$SERVER_PID cached_url=$SERVER_URL conninfo
    conninfo="$(pg_conninfo "$dir")"
    log "$label: signing up $N measured users"
    python3 "$ROOT/bench/client.py" seed "$cached_url" "$N" "$dir/users.txt" 8
    # Every imported user has the first measured user's hash (the minimum argon2id cost).
    local hash; hash="$(psqlq "$conninfo" "SELECT password_hash FROM users ORDER BY created_at LIMIT 1")"
    log "$label: writing a Parse export of $size users"
    python3 "$ROOT/bench/growth.py" export "$size" "$hash" >"$dir/export.jsonl"
    local t0 t1
    t0=$(date +%s.%N)
    DATABASE_URL="$conninfo" GATEHOUSE_SECRET_KEY="$BENCH_SECRET_KEY" "$BIN/gatehouse" users import --format parse \
        "$dir/export.jsonl" --batch-size 5000 >"$dir/import.txt"
    t1=$(date +%s.%N)
    log "$label: $(tail -1 "$dir/import.txt") in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
    echo "$size $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >"$dir/out/import"
    python3 "$ROOT/bench/growth.py" bulk-sql | "$PGBIN/psql" "$conninfo" -XAtq -v ON_ERROR_STOP=1 >/dev/null
    log "$label: making $((size * PER_USER)) sessions"
    t0=$(date +%s.%N)
    "$PGBIN/psql" "$conninfo" -XAtq -v ON_ERROR_STOP=1 >/dev/null <<SQL
INSERT INTO sessions (object_id, token_digest, user_id, installation_id, created_with, expires_at, created_at,
                      updated_at, last_used_at, user_agent)
SELECT 'z' || lpad(to_hex(u.k * $PER_USER + s.i), 9, '0'), sha256(convert_to('bulk-' || u.k || '-' || s.i, 'UTF8')),
       u.object_id, 'bulk-' || s.i, '{"action": "login", "authProvider": "password", "factors": ["password"]}',
       now() + interval '300 days', now(), now(), now(), 'growth.sh'
FROM (SELECT object_id, substr(object_id, 2)::bigint AS k FROM users WHERE object_id ~ '^g[0-9]{9}\$') AS u
CROSS JOIN generate_series(1, $PER_USER) AS s(i);
VACUUM ANALYZE users; VACUUM ANALYZE sessions; VACUUM ANALYZE user_identities; VACUUM ANALYZE user_totp;
SQL
    t1=$(date +%s.%N)
    log "$label: sessions made in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
    # Sessions to log out: copies of the measured users' sessions with fresh tokens.
    local m=$((ROUNDS * D * 3000))
    logout_sessions "$dir/users.txt" "$m" "$dir/logout.txt" "$conninfo"
    psqlq "$conninfo" "SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM sessions),
        (SELECT pg_total_relation_size('users') + pg_total_relation_size('user_identities')),
        pg_total_relation_size('sessions')" | tr '|' ' ' >"$dir/out/disk"
    log "$label: writing the users searches"
    python3 "$ROOT/bench/growth.py" queries "$cached_url" "$BENCH_MASTER_KEY" "$dir/queries"
    start_server "$dir/nocache" /dev/null DATABASE_URL="$conninfo" GATEHOUSE_SESSION_CACHE=false GATEHOUSE_HASH_COST=minimum
    eval "${label}_DIR=\$dir ${label}_CACHED_PID=\$cached_pid ${label}_CACHED_URL=\$cached_url"
    eval "${label}_NOCACHE_PID=\$SERVER_PID ${label}_NOCACHE_URL=\$SERVER_URL ${label}_SIZE=\$size"
}

world small "$SMALL"
world big "$BIG"

OPS="${GROWTH_OPS:-signup login viewer_hit viewer_miss logout reset revoke}"
# run LABEL OP ROUND: one run of OP against LABEL's servers; its ok/s in $TOP/LABEL/out/OP.ROUND.
run() {
    local label="$1" op="$2" r="$3" dir pid url nocache out
    eval "dir=\$${label}_DIR url=\$${label}_CACHED_URL nocache=\$${label}_NOCACHE_URL size=\$${label}_SIZE"
    out="$dir/out/$op.$r"
    export BENCH_USERS="$dir/users.txt" BENCH_TOKENS="$dir/logout.txt.$r" BENCH_EMAILS="$size"
    case $op in
        signup) BENCH_RUN="$label$r" run_wrk "$out" 8 8 "$D" signup.lua "$url" ;;
        login) run_wrk "$out" 8 8 "$D" login.lua "$url" ;;
        viewer_hit) run_wrk "$out" 64 2 "$D" viewer.lua "$url" ;;
        viewer_miss) run_wrk "$out" 64 2 "$D" viewer.lua "$nocache" ;;
        logout) BENCH_THREADS=8 run_wrk "$out" 8 8 "$D" logout.lua "$url" ;;
        reset) run_wrk "$out" 8 8 "$D" reset.lua "$url" ;;
        revoke) run_wrk "$out" 8 8 "$D" revoke.lua "$url" ;;
    esac
    grep FIRST_ERROR "$out" >&2 || true
}
for label in small big; do
    eval "dir=\$${label}_DIR"
    # Each round logs out its own share of the tokens.
    split -n "l/$ROUNDS" -d -a 1 "$dir/logout.txt" "$dir/logout.part."
    for r in $(seq "$ROUNDS"); do mv "$dir/logout.part.$((r - 1))" "$dir/logout.txt.$r"; done
done
log "load average at start: $(load_avg)"
for r in $(seq "$ROUNDS"); do
    first=small second=big
    [ $((r % 2)) = 0 ] && { first=big; second=small; }
    for op in $OPS; do run $first $op $r; run $second $op $r; done
    # The searches: one connection, one request at a time (an operator's console), each search at
    # one size and then the other; a second page missing at the small size (too few matches) is skipped.
    while read -r i _; do
        for label in $first $second; do
            eval "dir=\$${label}_DIR url=\$${label}_CACHED_URL"
            [ -f "$dir/queries/$i.json" ] || continue
            BENCH_BODY="$dir/queries/$i.json" run_wrk "$dir/out/users.$i.$r" 1 1 "$SEARCH_SECONDS" users.lua "$url"
            grep FIRST_ERROR "$dir/out/users.$i.$r" >&2 || true
        done
    done <"$big_DIR/queries/list"
    log "round $r done (load $(load_avg))"
done
log "load average at end: $(load_avg)"
for label in small big; do
    eval "pid=\$${label}_CACHED_PID dir=\$${label}_DIR"
    echo "$(rss_kib "$pid")" >"$dir/out/rss"
done

python3 - "$TOP" "$OPS" "$ROUNDS" <<'PY'
import os, re, statistics, sys
top, ops, rounds = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
def rate(label, op, r):
    text = open(f"{top}/{label}/out/{op}.{r}").read()
    m = re.search(r"ok_per_s=([0-9.]+)", text)
    e = re.search(r"errors=(\d+)", text)
    return float(m.group(1)) if m else 0.0, int(e.group(1)) if e else -1
sizes = {l: open(f"{top}/{l}/out/disk").read().split() for l in ("small", "big")}
rows = []
for op in ops:
    s = [rate("small", op, r) for r in range(1, rounds + 1)]
    b = [rate("big", op, r) for r in range(1, rounds + 1)]
    ss, bs = statistics.median(x[0] for x in s), statistics.median(x[0] for x in b)
    err = sum(x[1] for x in s + b)
    # A rate: the small size's over the large one's, so that above 1 is slower at size.
    rows.append((f"{op} (req/s)", f"{ss:.0f}", f"{bs:.0f}", ss / bs if bs else float("nan"), f"errors {err}"))
rss = {l: int(open(f"{top}/{l}/out/rss").read()) for l in ("small", "big")}
rows.append(("server RSS (MiB)", f"{rss['small']/1024:.1f}", f"{rss['big']/1024:.1f}", rss["big"] / rss["small"], ""))
for name, num, den in (("bytes per user", 2, 0), ("bytes per session", 3, 1)):
    a = int(sizes["small"][num]) / int(sizes["small"][den]); b = int(sizes["big"][num]) / int(sizes["big"][den])
    rows.append((name, f"{a:.0f}", f"{b:.0f}", b / a, ""))
imports = {l: open(f"{top}/{l}/out/import").read().split() for l in ("small", "big")}
users = {l: sizes[l][0] for l in sizes}; sessions = {l: sizes[l][1] for l in sizes}
print(f"| measure | {users['small']} users, {sessions['small']} sessions | {users['big']} users, {sessions['big']} sessions | ratio | |")
print("| --- | ---: | ---: | ---: | --- |")
for name, a, b, q, note in rows:
    print(f"| {name} | {a} | {b} | {q:.2f} | {note} |")
for l in ("small", "big"):
    n, t = imports[l]
    print(f"import of {n} users: {t} s ({int(n) / float(t):.0f} users/s)")
print("ratio: for rates, the small size's over the large one's; otherwise large over small (1.00: flat)")

# The users searches: p50 and p99 in ms, each the median over the rounds, and matches at each size.
def latency(path, pct):
    m = re.search(rf"^\s*{pct}%\s+([0-9.]+)(us|ms|s)\s*$", open(path).read(), re.M)
    if not m: return None
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
def searches(label):
    rows = {}
    for line in open(f"{top}/{label}/queries/list"):
        i, matches, name = line.rstrip("\n").split(" ", 2)
        runs = [f"{top}/{label}/out/users.{i}.{r}" for r in range(1, rounds + 1)]
        runs = [p for p in runs if os.path.exists(p)]
        p50 = [latency(p, 50) for p in runs]; p99 = [latency(p, 99) for p in runs]
        errors = sum(int(m.group(1)) for p in runs for m in [re.search(r"errors=(\d+)", open(p).read())] if m)
        ok = bool(runs) and None not in p50 + p99
        rows[i] = (name, int(matches), statistics.median(p50) if ok else None, statistics.median(p99) if ok else None, errors)
    return rows
small, big = searches("small"), searches("big")
ms = lambda v: "-" if v is None else f"{v:.2f}"
print()
a, b = users["small"], users["big"]
print(f"| users search (master key, 1 connection) | matches of {a} | matches of {b} | p50 at {a} (ms) | p99 at {a} (ms) "
      f"| p50 at {b} (ms) | p99 at {b} (ms) | p99 under 50 ms at {b} | errors |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
failed = []
for i, (name, matches, p50, p99, errors) in big.items():
    s = small.get(i, (name, None, None, None, 0))
    verdict = "-" if p99 is None else "pass" if p99 < 50 and errors == 0 else "FAIL"
    if verdict == "FAIL": failed.append(name)
    print(f"| {name} | {'-' if s[1] is None else s[1]} | {matches} | {ms(s[2])} | {ms(s[3])} | {ms(p50)} | {ms(p99)} "
          f"| {verdict} | {errors + s[4]} |")
print(f"users searches at {b} users over 50 ms at p99: {len(failed)} of {len(big)}" + (f" ({', '.join(failed)})" if failed else ""))
PY
