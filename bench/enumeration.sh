#!/usr/bin/env bash
# User-enumeration timing: logIn for an existing user with a wrong password and for a missing
# user, ENUM_N (200) of each, interleaved, production hash cost, one client. Exits non-zero
# unless the medians are within 10% of each other. RESULTS=1 writes "## Enumeration timing".
source "$(dirname "$0")/lib.sh"
N="${ENUM_N:-200}"
build_release gatehouse
new_dir; DIR="$NEW_DIR"
start_server "$DIR" /dev/null
python3 "$ROOT/bench/client.py" seed "$SERVER_URL" 20 "$DIR/users.txt" 4 en
LOAD="$(load_avg)"
set +e
RES="$(python3 "$ROOT/bench/client.py" enumeration "$SERVER_URL" "$DIR/users.txt" "$N")"; rc=$?
set -e
echo "$RES"
if [ "${RESULTS:-0}" = 1 ]; then
    printf '## Enumeration timing\n\n%s, `bench/enumeration.sh`: %s logIns with a wrong password for existing users and %s for\nmissing users, interleaved, one client, production hash cost, load average %s.\nResult (ms): %s; %s.\n' \
        "$(date -u '+%Y-%m-%d %H:%M UTC')" "$N" "$N" "$LOAD" "$RES" "$([ $rc = 0 ] && echo 'medians within 10%: **pass**' || echo '**FAIL**')" >"$DIR/section.md"
    python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$DIR/section.md"
fi
exit $rc
