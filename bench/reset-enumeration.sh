#!/usr/bin/env bash
# Enumeration by timing through password reset: resetPassword for registered addresses (each
# once, so every one writes a token and a message) and for unknown ones, interleaved in a random
# order, one client, no SMTP (mail stays in the outbox). RESET_N (300) of each; exits non-zero
# unless the medians are within RESET_LIMIT (5) % of each other.
#   RESULTS=1  writes "## Accounts (issue 17): reset enumeration" in bench/RESULTS.md.
source "$(dirname "$0")/lib.sh"
N="${RESET_N:-300}"
LIMIT="${RESET_LIMIT:-5}"
build_release gatehouse

new_dir; DIR="$NEW_DIR"
start_server "$DIR" /dev/null
python3 - "$N" >"$DIR/users.sql" <<'PY'
import sys
for i in range(int(sys.argv[1])):
    print(f"INSERT INTO users (object_id, username, email, password_hash, acl, created_at, updated_at) "
          f"VALUES ('Reset{i:05d}', 'reset{i}', 'reset{i}@example.org', '$argon2id$unused', '{{}}'::jsonb, now(), now());")
PY
"$PGBIN/psql" "$(pg_conninfo "$DIR")" -XAtq -v ON_ERROR_STOP=1 -f "$DIR/users.sql" >/dev/null
seq 0 $((N - 1)) | sed 's/.*/reset&@example.org/' >"$DIR/emails.txt"
LOAD="$(load_avg)"
RES="$(python3 "$ROOT/bench/client.py" reset-enumeration "$SERVER_URL" "$N" "$DIR/emails.txt")"
echo "$RES (load $LOAD)"
stop_server "$SERVER_PID"
DIFF="$(sed -n 's/.*diff=\([-+0-9.]*\)%.*/\1/p' <<<"$RES")"
if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo
        echo "## Accounts (issue 17): reset enumeration"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`bench/reset-enumeration.sh\`: resetPassword for $N registered addresses"
        echo "(each once: a token and a message written) and $N unknown ones, interleaved in a random order, one"
        echo "client, no SMTP. Medians in ms; target: within $LIMIT%."
        echo
        echo "| unknown address | registered address | difference | load |"
        echo "| --- | --- | --- | --- |"
        f() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$RES"; }
        echo "| $(f unknown) | $(f known) | $(f diff) | $LOAD |"
        echo
    } >>"$ROOT/bench/RESULTS.md"
fi
awk -v d="$DIFF" -v l="$LIMIT" 'BEGIN { exit (d < -l || d > l) ? 1 : 0 }'
