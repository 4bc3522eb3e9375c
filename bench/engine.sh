#!/usr/bin/env bash
# Engine throughput (parse + validate + execute), ours against graphql-core, on
# schema.graphql with stub resolvers: interleaved rounds, median of each, as a markdown table.
#   bench/engine.sh [rounds] [seconds per case]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
seconds="${2:-1}"
args=(schema.graphql bench/stubs.json Tests/GraphQLTests/Fixtures/introspection-query.txt "$seconds")

swift build -c release --product EngineBench --explicit-target-dependency-import-check error >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for round in $(seq "$rounds"); do
    echo "round $round/$rounds" >&2
    .build/release/EngineBench "${args[@]}" >> "$out/ours"
    python3 bench/engine.py "${args[@]}" >> "$out/core"
done
python3 - "$out/ours" "$out/core" "$rounds" <<'PY'
import statistics, sys
import graphql
ours, core = {}, {}
for line in open(sys.argv[1]):
    name, slow, fast = line.rstrip("\n").split("\t")
    ours.setdefault(name, []).append((float(slow), float(fast)))
for line in open(sys.argv[2]):
    name, ops = line.rstrip("\n").split("\t")
    core.setdefault(name, []).append(float(ops))
print(f"| operation | graphql-core {graphql.__version__} ops/s | ours uncached ops/s | ours cached ops/s | uncached ÷ core | cached ÷ core | cached ÷ uncached |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for name in ours:
    slow = statistics.median(s for s, _ in ours[name])
    fast = statistics.median(f for _, f in ours[name])
    theirs = statistics.median(core[name])
    print(f"| {name} | {theirs:,.0f} | {slow:,.0f} | {fast:,.0f} | {slow / theirs:.0f}× | {fast / theirs:.0f}× | {fast / slow:.1f}× |")
print(f"\nMedian of {sys.argv[3]} interleaved rounds; parse + validate (+ limits) + execute per operation.")
PY
