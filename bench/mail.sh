#!/usr/bin/env bash
# Mail delivery (issue 17): resetPassword throughput with SMTP delivery running, and whether
# delivering mail moves the viewer and logIn figures.
#   1. M users with an email, one resetPassword each (16 clients): requests/s, then messages/s
#      delivered to a real SMTP server (Debian's aiosmtpd, discarding) and the outbox lag
#      (sent_at - created_at) p50/p99.
#   2. The cost of delivery: a mail load alone (rows written to the outbox at MAIL_RATE a second,
#      delivered by the server's sender) for D seconds: the lag at that steady rate, and the CPU
#      time of the server and of the SMTP server per message.
#   3. Interleaved rounds: viewer (64 connections) and logIn (8) for D seconds each, without and
#      with that mail load beside them; medians and with/without ratios.
#   bench/mail.sh [rounds (3)] [seconds per run (8)]   BENCH_MAIL_USERS (3000), MAIL_RATE (50)
source "$(dirname "$0")/lib.sh"
ROUNDS="${1:-3}"
D="${2:-8}"
M="${BENCH_MAIL_USERS:-3000}"
RATE="${MAIL_RATE:-50}"
ensure_tools
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || apt-get install -y python3-aiosmtpd >/dev/null
build_release gatehouse
new_dir; DIR="$NEW_DIR"
OUT="$DIR/out"; mkdir -p "$OUT"
export BENCH_LUA="$ROOT/bench/lua" BENCH_USERS="$DIR/users.txt"

# The SMTP server: aiosmtpd discarding every message (Debian's python3-aiosmtpd).
SMTP_PORT="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
/usr/bin/python3 -m aiosmtpd -n -l "127.0.0.1:$SMTP_PORT" -c aiosmtpd.handlers.Sink >"$DIR/smtp.log" 2>&1 &
SMTP_PID=$!
BENCH_PIDS+=("$SMTP_PID")
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$SMTP_PORT") 2>/dev/null && break; sleep 0.1; done

start_server "$DIR" "${SERVER_LOG:-/dev/null}" GATEHOUSE_SMTP_URL="smtp://127.0.0.1:$SMTP_PORT?tls=none" GATEHOUSE_LOG_LEVEL=warn
URL=$SERVER_URL
METRICS="http://127.0.0.1:$SERVER_PORT/metrics"
CONNINFO="$(pg_conninfo "$DIR")"
log "seeding 300 users (logIn, viewer) and $M users with an email (resetPassword)"
python3 "$ROOT/bench/client.py" seed "$URL" 300 "$BENCH_USERS" 8
psqlq "$CONNINFO" "INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at)
    SELECT lpad(g::text, 10, 'm'), 'mail' || g, 'mail' || g || '@example.com', '\$argon2id\$x', '{}', now(), now()
    FROM generate_series(1, $M) g"
seq 1 "$M" | sed 's/.*/mail&@example.com/' >"$DIR/emails.txt"
sent_total() { curl -s "$METRICS" | awk '$1 == "gatehouse_mail_sent_total" { print $2 }'; }
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }
wait_drained() {
    for _ in $(seq 1200); do
        [ "$(psqlq "$CONNINFO" "SELECT count(*) FROM mail_outbox WHERE state = 'pending'")" = 0 ] && return; sleep 0.1
    done
}

log "load average at start: $(load_avg)"
log "throughput: $M resetPassword requests, 16 clients"
read -r REQS SECS FAILS < <(python3 "$ROOT/bench/client.py" reset-all "$URL" "$DIR/emails.txt" 16)
wait_drained
read -r QUEUED SENT FAILED MSGS P50 P99 < <(psqlq "$CONNINFO" "SELECT count(*), count(*) FILTER (WHERE state = 'sent'),
    count(*) FILTER (WHERE state = 'failed'),
    round((count(*) FILTER (WHERE state = 'sent') / extract(epoch FROM max(sent_at) - min(created_at)))::numeric, 1),
    round((1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)))::numeric, 1),
    round((1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)))::numeric, 1)
    FROM mail_outbox" | tr '|' ' ')
REQ_RATE="$(awk -v n="$REQS" -v s="$SECS" 'BEGIN { printf "%.1f", n / s }')"
log "resetPassword: $REQS requests in $SECS s ($REQ_RATE/s, $FAILS failures); outbox: $QUEUED written, $SENT sent, $FAILED failed;"
log "  delivery $MSGS messages/s (first written to last sent); lag p50 $P50 ms, p99 $P99 ms"

# The mail load: RATE rows a second written to the outbox in tenths, to the seeded addresses,
# through one psql session (no process or connection per batch), until stop_mail_load.
mail_load() {
    local per=$(( RATE / 10 ))
    rm -f "$DIR/stop-load"
    while [ ! -e "$DIR/stop-load" ]; do
        echo "INSERT INTO mail_outbox (kind, user_id, recipient, username, language, message_id, created_at, next_attempt_at)
            SELECT 'password_changed', NULL, 'mail' || g || '@example.com', 'mail' || g, 'en',
                   '<' || md5(random()::text) || '@bench>', now(), now() FROM generate_series(1, $per) g;"
        sleep 0.1
    done | "$PGBIN/psql" "$CONNINFO" -XAtq >/dev/null
}
start_mail_load() { mail_load & LOAD_PID=$!; BENCH_PIDS+=("$LOAD_PID"); }
stop_mail_load() { touch "$DIR/stop-load"; wait "$LOAD_PID" 2>/dev/null || true; }

log "cost: mail load alone, $RATE messages/s for $D s"
before_sent="$(sent_total)" before_server="$(cpu_ms "$SERVER_PID")" before_smtp="$(cpu_ms "$SMTP_PID")"
start_mail_load
sleep "$D"
stop_mail_load
wait_drained
sent=$(( $(sent_total) - before_sent ))
server_ms=$(( $(cpu_ms "$SERVER_PID") - before_server )) smtp_ms=$(( $(cpu_ms "$SMTP_PID") - before_smtp ))
read -r LP50 LP99 < <(psqlq "$CONNINFO" "SELECT
    round((1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)))::numeric, 1),
    round((1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at)))::numeric, 1)
    FROM mail_outbox WHERE kind = 'password_changed'" | tr '|' ' ')
log "  $sent messages sent, lag p50 $LP50 ms, p99 $LP99 ms; CPU per message: server $(awk -v a="$server_ms" -v n="$sent" 'BEGIN { printf "%.2f", a / n }') ms, aiosmtpd $(awk -v a="$smtp_ms" -v n="$sent" 'BEGIN { printf "%.2f", a / n }') ms"

: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    row=""
    for load in off on; do
        before="$(sent_total)"
        [ "$load" = off ] || start_mail_load
        run_wrk "$OUT/viewer-$load" 64 2 "$D" viewer.lua "$URL"
        BENCH_THREADS=8 run_wrk "$OUT/login-$load" 8 8 "$D" login.lua "$URL"
        [ "$load" = off ] || stop_mail_load
        sent=$(( $(sent_total) - before ))
        errors=$(( $(wrk_errors "$OUT/viewer-$load") + $(wrk_errors "$OUT/login-$load") ))
        row="$row $(wrk_rps "$OUT/viewer-$load") $(wrk_rps "$OUT/login-$load") $sent $errors"
        log "round $r, mail load $load: viewer $(wrk_rps "$OUT/viewer-$load") req/s, logIn $(wrk_rps "$OUT/login-$load") req/s, mail sent $sent, errors $errors"
    done
    echo "$row" >>"$OUT/rounds"
    wait_drained  # before the next quiet run
done
log "load average at end: $(load_avg)"
python3 - "$OUT/rounds" "$D" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
d = float(sys.argv[2])
med = lambda i: statistics.median(r[i] for r in rows)
ratio = lambda a, b: statistics.median(r[a] / r[b] for r in rows)
print(f"median of {len(rows)} rounds: viewer {med(0):.0f} req/s without mail, {med(4):.0f} with ({ratio(4, 0):.2f}); "
      f"logIn {med(1):.0f} req/s without, {med(5):.0f} with ({ratio(5, 1):.2f}); "
      f"mail sent during the runs with the load {med(6) / (2 * d):.0f}/s; errors {int(sum(r[3] + r[7] for r in rows))}")
PY
