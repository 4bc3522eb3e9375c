#!/usr/bin/env python3
"""graphql-core's side of bench/engine.sh: parse + validate + execute per operation on
schema.graphql with the stub data of bench/stubs.json; prints `name<TAB>ops/s`.

    bench/engine.py <schema.graphql> <stubs.json> <introspection query file> [seconds per case]
"""
import json
import sys
import time

from graphql import build_schema, execute_sync, parse, validate

schema_path, stubs_path, introspection_path = sys.argv[1:4]
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
with open(schema_path) as f:
    schema = build_schema(f.read())
with open(stubs_path) as f:
    root = json.load(f)["gatehouse"]
with open(introspection_path) as f:
    introspection = f.read()

LOGIN = ("mutation LogIn($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken user { id objectId "
         "username email createdAt updatedAt ACL { users { userId read write } } } } clientMutationId } }")
cases = [
    ("{ health }", "{ health }", {}),
    ("logIn mutation", LOGIN, {"input": {"username": "alice", "password": "pw", "clientMutationId": "m1"}}),
    ("full introspection", introspection, {}),
]


def once(query, variables):
    document = parse(query)
    errors = validate(schema, document)
    assert not errors, errors
    result = execute_sync(schema, document, root_value=root, variable_values=variables)
    assert not result.errors, result.errors
    return result


for name, query, variables in cases:
    once(query, variables)
    runs = 0
    start = time.perf_counter()
    while True:
        for _ in range(4):
            once(query, variables)
        runs += 4
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    print(f"{name}\t{runs / elapsed:.0f}")
