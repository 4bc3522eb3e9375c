#!/usr/bin/env python3
"""Writes Tests/GraphQLTests/Fixtures/introspection-query.txt (the full introspection
query graphql-core sends) and introspection-schema.json (graphql-core's result on
schema.graphql), with the introspection types' descriptions set to null: we word those
differently (Deviations.md, "Introspection descriptions").

    python3 conformance/golden.py          # rewrite the fixtures
    python3 conformance/golden.py --check  # exit 1 if they are stale (make conformance)
"""
import json
import os
import sys

from graphql import build_schema, graphql_sync

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import FULL_INTROSPECTION  # noqa: E402
from run import drop_introspection_descriptions  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "GraphQLTests", "Fixtures")


def golden():
    with open(os.path.join(ROOT, "schema.graphql")) as f:
        schema = build_schema(f.read())
    result = graphql_sync(schema, FULL_INTROSPECTION)
    assert not result.errors, result.errors
    data = drop_introspection_descriptions(result.data)
    return FULL_INTROSPECTION, json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main():
    query, schema_json = golden()
    files = {"introspection-query.txt": query, "introspection-schema.json": schema_json}
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
