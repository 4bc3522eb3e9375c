#!/usr/bin/env python3
"""Writes the engine's golden fixtures in Tests/GraphQLTests/Fixtures from graphql-core's
results on golden-schema.graphql, the engine tests' own schema:

- golden-schema.printed.graphql: print_schema of the schema built from it;
- introspection-query.txt: the full introspection query graphql-core sends;
- introspection-schema.json: graphql-core's result of that query on the schema, with the
  introspection types' descriptions set to null: we word those differently
  (Deviations.md, "Introspection descriptions").

    python3 conformance/golden.py          # rewrite the fixtures
    python3 conformance/golden.py --check  # exit 1 if they are stale (make conformance)
"""
import json
import os
import sys

from graphql import build_schema, graphql_sync, print_schema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import FULL_INTROSPECTION  # noqa: E402
from run import GOLDEN_SCHEMA, drop_introspection_descriptions  # noqa: E402

FIXTURES = os.path.dirname(GOLDEN_SCHEMA)


def golden():
    with open(GOLDEN_SCHEMA) as f:
        schema = build_schema(f.read())
    result = graphql_sync(schema, FULL_INTROSPECTION)
    assert not result.errors, result.errors
    data = drop_introspection_descriptions(result.data)
    return {"golden-schema.printed.graphql": print_schema(schema) + "\n",
            "introspection-query.txt": FULL_INTROSPECTION,
            "introspection-schema.json": json.dumps(data, indent=2, ensure_ascii=False) + "\n"}


def main():
    files = golden()
    if "--check" in sys.argv:
        stale = [name for name, text in files.items()
                 if not os.path.exists(os.path.join(FIXTURES, name)) or open(os.path.join(FIXTURES, name)).read() != text]
        if stale:
            sys.exit(f"stale fixtures (run python3 conformance/golden.py): {', '.join(stale)}")
        return
    for name, text in files.items():
        with open(os.path.join(FIXTURES, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
