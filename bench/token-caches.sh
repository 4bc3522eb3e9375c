#!/usr/bin/env bash
# Why a token costs more than its signature (issue 30): the cached viewer and
# `viewer { accessToken { token } }` under callgrind with a cache simulation (L1 instruction and
# data caches of 32 KiB, 8-way; the 1 MiB L2 as the last level: this machine's EPYC core), per
# request and per shared object: instructions, L1 instruction misses, L1 data read and write
# misses. The constant-time P-256 signature reads its whole precomputed table (about 150 KiB) on
# every signature, so what runs after it in the same request starts from cold L1 caches; the
# rows outside libcrypto show what that and the token's own work add to the viewer's.
#   bench/token-caches.sh [SECONDS (6)]   BENCH_USERS_N (64)
source "$(dirname "$0")/lib.sh"
D="${1:-6}"
N="${BENCH_USERS_N:-64}"
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
# The seeding server stays up: its embedded cluster is the database of the runs under callgrind.
SERVER_AS_ACCOUNT=1 seeded_server "$N"
CONNINFO="$(pg_conninfo "$DIR")"
callgrind_account "$DIR/runs"
export CALLGRIND_FLAGS="--cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64"
for script in viewer token; do
    per_request="$(CALLGRIND_DUMP="$DIR/$script.cg" callgrind_per_request "$BIN/gatehouse" "$script.lua" "$D" "$DIR/runs" DATABASE_URL="$CONNINFO")"
    requests="$(awk -v p="$per_request" '/^(summary|totals):/ { printf "%.0f", $2 / p; exit }' "$DIR/$script.cg")"
    echo "## $script.lua: $per_request instructions per request ($requests requests)"
    python3 "$ROOT/bench/callgrind_objects.py" "$DIR/$script.cg" "$requests" Ir I1mr D1mr D1mw \
        | awk 'NR == 1 { print "| " $1 " | " $2 " | " $3 " | " $4 " | " $5 " |"; print "| --- | ---: | ---: | ---: | ---: |"; next }
               $2 > 0 { print "| " $1 " | " $2 " | " $3 " | " $4 " | " $5 " |" }'
    echo
done
