#!/usr/bin/env bash
# Parser throughput, ours against graphql-core, as a markdown table.
#   bench/parse.sh [seconds per input] [parse-users.graphql]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-2}"
users="${2:-${PARSE_USERS:-../shared/contract/parse-users.graphql}}"
[ -f "$users" ] || users=/work/shared/contract/parse-users.graphql
fixtures=Tests/GraphQLTests/Fixtures

swift build -c release --product ParseBench >&2
ours=$(.build/release/ParseBench "$fixtures" "$users" "$seconds")
theirs=$(python3 bench/parse.py "$fixtures" "$users" "$seconds")
core=$(python3 -c "import graphql; print(graphql.__version__)")

echo "| input | bytes | ours parses/s | graphql-core $core parses/s | ratio | ours MB/s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
paste <(echo "$ours") <(echo "$theirs") | while IFS=$'\t' read -r name bytes ops mbs _ _ core_ops _; do
    ratio=$(python3 -c "print(f'{$ops / $core_ops:.0f}×')")
    echo "| $name | $bytes | $ops | $core_ops | $ratio | $mbs |"
done
