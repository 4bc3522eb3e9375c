#!/usr/bin/env bash
# A burst of sign-ups: the release server with its default settings (rate limits off, as every
# bench server), then BURST_N (50) sign-ups sent at the same instant, each on a connection opened
# beforehand; BURST_ROUNDS (3) bursts of new users, 5 s apart. Prints how many got an account,
# how many were refused with 155, and latency percentiles. Exits non-zero unless every sign-up
# of the build under test succeeded.
#   BASE_REV=<commit>  also measures that commit's release binary (bench/lib.sh base_binary), first.
#   RESULTS=1          writes "## Hardening (issue 16): burst of 50 sign-ups" in bench/RESULTS.md.
source "$(dirname "$0")/lib.sh"
N="${BURST_N:-50}"
ROUNDS="${BURST_ROUNDS:-3}"
build_release gatehouse
builds_to_measure

ROWS=""
FAIL=0
for build in "${BUILDS[@]}"; do
    label="${build%%|*}"; BIN="${build#*|}"
    new_dir; DIR="$NEW_DIR"
    start_server "$DIR" /dev/null
    for ((r = 1; r <= ROUNDS; r++)); do
        sleep 5
        LOAD="$(load_avg)"
        RES="$(python3 "$ROOT/bench/client.py" burst "$SERVER_URL" "$N" "b${r}u")"
        # The mean hashing job the admission divides by (builds that export it).
        MEAN="$(curl -s "http://127.0.0.1:$SERVER_PORT/metrics" | awk '$1 == "gatehouse_hashing_mean_job_seconds" { printf "%.0f", $2 * 1000 }')"
        echo "$label, burst $r: $RES mean_job_ms=${MEAN:-n/a} (load $LOAD)"
        f() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$RES"; }
        [ "$label" = "${BUILDS[-1]%%|*}" ] && [ "$(f ok)" != "$N" ] && FAIL=1
        ROWS+="| $label | $r | $(f ok) | $(f refused_155) | $(f other) | $(f p50_ms) | $(f p99_ms) | $(f max_ms) | ${MEAN:-n/a} | $LOAD |"$'\n'
    done
    stop_server "$SERVER_PID"
done

if [ "${RESULTS:-0}" = 1 ]; then
    {
        echo "## Hardening (issue 16): burst of 50 sign-ups"
        echo
        echo "$(date -u '+%Y-%m-%d %H:%M UTC'), \`${BASE_REV:+BASE_REV=$BASE_REV }bench/burst.sh\`: the release server with default settings"
        echo "(interactive hash cost, hash workers = cores = $(nproc)), $N sign-ups sent at the same instant, $ROUNDS bursts."
        echo "Latency in ms, per sign-up, from the burst's start; mean job: the server's mean hashing job after the burst"
        echo "(\`gatehouse_hashing_mean_job_seconds\`, which admission divides the 5 s budget by; the base build has none)."
        echo
        echo "| build | burst | signed up | refused (155) | other errors | p50 | p99 | max | mean job | load average |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
        printf '%s' "$ROWS"
    } >"$DIR/section.md"
    python3 "$ROOT/bench/update_results.py" "$ROOT/bench/RESULTS.md" "$DIR/section.md"
fi
exit $FAIL
