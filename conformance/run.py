#!/usr/bin/env python3
"""Runs the conformance corpus through graphql-core and through our engine
(ConformanceRunner), and compares parse verdicts, validation errors and execution
results. Exits non-zero on any disagreement.

    conformance/run.py <ConformanceRunner binary> [--verbose]

The stub resolvers are the same as the runner's: root fields read conformance/stubs.json
by field name, other objects are read from their JSON parent (graphql-core's default
resolver), abstract types resolve by `__typename`, `echo` fields return their arguments,
and a few fields throw.
"""
import json
import math
import os
import re
import subprocess
import sys

import graphql
from graphql import (GraphQLError, build_client_schema, build_schema, execute_sync, parse, print_schema,
                     validate)
from graphql.pyutils import inspect as core_inspect

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The engine tests' own schema (not the product's), and graphql-core's print of it
# (conformance/golden.py writes it).
GOLDEN_SCHEMA = os.path.join(ROOT, "Tests", "GraphQLTests", "Fixtures", "golden-schema.graphql")
GOLDEN_PRINTED = os.path.join(ROOT, "Tests", "GraphQLTests", "Fixtures", "golden-schema.printed.graphql")


# Deviation (Deviations.md, "Quoting in messages"): graphql-core's `inspect` prints Python
# reprs ('x', True, None, {'a': 1}); we print graphql-js's (\"x\", true, null, { a: 1 }).
# graphql-core's own modules are given a graphql-js `inspect`, so messages can be compared.
def js_inspect(value, depth=0):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if depth >= 2:
            return "[Array]"
        return "[" + ", ".join(js_inspect(v, depth + 1) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        if depth >= 2:
            return "[Object]"
        return "{ " + ", ".join(f"{k}: {js_inspect(v, depth + 1)}" for k, v in value.items()) + " }"
    return core_inspect(value)


for module in list(sys.modules.values()):
    if module and module.__name__.startswith("graphql") and getattr(module, "inspect", None) is core_inspect:
        module.inspect = js_inspect


# Deviation ("Quoting in messages"): graphql-core quotes names as 'x', graphql-js as "x".
def js_quotes(message):
    return re.sub(r"'([^'\n]*)'", r'"\1"', message)


# graphql-core (not graphql-js) prints directive locations by their Python enum value
# ("may not be used on fragment definition."); graphql-js prints the name (FRAGMENT_DEFINITION).
def js_directive_location(message):
    match = re.match(r'^(Directive "@[^"]*" may not be used on )([a-z ]+)\.$', message)
    if match:
        return match.group(1) + match.group(2).upper().replace(" ", "_") + "."
    return message


# graphql-core words a few messages in Python terms; graphql-js's words are ours.
PYTHON_WORDING = [
    ("to be a mapping.", "to be an object."),                   # coerce_input_value: graphql-js "an object"
    ("not to be None.", "not to be null."),                     # coerce_input_value: null, not None
    ('"resolve_type" function', '"resolveType" function'),      # abstract type without a type: JS names
    ('"is_type_of" function', '"isTypeOf" function'),
]


def js_wording(message):
    for python, js in PYTHON_WORDING:
        message = message.replace(python, js)
    return message


def upper_serialize(value):
    if not isinstance(value, str):
        raise GraphQLError("Upper cannot represent a non-string value.")
    return value.upper()


def upper_parse_value(value):
    if not isinstance(value, str):
        raise GraphQLError("Upper cannot represent a non-string input.")
    return value.upper()


def upper_parse_literal(node, _variables=None):
    if not isinstance(node, graphql.StringValueNode):
        # A GraphQLError located at the literal: what our CoercionError means (the engine adds the location).
        raise GraphQLError("Upper cannot represent a non-string literal.", node)
    return node.value.upper()


def thrower(message):
    def resolve(*_args, **_kwargs):
        raise Exception(message)
    return resolve


def echo(_source, _info, **args):
    return args


def load_schemas():
    with open(os.path.join(HERE, "stubs.json")) as f:
        stubs = json.load(f)
    with open(os.path.join(HERE, "zoo.graphql")) as f:
        zoo = build_schema(f.read())
    upper = zoo.type_map["Upper"]
    upper.serialize, upper.parse_value, upper.parse_literal = upper_serialize, upper_parse_value, upper_parse_literal
    zoo.query_type.fields["echo"].resolve = echo
    zoo.query_type.fields["required"].resolve = echo
    zoo.query_type.fields["boom"].resolve = thrower("boom")
    zoo.query_type.fields["boomNonNull"].resolve = thrower("boom non-null")
    zoo.type_map["Dog"].fields["fail"].resolve = thrower("dog failed")
    zoo.type_map["Dog"].fields["failNonNull"].resolve = thrower("dog failed hard")
    zoo.mutation_type.fields["failMutation"].resolve = thrower("mutation failed")
    with open(GOLDEN_SCHEMA) as f:
        golden = build_schema(f.read())
    golden.query_type.fields["echo"].resolve = echo
    return {"zoo": (zoo, stubs["zoo"]), "golden": (golden, stubs["golden"])}


def error_json(error):
    return {"message": js_wording(js_directive_location(js_quotes(error.message))),
            "locations": [{"line": l.line, "column": l.column} for l in (error.locations or [])]}


def run_core(entry, schemas):
    schema, root = schemas[entry["schema"]]
    record = {"id": entry["id"], "parse": "ok", "validation": [], "result": None}
    try:
        document = parse(entry["query"])
    except GraphQLError as error:
        record["parse"] = error_json(error)
        return record
    errors = validate(schema, document)
    record["validation"] = [error_json(e) for e in errors]
    if errors:
        return record
    result = execute_sync(schema, document, root_value=root, variable_values=entry.get("variables") or {},
                          operation_name=entry.get("operationName"))
    response = {}
    if result.errors:
        response["errors"] = []
        for e in result.errors:
            item = error_json(e)
            if not item["locations"]:
                del item["locations"]
            if e.path is not None:
                item["path"] = e.path
            response["errors"].append(item)
    # graphql-core's ExecutionResult always has `data`; graphql-js leaves it out for request
    # errors (variable coercion, operation selection), which are the errors without a path.
    if result.data is not None or not result.errors or any(e.path is not None for e in result.errors):
        response["data"] = result.data
    record["result"] = response
    return record


def strict(value):
    """A comparable form that keeps key order and tells booleans from numbers."""
    if isinstance(value, dict):
        return ("obj", tuple((k, strict(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(strict(v) for v in value))
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("num", float(value))
    return (type(value).__name__, value)


def drop_introspection_descriptions(value, inside=False):
    """Deviation (Deviations.md, "Introspection descriptions"): the introspection types
    (`__Schema`, `__Type`, ...) and `@oneOf` are described in our own words, so their
    descriptions (and those of their fields, arguments and enum values) are not compared."""
    if isinstance(value, list):
        return [drop_introspection_descriptions(v, inside) for v in value]
    if not isinstance(value, dict):
        return value
    name = value.get("name")
    own = inside or (isinstance(name, str) and (name.startswith("__") and "kind" in value or
                                               name == "oneOf" and "locations" in value))
    return {k: (None if k == "description" and own else drop_introspection_descriptions(v, own))
            for k, v in value.items()}


def normalise_result(result):
    if result is None:
        return None
    out = {}
    if "errors" in result:
        out["errors"] = [{"message": e["message"], "path": e.get("path"),
                          "locations": e.get("locations") or []} for e in result["errors"]]
    if "data" in result:
        out["data"] = drop_introspection_descriptions(result["data"])
    return out


def compare(ours, theirs):
    problems = []
    if ours["parse"] != theirs["parse"]:
        problems.append(f"parse: ours {ours['parse']} / core {theirs['parse']}")
    ov, tv = ours["validation"], theirs["validation"]
    key = lambda e: (e["message"], tuple((l["line"], l["column"]) for l in e["locations"]))
    if sorted(map(key, ov)) != sorted(map(key, tv)):
        problems.append(f"validation set: ours {ov} / core {tv}")
    elif list(map(key, ov)) != list(map(key, tv)):
        problems.append(f"validation order: ours {[e['message'] for e in ov]} / core {[e['message'] for e in tv]}")
    orr, trr = normalise_result(ours["result"]), normalise_result(theirs["result"])
    if strict(orr) != strict(trr):
        problems.append(f"result: ours {json.dumps(orr)} / core {json.dumps(trr)}")
    return problems


def check_introspection(ours_by_id):
    """build_client_schema of our full introspection result on the golden schema, printed,
    must equal graphql-core's print of that schema. The full query does not ask for
    `isOneOf` (graphql-core's default), so the rebuilt schema has no `@oneOf`."""
    result = ours_by_id["introspection-golden-full"]["result"]
    if not result or "data" not in result or result.get("errors"):
        return [f"introspection failed: {result}"]
    printed = print_schema(build_client_schema(result["data"]))
    with open(GOLDEN_PRINTED) as f:
        expected = f.read().replace(" @oneOf {", " {")
    if printed.strip() != expected.strip():
        import difflib
        diff = "\n".join(difflib.unified_diff(expected.strip().splitlines(), printed.strip().splitlines(),
                                              "golden-schema.printed.graphql", "ours", lineterm=""))
        return ["introspection round trip differs:\n" + diff]
    return []


def main():
    runner = sys.argv[1]
    verbose = "--verbose" in sys.argv
    with open(os.path.join(HERE, "corpus.jsonl")) as f:
        corpus = [json.loads(line) for line in f if line.strip()]
    schemas = load_schemas()
    theirs = [run_core(entry, schemas) for entry in corpus]
    proc = subprocess.run([runner, HERE, GOLDEN_SCHEMA],
                          input="".join(json.dumps(e) + "\n" for e in corpus), capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"ConformanceRunner failed with status {proc.returncode}")
    ours = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines())}
    differ = 0
    for entry, core in zip(corpus, theirs):
        mine = ours.get(entry["id"])
        problems = ["missing from the runner's output"] if mine is None else compare(mine, core)
        if problems:
            differ += 1
            print(f"DIFFER {entry['id']}: {entry['query'][:200]!r} vars={entry.get('variables')}")
            for p in problems:
                print("   " + p[:2000 if verbose else 600])
    intro = check_introspection(ours)
    for p in intro:
        print(p)
    print(f"{len(corpus)} documents: {len(corpus) - differ} agree, {differ} differ"
          + ("" if not intro else "; introspection round trip differs")
          + ("" if intro else "; introspection round trip of the golden schema agrees"))
    sys.exit(1 if differ or intro else 0)


if __name__ == "__main__":
    main()
