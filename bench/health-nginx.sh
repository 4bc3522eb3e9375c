#!/usr/bin/env bash
# `{ health }` beside nginx answering the same request with a fixed body from its configuration
# (`return 200`), in interleaved rounds: wrk -t2 -c64 and the same Lua script (POST, body
# checked) against each. Gatehouse logs every request (level info, its default) to a file; nginx
# (2 workers, keep-alive without a request limit) runs twice, with its access log to a file and
# without one. The target: Gatehouse at least 0.7 of nginx.
#   bench/health-nginx.sh [rounds (5)] [seconds per run (8)]
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-5}"
D="${2:-8}"
ensure_tools
command -v nginx >/dev/null || apt-get install -y nginx-light >/dev/null
build_release gatehouse
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua"

start_server "$DIR/gatehouse" "$DIR/gatehouse-requests.log"
GH_URL=$SERVER_URL

# nginx_conf NAME PORT ACCESS_LOG: a configuration answering every request with the health body.
nginx_conf() {
    mkdir -p "$DIR/$1"
    cat >"$DIR/$1/nginx.conf" <<EOF
worker_processes 2;
pid $DIR/$1/nginx.pid;
error_log $DIR/$1/error.log;
events { worker_connections 4096; }
http {
    access_log $3;
    keepalive_requests 100000000;
    client_body_temp_path $DIR/$1/body;
    proxy_temp_path $DIR/$1/proxy;
    fastcgi_temp_path $DIR/$1/fastcgi;
    uwsgi_temp_path $DIR/$1/uwsgi;
    scgi_temp_path $DIR/$1/scgi;
    server {
        listen 127.0.0.1:$2;
        location / { default_type application/json; return 200 '{"data":{"health":true}}'; }
    }
}
EOF
    nginx -p "$DIR/$1" -c "$DIR/$1/nginx.conf"
    for _ in $(seq 50); do [ -s "$DIR/$1/nginx.pid" ] && break; sleep 0.1; done
    NGINX_PIDS+=("$(cat "$DIR/$1/nginx.pid")")
}
NGINX_PIDS=()
stop_nginx() { for pid in "${NGINX_PIDS[@]}"; do kill -QUIT "$pid" 2>/dev/null || true; done; }
trap 'stop_nginx; cleanup' EXIT
LOGGED_PORT=$((20000 + RANDOM % 10000)) QUIET_PORT=$((30000 + RANDOM % 10000))
nginx_conf logged "$LOGGED_PORT" "$DIR/logged/access.log"
nginx_conf quiet "$QUIET_PORT" off
for url in "$GH_URL" "http://127.0.0.1:$LOGGED_PORT/graphql" "http://127.0.0.1:$QUIET_PORT/graphql"; do
    curl -sf -X POST -H 'Content-Type: application/json' -d '{"query":"{ health }"}' "$url" | grep -q '"health":true' \
        || { echo "no health answer from $url" >&2; exit 1; }
done

log "load average at start: $(load_avg)"
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    # The order turns each round, so no side always runs first.
    order=(gatehouse logged quiet)
    for _ in $(seq $(((r - 1) % 3))); do order=("${order[@]:1}" "${order[0]}"); done
    for side in "${order[@]}"; do
        case $side in
            gatehouse) url="$GH_URL" ;;
            logged) url="http://127.0.0.1:$LOGGED_PORT/graphql" ;;
            quiet) url="http://127.0.0.1:$QUIET_PORT/graphql" ;;
        esac
        run_wrk "$OUT/$side.$r" 64 2 "$D" health.lua "$url"
    done
    g="$(wrk_rps "$OUT/gatehouse.$r")" l="$(wrk_rps "$OUT/logged.$r")" q="$(wrk_rps "$OUT/quiet.$r")"
    e=0; for side in gatehouse logged quiet; do e=$((e + $(wrk_errors "$OUT/$side.$r"))); done
    echo "$g $l $q $(wrk_pct "$OUT/gatehouse.$r" 99) $(wrk_pct "$OUT/logged.$r" 99) $(wrk_pct "$OUT/quiet.$r" 99) $e" >>"$OUT/rounds"
    log "round $r: { health } $g req/s; nginx logged $l ($(ratio "$g" "$l")), without a log $q ($(ratio "$g" "$q")); errors $e"
done
LOAD="$(load_avg)"
logged_lines=$(wc -l <"$DIR/logged/access.log") gatehouse_lines=$(grep -c '"msg":"request"' "$DIR/gatehouse-requests.log" || true)
python3 - "$OUT/rounds" "$ROUNDS" "$D" "$LOAD" "$gatehouse_lines" "$logged_lines" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
rounds, d, load, gl, nl = sys.argv[2:7]
med = lambda i: statistics.median(r[i] for r in rows)
rl = [r[0] / r[1] for r in rows]; rq = [r[0] / r[2] for r in rows]
print(f"bench/health-nginx.sh {rounds} {d}: {len(rows)} interleaved rounds of {d} s, wrk -t2 -c64; load at the end {load}")
print()
print("| round | { health } (req/s) | nginx, access log (req/s) | ratio | nginx, no log (req/s) | ratio | p99 ms (ours / logged / no log) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
for i, r in enumerate(rows, 1):
    print(f"| {i} | {r[0]:.0f} | {r[1]:.0f} | {r[0] / r[1]:.2f} | {r[2]:.0f} | {r[0] / r[2]:.2f} | {r[3]:.2f} / {r[4]:.2f} / {r[5]:.2f} |")
print(f"| median | {med(0):.0f} | {med(1):.0f} | **{statistics.median(rl):.2f}** | {med(2):.0f} | **{statistics.median(rq):.2f}** | |")
print()
print(f"Errors: {int(sum(r[6] for r in rows))}. Request log lines written: Gatehouse {gl}, nginx {nl}.")
PY
