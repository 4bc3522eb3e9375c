#!/usr/bin/env bash
# Password hashing: raw argon2id rate vs the same work through PasswordHashingPool.
# Builds HashBench in release mode and prints a Markdown table (for bench/RESULTS.md).
#   SECONDS_PER_RUN (default 10)  ROUNDS (default 3)  COST (default interactive)
#   THREADS (raw threads, default 2)  CLIENTS (pool client threads, default 8)
# Raw and pool runs alternate; the machine is shared, so each side reports its best round
# (least disturbed) and its median, plus hashes per CPU-second, which other load hardly moves.
# Target: pool/raw >= 0.9.
set -euo pipefail
cd "$(dirname "$0")/.."

SECS="${SECONDS_PER_RUN:-10}"
ROUNDS="${ROUNDS:-3}"
COST="${COST:-interactive}"
THREADS="${THREADS:-2}"
CLIENTS="${CLIENTS:-8}"

swift build -c release --product HashBench --explicit-target-dependency-import-check error >&2
BIN="$(swift build -c release --show-bin-path)/HashBench"

field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
best() { tr ' ' '\n' <<<"$1" | sort -g | tail -1; }
median() { tr ' ' '\n' <<<"$1" | sort -g | awk 'NF { v[++n] = $1 } END { print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

load="$(cut -d' ' -f1 /proc/loadavg)"
raw_rates="" raw_cpu="" pool_rates="" pool_cpu="" raw_hashes=0 pool_hashes=0 rejected=0 workers="" max_wait=""
for ((i = 1; i <= ROUNDS; i++)); do
    raw="$("$BIN" "$THREADS" "$SECS" "$COST")"; echo "round $i: $raw" >&2
    pool="$("$BIN" --pool "$CLIENTS" "$SECS" "$COST")"; echo "round $i: $pool" >&2
    raw_rates+=" $(field rate "$raw")"; raw_cpu+=" $(field per_cpu_s "$raw")"
    pool_rates+=" $(field rate "$pool")"; pool_cpu+=" $(field per_cpu_s "$pool")"
    raw_hashes=$((raw_hashes + $(field hashes "$raw")))
    pool_hashes=$((pool_hashes + $(field hashes "$pool")))
    rejected=$((rejected + $(field rejected "$pool")))
    workers="$(field workers "$pool")"; max_wait="$(field max_wait "$pool")"
done

rb="$(best "$raw_rates")" pb="$(best "$pool_rates")"
rm="$(median "$raw_rates")" pm="$(median "$pool_rates")"
rc="$(median "$raw_cpu")" pc="$(median "$pool_cpu")"
r="$(ratio "$pb" "$rb")"
verdict="$(awk -v x="$r" 'BEGIN { print (x >= 0.9 ? "meets" : "BELOW") }')"

echo "$ROUNDS alternating rounds of ${SECS} s, cost $COST, load average at start $load."
echo
echo "| run | setup | hashes (all rounds) | best hashes/s | median hashes/s | hashes per CPU-s (median) |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
echo "| raw crypto_pwhash_str | $THREADS threads | $raw_hashes | $rb | $rm | $rc |"
echo "| PasswordHashingPool | $CLIENTS clients, $workers workers, max wait $max_wait s; .busy → retry after 1 ms ($rejected refusals) | $pool_hashes | $pb | $pm | $pc |"
echo "| ratio pool/raw | target ≥ 0.9 | | **$r** ($verdict) | $(ratio "$pm" "$rm") | $(ratio "$pc" "$rc") |"
