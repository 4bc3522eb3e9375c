#!/usr/bin/env bash
# Parser throughput, ours against graphql-core, as a markdown table.
#   bench/parse.sh [seconds per run] [SDL file, default schema.graphql] [rounds]
#
# For each input and each round, ours and graphql-core run back to back (the order
# alternating between rounds), so both see the same machine load; each row reports
# the median of the rounds' parses/s and the median of the per-round ratios.
# Per-round numbers go to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-2}"
sdl="${2:-${PARSE_SDL:-schema.graphql}}"
rounds="${3:-${PARSE_ROUNDS:-3}}"
fixtures=Tests/GraphQLTests/Fixtures

swift build -c release --product ParseBench >&2
core=$(python3 -c "import graphql; print(graphql.__version__)")
inputs=$(.build/release/ParseBench "$fixtures" "$sdl" n1 | wc -l)

runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for ((round = 0; round < rounds; round++)); do
    for ((input = 0; input < inputs; input++)); do
        if (( round % 2 == 0 )); then
            ours=$(.build/release/ParseBench "$fixtures" "$sdl" "$seconds" "$input")
            theirs=$(python3 bench/parse.py "$fixtures" "$sdl" "$seconds" "$input")
        else
            theirs=$(python3 bench/parse.py "$fixtures" "$sdl" "$seconds" "$input")
            ours=$(.build/release/ParseBench "$fixtures" "$sdl" "$seconds" "$input")
        fi
        line=$(paste <(echo "$ours") <(echo "$theirs"))
        echo "$input	$line" >>"$runs"
        echo "round $((round + 1))/$rounds: $line" >&2
    done
done

echo "| input | bytes | ours parses/s | graphql-core $core parses/s | ratio (median of $rounds) | ratio range | ours MB/s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
python3 - "$runs" <<'PY'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    index, name, size, ops, mbs, _, _, core_ops, _ = line.rstrip("\n").split("\t")
    rows.setdefault(int(index), []).append((name, size, float(ops), float(mbs), float(core_ops)))
for index in sorted(rows):
    runs = rows[index]
    name, size = runs[0][0], runs[0][1]
    ratios = [ops / core for _, _, ops, _, core in runs]
    ours = statistics.median(r[2] for r in runs)
    theirs = statistics.median(r[4] for r in runs)
    mbs = statistics.median(r[3] for r in runs)
    print(f"| {name} | {size} | {ours:.0f} | {theirs:.0f} | {statistics.median(ratios):.0f}× "
          f"| {min(ratios):.0f}–{max(ratios):.0f}× | {mbs:.2f} |")
PY
