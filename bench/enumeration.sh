#!/usr/bin/env bash
# User-enumeration timing: logIn with a wrong password for a missing name and for users of every
# kind of stored hash: argon2id at the current cost (signed up), and, inserted through SQL as an
# import would, bcrypt at cost 10 (Parse's), argon2id at an older cost (m=32 MiB, t=2) and a
# format Gatehouse does not read. ENUM_N (100) rounds, each kind once per round in a random
# order, one client, production hash cost; with lockout off, then on (threshold 1000: every
# failure is counted, none locks). Exits non-zero unless every median is within ENUM_LIMIT (5) %
# of the missing name's.
#   BASE_REV=<commit>  also measures that commit's release binary (bench/lib.sh base_binary), first.
#   RESULTS=1          writes "## Hardening (issue 16): enumeration" in bench/RESULTS.md.
source "$(dirname "$0")/lib.sh"
N="${ENUM_N:-100}"
LIMIT="${ENUM_LIMIT:-5}"
USERS=20
build_release gatehouse
builds_to_measure

# users_sql KIND COUNT NAMES: INSERT statements for COUNT users named <kind><i> with a hash of
# KIND; their names go to the file NAMES.
users_sql() {
    python3 - "$1" "$2" "$3" <<'PY'
import ctypes, ctypes.util, secrets, sys
kind, n, names = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], 'w')
bcrypt = ["$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WO",
          "$2a$10$S4O./y0RgzQ35VUZrfIUMOO/fErhlEjYtWAldvtg4h9BdisCTPGWK",
          "$2y$10$KxAK4gg4tUjl.oZb7g3.xO2OIiHBSq/4/2LLbgcOElrCtvhTxkPT."]
sodium = ctypes.CDLL(ctypes.util.find_library('sodium'))
assert sodium.sodium_init() >= 0
def argon2id(password, ops, mem):
    out = ctypes.create_string_buffer(128)
    rc = sodium.crypto_pwhash_str_alg(out, password, ctypes.c_ulonglong(len(password)), ctypes.c_ulonglong(ops),
                                      ctypes.c_size_t(mem), ctypes.c_int(2))  # crypto_pwhash_ALG_ARGON2ID13
    assert rc == 0
    return out.value.decode()
for i in range(n):
    if kind == 'bcrypt': h = bcrypt[i % 3]
    elif kind == 'oldcost': h = argon2id(secrets.token_bytes(12), 2, 32 << 20)
    else: h = '$pbkdf2-sha256$29000$' + secrets.token_hex(16) + '$' + secrets.token_hex(32)
    names.write(f'{kind}{i}\n')
    print(f"INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at) "
          f"VALUES ('Enum{kind[0]}{i:05d}', '{kind}{i}', '{h}', '{{}}'::jsonb, now(), now());")
PY
}

ROWS=""
FAIL=0
for build in "${BUILDS[@]}"; do
    label="${build%%|*}"; BIN="${build#*|}"
    for lockout in 0 1000; do
        new_dir; DIR="$NEW_DIR"
        log "$label, lockout threshold $lockout"
        start_server "$DIR" /dev/null GATEHOUSE_LOCKOUT_THRESHOLD="$lockout"
        python3 "$ROOT/bench/client.py" seed "$SERVER_URL" "$USERS" "$DIR/argon2.txt" 4 en
        for kind in bcrypt oldcost unreadable; do
            users_sql "$kind" "$USERS" "$DIR/$kind.txt" >"$DIR/$kind.sql"
            "$PGBIN/psql" "$(pg_conninfo "$DIR")" -XAtq -v ON_ERROR_STOP=1 -f "$DIR/$kind.sql" >/dev/null
        done
        LOAD="$(load_avg)"
        set +e
        RES="$(python3 "$ROOT/bench/client.py" enumeration "$SERVER_URL" "$N" "$LIMIT" \
            "argon2=$DIR/argon2.txt" "bcrypt=$DIR/bcrypt.txt" "oldcost=$DIR/oldcost.txt" "unreadable=$DIR/unreadable.txt")"
        rc=$?
        set -e
        echo "$label, lockout $([ "$lockout" = 0 ] && echo off || echo on): $RES (load $LOAD)"
        [ "$label" = "${BUILDS[-1]%%|*}" ] && [ $rc != 0 ] && FAIL=1
        f() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$RES"; }
        ROWS+="| $label | $([ "$lockout" = 0 ] && echo off || echo 'on (1000)') | $(f unknown) | $(f argon2) | $(f bcrypt) | $(f oldcost) | $(f unreadable) | $(f worst) | $LOAD |"$'\n'
        stop_server "$SERVER_PID"
    done
done

if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo "## Hardening (issue 16): enumeration"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`${BASE_REV:+BASE_REV=$BASE_REV }bench/enumeration.sh\`: logIn with a wrong password, $N of each"
        echo "kind in a random order per round, one client, production hash cost ($USERS users of each kind;"
        echo "bcrypt cost 10, old cost argon2id m=32 MiB t=2 and \`\$pbkdf2-sha256\$\` hashes inserted through SQL)."
        echo "Medians in ms, with their difference from the unknown name's; target: all within $LIMIT%."
        echo
        echo "| build | lockout | unknown name | argon2id current | bcrypt 10 | argon2id old cost | unreadable hash | worst | load average |"
        echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
        printf '%s' "$ROWS"
    } >"$DIR/section.md"
    python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$DIR/section.md"
fi
exit $FAIL
