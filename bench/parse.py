#!/usr/bin/env python3
"""graphql-core's parse throughput on the corpus of bench/ParseBench (same inputs,
same output: name, bytes, parses/s, MB/s, tab-separated).

usage: parse.py <fixtures dir> <SDL file> [seconds per input] [input index]

The SDL file's row is named after the file, as in ParseBench.

An input index (0-based) runs that input alone, so bench/parse.sh can interleave
ours and graphql-core's runs.
"""
import os, sys, time
from graphql import parse, Source

fixtures, sdl = sys.argv[1], sys.argv[2]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
only = int(sys.argv[4]) if len(sys.argv) > 4 else None
log_in = ("mutation LogIn($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken user { id objectId "
          "username email createdAt updatedAt } } clientMutationId } }")
corpus = [
    ("kitchen-sink query", open(f"{fixtures}/kitchen-sink.graphql", encoding="utf-8").read()),
    ("kitchen-sink SDL", open(f"{fixtures}/schema-kitchen-sink.graphql", encoding="utf-8").read()),
    (os.path.splitext(os.path.basename(sdl))[0] + " SDL", open(sdl, encoding="utf-8").read()),
    ("logIn mutation", log_in),
]
for index, (name, text) in enumerate(corpus):
    if only is not None and index != only:
        continue
    source = Source(text)
    size = len(text.encode("utf-8"))
    # Warm up for a tenth of the budget, as ParseBench does.
    warm_start = time.perf_counter()
    while time.perf_counter() - warm_start < seconds / 10:
        parse(source)
    parses, start = 0, time.perf_counter()
    while True:
        for _ in range(8):
            parse(source)
        parses += 8
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    per_second = parses / elapsed
    print(f"{name}\t{size}\t{per_second:.0f}\t{per_second * size / 1e6:.2f}")
