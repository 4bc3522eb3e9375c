#!/usr/bin/env bash
# The limiter flood (issue 16): the release server's RSS before and after FLOOD_N (50,000) logIn
# attempts with FLOOD_NAME_BYTES (200 KiB) random names from FLOOD_ADDRESSES (2,000) loopback
# source addresses, default rate limits (hash cost minimum: the flood measures the limiter, not
# argon2); then the victim account's eleventh guess, which must be refused (155). Passes when the RSS grew by at most 20 MiB and the eleventh guess is refused.
# BASE_REV=<commit> runs the same flood against that commit's release build first (the before
# figure; stopped once its RSS has grown by FLOOD_BASE_CAP_MIB, 1024). RESULTS=1 writes the section
# "Hardening (issue 16): limiter flood" of bench/RESULTS.md.
source "$(dirname "$0")/lib.sh"
N="${FLOOD_N:-50000}"
ADDRESSES="${FLOOD_ADDRESSES:-2000}"
NAME_BYTES="${FLOOD_NAME_BYTES:-204800}"
THREADS="${FLOOD_THREADS:-8}"
BASE_CAP="${FLOOD_BASE_CAP_MIB:-1024}"

# flood BINARY_DIR LABEL CAP_MIB: one server (default rate limits), the flood, its JSON line in FLOOD.
flood() {
    local saved="${BIN:-}"; BIN="$1"
    new_dir
    start_server "$NEW_DIR" "$NEW_DIR/server.log" GATEHOUSE_RATE_LIMIT_ADDRESS=100 GATEHOUSE_RATE_LIMIT_ACCOUNT=10 \
        GATEHOUSE_HASH_COST=minimum
    BIN="$saved"
    log "$2: flooding $N attempts of $NAME_BYTES-byte names from $ADDRESSES addresses"
    FLOOD="$(python3 "$ROOT/bench/limiter_flood.py" "$SERVER_URL" "$SERVER_PID" "$N" "$ADDRESSES" "$NAME_BYTES" "$THREADS" "$3")"
    echo "$2: $FLOOD"
    stop_server "$SERVER_PID"
}

BEFORE=""
if [ -n "${BASE_REV:-}" ]; then
    base_binary "$BASE_REV"
    flood "$(dirname "$BASE_BIN")" "base $BASE_SHORT" "$BASE_CAP"
    BEFORE="$FLOOD"
fi
build_release gatehouse
LOAD="$(load_avg)"
flood "$BIN" "this build" 1024
AFTER="$FLOOD"

rc=0
python3 - "$AFTER" <<'PY' || rc=1
import json, sys
r = json.loads(sys.argv[1])
ok = r['growth_mib'] <= 20 and r['victim_eleventh_guess'] == 155 and not r['stopped_at_cap']
print('pass' if ok else 'FAIL: RSS must grow by at most 20 MiB and the eleventh guess get 155')
sys.exit(0 if ok else 1)
PY

if [ "${RESULTS:-0}" = 1 ]; then
    new_dir
    python3 - "$AFTER" "$BEFORE" "${BASE_SHORT:-}" "$N" "$NAME_BYTES" "$ADDRESSES" "$LOAD" "$rc" >"$NEW_DIR/section.md" <<'PY'
import json, sys, time
after, before, base, n, size, addresses, load, rc = sys.argv[1:]
a = json.loads(after)
def row(label, r):
    return (f"| {label} | {r['attempts']:,}{' (stopped at the cap)' if r['stopped_at_cap'] else ''} | {r['seconds']} | "
            f"{r['rss_start_mib']} | {r['rss_end_mib']} | **{r['growth_mib']:+}** | {r['victim_eleventh_guess']} | "
            f"{r['victim_right_password']} | {', '.join(f'{k}: {v:,}' for k, v in r['codes'].items())} |")
print('## Hardening (issue 16): limiter flood\n')
print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, `{'BASE_REV=' + base + ' ' if base else ''}bench/limiter-flood.sh`: "
      f"a victim account guessed ten times from one address, then {int(n):,} `logIn` attempts with random "
      f"{int(size) // 1024} KiB names from {int(addresses):,} loopback source addresses (default rate limits: 100 per address "
      f"per minute, 10 per account and network per 15 minutes; hash cost `minimum`, so that the flood is not held up by argon2), then the victim's eleventh guess and its right password "
      f"from the victim's address. RSS from /proc/<pid>/status; load average {load}.\n")
print('| build | flood attempts | seconds | RSS start (MiB) | RSS end (MiB) | growth (MiB) | 11th guess | right password | answers to the flood |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
if before:
    print(row(f'base {base}', json.loads(before)))
print(row('this build', a))
for label, r in ([(f'base {base}', json.loads(before))] if before else []) + [('this build', a)]:
    trace = ', '.join(f'{n // 1000}k: {m}' for n, m in r['rss_trace_mib'])
    print(f"\nRSS (MiB) of {label} during the flood, by attempts sent: {trace}.")
if before:
    b = json.loads(before)
    per = b['growth_mib'] * 1024 / b['attempts']
    print(f"\nThe base build keeps every name in full as its window's key: {per:.0f} KiB per attempt, so the whole flood "
          f"would take about {per * int(n) / 1024 / 1024:.1f} GiB; it was stopped once its RSS had grown by {b['growth_mib']:.0f} MiB. "
          "Its victim is still refused here only because its 100,000-window map was not yet full; once full, each attempt "
          "copied the map and evicted the oldest window, often an account's (the test "
          "`LogInLimitTests.floodOfOtherNamesCannotResetAnAccountsCount` shows that this build never does).")
print(f"\nResult: {'**pass**' if rc == '0' else '**FAIL**'} (growth at most 20 MiB, eleventh guess refused with 155).")
PY
    python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$NEW_DIR/section.md"
fi
exit $rc
