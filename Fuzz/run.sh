#!/usr/bin/env bash
# Runs the fuzzers (built by Fuzz/build.sh), each for FUZZ_SECONDS (default 600):
#
#   Fuzz/run.sh [target...]          (default: all six, one after the other)
#
# New inputs go to Fuzz/corpus/<target>/; at the end the corpus is minimized with
# -merge=1 into a fresh directory that replaces it (commit only that). Files not
# named by a SHA-1 are the hand-written seeds and always survive the merge. Crashes, leaks,
# timeouts (-timeout=10) and OOMs (-rss_limit_mb=2048) are written to
# .build/fuzz/artifacts/ and make the script exit non-zero. Logs: .build/fuzz/logs/.
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
BIN=.build/fuzz/bin
LOGS=.build/fuzz/logs
ARTIFACTS=.build/fuzz/artifacts
mkdir -p "$LOGS" "$ARTIFACTS"
# Let libFuzzer, not Swift's backtracer, handle a trap; leaks are checked (LSan is part of ASan).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0}

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(lexer-parser validate-execute json http-request jwt cbor-cose)
failed=0
summary=()
for t in "${targets[@]}"; do
  case $t in
    lexer-parser|validate-execute) max_len=65536; dict=Fuzz/graphql.dict ;;
    json) max_len=1048576; dict=Fuzz/json.dict ;;
    http-request) max_len=131072; dict=Fuzz/http.dict ;;
    jwt) max_len=20000; dict=Fuzz/jwt.dict ;;
    cbor-cose) max_len=4096; dict=Fuzz/cbor.dict ;;
    *) echo "unknown fuzz target: $t" >&2; exit 2 ;;
  esac
  corpus=Fuzz/corpus/$t
  log=$LOGS/$t.log
  mkdir -p "$corpus"
  echo "== $t: ${FUZZ_SECONDS}s, -max_len=$max_len (log: $log)" >&2
  # The GraphQL targets also read the test fixtures and schema.graphql as seeds, from a
  # scratch directory (read-only to libFuzzer: only the first directory receives new inputs),
  # so the repository keeps one copy of each.
  seeds=()
  if [ "$t" = lexer-parser ] || [ "$t" = validate-execute ]; then
    shared=$(mktemp -d .build/fuzz/seeds.XXXXXX)
    cp Tests/GraphQLTests/Fixtures/*.graphql schema.graphql "$shared/"
    seeds=("$shared")
  fi
  "$BIN/$t" -max_total_time="$FUZZ_SECONDS" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -detect_leaks=1 -dict="$dict" -artifact_prefix="$ARTIFACTS/$t-" -print_final_stats=1 \
    -reload=0 "$corpus" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  [ ${#seeds[@]} -eq 0 ] || rm -rf "${seeds[@]}"
  result=ok
  if [ $rc -ne 0 ]; then
    failed=1
    result="FAILED (exit $rc): $(grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|Fatal error' "$log" | cut -c1-160)"
    grep -E -m3 'Test unit written to|artifact' "$log" >&2 || true
  fi
  # Minimize: the named (hand-written) seeds are always kept; of the inputs libFuzzer
  # saved (named by their SHA-1), only those adding coverage, into a fresh directory.
  fresh=$(mktemp -d .build/fuzz/merge.XXXXXX)
  find "$corpus" -maxdepth 1 -type f -regextype posix-extended ! -regex '.*/[0-9a-f]{40}' -exec cp {} "$fresh/" \;
  # -use_counters=0 -set_cover_merge=1: edges, not hit counts, and a greedy set cover, so the
  # committed corpus stays at a few hundred files rather than thousands.
  if "$BIN/$t" -merge=1 -use_counters=0 -set_cover_merge=1 -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
      "$fresh" "$corpus" >"$LOGS/$t.merge.log" 2>&1; then
    rm -rf "$corpus" && mv "$fresh" "$corpus"
  else
    echo "merge failed for $t (corpus left unminimized); see $LOGS/$t.merge.log" >&2
    rm -rf "$fresh"
  fi
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  cov=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]*' | tail -1)
  ft=$(grep -E '^#[0-9]+' "$log" | grep -o 'ft: [0-9]*' | tail -1)
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sb "$corpus" | cut -f1)
  summary+=("$(printf '%-17s %6ss  execs %-10s %-10s %-10s corpus %s files / %s bytes  %s' \
    "$t" "$FUZZ_SECONDS" "${execs:-?}" "${cov:-cov: ?}" "${ft:-ft: ?}" "$files" "$bytes" "$result")")
done
echo
echo "Fuzzing summary ($(date -u +%Y-%m-%dT%H:%MZ)):"
printf '  %s\n' "${summary[@]}"
exit $failed
