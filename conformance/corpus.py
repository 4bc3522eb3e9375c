"""The conformance corpus: documents of our own, generated deterministically.

`python3 conformance/corpus.py > conformance/corpus.jsonl` regenerates the committed file.
"""
import json

from graphql import get_introspection_query

FULL_INTROSPECTION = get_introspection_query(
    descriptions=True, specified_by_url=True, directive_is_repeatable=True,
    schema_description=True, input_value_deprecation=True)

docs = []


def add(group, query, variables=None, operation_name=None, schema="zoo", id=None):
    entry = {"id": id or f"{group}-{sum(1 for d in docs if d['id'].startswith(group + '-')) + 1}",
             "schema": schema, "query": query}
    if variables is not None:
        entry["variables"] = variables
    if operation_name is not None:
        entry["operationName"] = operation_name
    docs.append(entry)


# --- Syntax errors ----------------------------------------------------------------------
for q in [
    "{", "{ hello", "query {", "{ hello(}", "{ ...on }", "query Q($a) { hello }", "{ hello @ }",
    "fragment on on Dog { name }", "{ echo(int: ) }", "query Q { hello } }", '{ echo(string: "unterminated) }',
    r'{ echo(string: "\x") }', "{ echo(float: 1.) }", "{ echo(int: 00) }", "{ echo(float: 1e) }", "{ ? }",
    "{ echo(int: $) }", "mutation", "subscription { }", "{}", "{ a: }", "{ echo(list: [1, 2 }",
    "{ echo(complex: {b 1}) }", "query Q($a: Int = $b) { hello }", "fragment F on Dog", "{ ...F @ }",
    "query ($a: [Int) { hello }", '{ echo(string: """unterminated) }', "extend", "# only a comment", "",
    "{ echo(float: 1.2.3) }", "{ echo(int: -) }", "{ echo(int: 0x1) }", r'{ echo(string: "\u{ZZ}") }',
    "query Q($a: Int!!) { hello }", "{ dog { ... } }", "{ hello } garbage", "query Q($: Int) { hello }",
    "{ echo(int: 1 int: 2 }", "{ hello(a: 1, ) }", "{ dog { name } } fragment", "{ echo(string: \"line\nbreak\") }",
    "\u00a0{ hello }", "{ hello }\u0007", "{ hello(a: 1.5e) }", "query Q @ { hello }", "{ echo(int: 1_000) }",
]:
    add("syntax", q)

# --- Validation, rule by rule -----------------------------------------------------------
for q in [
    # ExecutableDefinitions
    "type Foo { a: Int } { hello }", "schema { query: Query } query { hello }", "extend type Dog { x: Int } { hello }",
    "{ hello } directive @d on FIELD",
    # UniqueOperationNames
    "query A { hello } query A { dog { name } }", "query A { hello } mutation A { second }",
    # LoneAnonymousOperation
    "{ hello } { dog { name } }", "{ hello } query A { hello }",
    # SingleFieldSubscriptions
    "subscription { newDog { name } anotherDog { name } }", "subscription S { __typename }",
    "subscription S { newDog { name } ...F } fragment F on Subscription { anotherDog { name } }",
    "subscription S { ... on Subscription { newDog { name } anotherDog { name } } }",
    # KnownTypeNames
    "query ($a: Foo) { hello }", "{ dog { ... on Doge { name } } }", "fragment F on Bar { a } { ...F }",
    "query ($a: [Strin!]) { hello }",
    # FragmentsOnCompositeTypes
    "{ dog { ... on Boolean { a } } }", "fragment F on Color { a } { dog { ...F } }",
    "fragment F on Complex { a } { dog { ...F } }",
    # VariablesAreInputTypes
    "query ($a: Dog) { hello }", "query ($a: [Pet!]) { hello }", "query ($a: CatOrDog!) { hello }",
    # ScalarLeafs
    "{ dog }", "{ hello { a } }", "{ dog { color { x } } }", "{ human { pets } }", "{ search }",
    "{ echo(int: 1) { x } }",
    # FieldsOnCorrectType
    "{ dog { meows } }", "{ nope }", "{ pets { barks } }", "{ catOrDog { name } }", "{ dog { nam } }",
    "{ named { nickname } }", "{ search { lives } }", "mutation { hello }", "subscription { hello }",
    # UniqueFragmentNames
    "{ dog { ...F } } fragment F on Dog { name } fragment F on Dog { barks }",
    # KnownFragmentNames
    "{ dog { ...Nope } }", "{ dog { ...F ...G } } fragment F on Dog { name }",
    # NoUnusedFragments
    "{ hello } fragment F on Dog { name }", "{ dog { ...F } } fragment F on Dog { name } fragment G on Cat { meows }",
    # PossibleFragmentSpreads
    "{ dog { ... on Cat { meows } } }", "fragment C on Cat { meows } { dog { ...C } }",
    "{ pets { ... on Human { name } } }", "{ catOrDog { ... on Human { name } } }",
    "{ human { ... on Pet { name } } }", "{ dog { ... on CatOrDog { __typename } } }",
    "{ named { ... on Pet { name } ... on CatOrDog { __typename } } }",
    # NoFragmentCycles
    "{ dog { ...A } } fragment A on Dog { ...A }",
    "{ dog { ...A } } fragment A on Dog { ...B } fragment B on Dog { ...C } fragment C on Dog { ...A }",
    "{ dog { ...A } } fragment A on Dog { owner { pets { ... on Dog { ...A } } } }",
    # UniqueVariableNames
    "query ($a: Int, $a: Int) { echo(int: $a) }", "query ($a: Int, $a: String, $a: Int) { echo(int: $a) }",
    # NoUndefinedVariables
    "{ echo(int: $a) }", "query Q { echo(int: $a, string: $b) }",
    "query Q { dog { ...F } } fragment F on Dog { doesKnowCommand(command: $c) }",
    # NoUnusedVariables
    "query ($a: Int) { hello }", "query Q($a: Int, $b: String) { echo(int: $a) }",
    "query A($a: Int) { dog { ...F } } query B($b: Int) { dog { ...F } } fragment F on Dog { barkVolume }",
    # KnownDirectives
    "{ hello @nope }", "query @skip(if: true) { hello }", "{ hello @deprecated }",
    "fragment F on Dog @include(if: true) { name } { dog { ...F } }", "query ($v: Int @deprecated) { echo(int: $v) }",
    "{ dog { ...F @nope } } fragment F on Dog { name }",
    # UniqueDirectivesPerLocation
    "{ hello @skip(if: true) @skip(if: false) }", "{ dog @include(if: true) @include(if: true) { name } }",
    # KnownArgumentNames
    "{ dog { doesKnowCommand(cmd: SIT) } }", "{ hello(a: 1) }", "{ hello @skip(iff: true) }",
    "{ echo(strin: \"x\") }",
    # UniqueArgumentNames
    "{ echo(int: 1, int: 2) }", "{ hello @include(if: true, if: false) }",
    # ValuesOfCorrectType
    '{ echo(int: "1") }', "{ echo(int: 1.5) }", "{ echo(int: 2147483648) }", "{ echo(int: -2147483649) }",
    "{ echo(string: 1) }", "{ echo(boolean: 1) }", '{ echo(color: "RED") }', "{ echo(color: PURPLE) }",
    "{ echo(color: red) }", "{ echo(color: true) }", "{ echo(complex: {}) }",
    "{ echo(complex: {requiredField: true, unknown: 1}) }", "{ echo(complex: {requiredField: true, requiredFiel: 1}) }",
    "{ echo(complex: {requiredField: null}) }", '{ echo(oneOf: {a: "x", b: 1}) }', "{ echo(oneOf: {a: null}) }",
    "{ echo(oneOf: {}) }", "{ echo(upper: 5) }", '{ echo(list: ["a"]) }', "{ echo(id: 1.5) }", "{ echo(id: true) }",
    '{ echo(float: "x") }', "{ required(nonNullInt: null, nonNullList: []) }", "{ required(nonNullInt: 1, nonNullList: [1, null]) }",
    '{ echo(matrix: [[1], ["x"]]) }', "{ echo(complex: {requiredField: true, nested: {intField: 1}}) }",
    "{ echo(complex: 5) }", "{ echo(complex: [{requiredField: true}]) }", "{ echo(any: {a: [1, {b: null}]}) }",
    "{ echo(complex: {requiredField: true, color: PURPLE}) }", "{ echo(string: SOME_ENUM) }",
    "{ echo(float: 12345678901234567890) }", "{ hello @skip(if: \"yes\") }",
    # ProvidedRequiredArguments
    "{ required(nonNullList: [1]) }", "{ required }", "{ hello @include }", "{ required(nonNullInt: 1, nonNullList: [1]) }",
    # VariablesInAllowedPosition
    "query ($a: Int) { required(nonNullInt: $a, nonNullList: [1]) }",
    "query ($a: [Int]) { required(nonNullInt: 1, nonNullList: $a) }",
    "query ($a: Int = 3) { required(nonNullInt: $a, nonNullList: [1]) }",
    "query ($a: String) { echo(int: $a) }", "query ($b: Boolean) { hello @skip(if: $b) }",
    "query ($a: Int) { required(nonNullInt: 1, nonNullList: [$a]) }",
    "query ($c: Color) { echo(complex: {requiredField: true, color: $c}) }",
    "query ($c: Boolean) { echo(complex: {requiredField: $c}) }",
    "query ($a: [[Int]]) { echo(list: $a) }", "query ($a: Int) { echo(matrix: [[$a]]) }",
    "query Q($o: String) { echo(oneOf: {a: $o}) }", "query Q($o: String!) { echo(oneOf: {a: $o}) }",
    # OverlappingFieldsCanBeMerged
    "{ dog { name: nickname name } }", "{ dog { doesKnowCommand(command: SIT) doesKnowCommand(command: HEEL) } }",
    "{ pets { ... on Dog { x: barkVolume } ... on Cat { x: meows } } }", "{ dog { owner { name } owner { age } } }",
    "{ dog { x: name } dog { x: barks } }", "{ dog { doesKnowCommand(command: SIT) doesKnowCommand } }",
    "{ a: hello a: boom }", "{ hello hello: boom }",
    "{ catOrDog { ... on Dog { name } ... on Cat { name } } }",
    "{ catOrDog { ... on Dog { n: nickname } ... on Cat { n: lives } } }",
    "{ dog { ...A ...B } } fragment A on Dog { x: name } fragment B on Dog { x: nickname }",
    "query ($a: DogCommand, $b: DogCommand) { dog { doesKnowCommand(command: $a) doesKnowCommand(command: $b) } }",
    "{ human { relatives { name } relatives { name: age } } }",
    "{ dog { tags } dog { tags: name } }",
    # UniqueInputFieldNames
    "{ echo(complex: {requiredField: true, requiredField: false}) }",
    # MaxIntrospectionDepth
    "{ __schema { types { fields { type { fields { type { fields { type { name } } } } } } } } }",
    "{ __type(name: \"Query\") { fields { type { fields { type { fields { name } } } } } } }",
    "{ __schema { types { interfaces { interfaces { interfaces { interfaces { name } } } } } } }",
    # Many errors in one document, in order
    "query Q($u: Int) { nope dog { meows ...Missing } echo(int: \"x\", nope: 1) hello @skip } query Q { dog { name } }",
    "{ dog { ...F } } fragment F on Cat { meows nope } fragment G on Nope { x }",
]:
    add("validation", q)

# --- Variables: every input type against a spread of JSON values ------------------------
var_types = [("Int", "int"), ("Float", "float"), ("String", "string"), ("Boolean", "boolean"), ("ID", "id"),
             ("Color", "color"), ("[Int]", "list"), ("[[Int]]", "matrix"), ("Complex", "complex"),
             ("OneOfInput", "oneOf"), ("Upper", "upper"), ("Any", "any")]
values = [1, 1.5, 1.0, "abc", "RED", True, None, [1, 2], [[1], None], {"requiredField": True},
          {"requiredField": True, "nested": {"requiredField": False, "intField": 3}, "stringListField": "one"},
          {"a": "x"}, {"a": "x", "b": 2}, 2147483648, -7]
for type_name, arg in var_types:
    for value in values:
        add(f"var-{arg}", f"query ($v: {type_name}) {{ echo({arg}: $v) }}", {"v": value})
    add(f"var-{arg}", f"query ($v: {type_name}!) {{ echo({arg}: $v) }}", {"v": None})
    add(f"var-{arg}", f"query ($v: {type_name}!) {{ echo({arg}: $v) }}", {})
    add(f"var-{arg}", f"query ($v: {type_name}) {{ echo({arg}: $v) }}", {})
for q, v in [
    ('query ($s: String = "def") { echo(string: $s) }', {}),
    ('query ($s: String = "def") { echo(string: $s) }', {"s": None}),
    ("query ($c: Color = BLUE) { echo(color: $c) }", {}),
    ("query ($cx: Complex = {requiredField: true}) { echo(complex: $cx) }", {}),
    ("query ($l: [Int] = [1, 2]) { echo(list: $l) }", {}),
    ("query ($l: [Int!]!) { required(nonNullInt: 1, nonNullList: $l) }", {"l": [1, None]}),
    ("query ($l: [Int!]!) { required(nonNullInt: 1, nonNullList: $l) }", {"l": 5}),
    ("query ($n: Int!) { required(nonNullInt: $n, nonNullList: [$n]) }", {"n": 4}),
    ("query ($b: Boolean!) { hello @include(if: $b) dog { name } }", {"b": True}),
    ("query ($b: Boolean!) { hello @include(if: $b) dog { name } }", {"b": False}),
    ("query ($b: Boolean!) { hello @skip(if: $b) }", {"b": "yes"}),
    ("query ($a: Int, $b: String) { echo(int: $a, string: $b) }", {"a": "x", "b": 1}),
    ("query ($i: Int) { echo(list: [$i, 2], matrix: [[$i]]) }", {"i": 9}),
    ("query ($i: Int) { echo(list: [$i, 2], matrix: [[$i]]) }", {}),
    ("query ($c: Boolean) { echo(complex: {requiredField: true, booleanField: $c}) }", {}),
    ("query ($c: Boolean) { echo(complex: {requiredField: true, booleanField: $c}) }", {"c": None}),
    ("query ($o: String) { echo(oneOf: {a: $o}) }", {}),
    ("query ($o: String!) { echo(oneOf: {a: $o}) }", {"o": "hi"}),
    ("query ($cx: Complex) { echo(complex: $cx) }", {"cx": {"requiredField": True, "color": "BLUE", "unknown": 1}}),
    ("query ($cx: Complex) { echo(complex: $cx) }", {"cx": {"requiredField": True, "color": "PURPLE"}}),
    ("query ($cx: Complex) { echo(complex: $cx) }", {"cx": {"requiredField": True, "nonNullField": None}}),
    ("query ($cx: Complex) { echo(complex: $cx) }", {"cx": {"intField": "x", "stringField": 5}}),
    ("query ($cx: [Complex]) { e: echo(complex: {requiredField: true}) }", None),
    ("query ($o: OneOfInput) { echo(oneOf: $o) }", {"o": {"a": None}}),
    ("query ($o: OneOfInput) { echo(oneOf: $o) }", {"o": {"a": None, "b": 1}}),
    ("query ($o: OneOfInput) { echo(oneOf: $o) }", {"o": {"a": "x", "c": 1}}),
    ("query ($o: OneOfInput) { echo(oneOf: $o) }", {"o": {"c": 1}}),
    ("query ($c: Color) { echo(color: $c) }", {"c": "blue"}),
    ("query ($c: Color) { echo(color: $c) }", {"c": False}),
    ("query ($d: DogCommand) { dog { doesKnowCommand(command: $d) } }", {"d": "SIT"}),
    ("query ($d: DogCommand) { dog { doesKnowCommand(command: $d) } }", {"d": "sit"}),
]:
    add("vars", q, v)

# --- Execution: literals, null propagation, leaves, abstract types ----------------------
for q in [
    "{ hello }", "{ __typename }", "{ a: hello b: hello dog { x: name y: name __typename } }",
    '{ echo(int: 1, string: "s", boolean: true, float: 1, id: 5, color: BLUE, list: 3, matrix: [[1], 2], '
    'complex: {requiredField: true, stringListField: "a"}, oneOf: {b: 2}, upper: "up", any: {x: [1, {y: null}]}) }',
    "{ echo }", "{ echo(id: \"abc\", float: -0.5e3, string: \"\"\"  block\n  string\"\"\") }",
    '{ echo(string: "\\u00e9\\n\\t\\"q\\"") }', "{ required(nonNullInt: 1, nonNullList: [1, 2]) }",
    "{ echo(list: null, complex: null) }", "{ echo(complex: {requiredField: false, nested: null}) }",
    "{ nullNonNull }", "{ hello nullNonNull }", "{ dog { name failNonNull } hello }", "{ dog { fail name } }",
    "{ nullNonNullList }", "{ nonNullListOfNull }", "{ listOfNonNullDogs { name nickname } }",
    "{ dogs { name nickname } }", "{ dogs { name } }", "{ pets { name nickname } }",
    "{ human { pets { name nickname } } }", "{ human { relatives { name age } } }", "{ boom boomNonNull }",
    "{ a: boom b: boom hello }", "{ boomNonNull hello }", "{ dog { owner { name relatives { name } } } }",
    "{ search { __typename ... on Cat { nickname } } }", "{ search { __typename ... on Named { name } } }",
    "{ search { ... on Human { name pets { name } } ... on Dog { barks } } }",
    "{ int32Overflow }", "{ floatInt }", "{ stringInt }", "{ intString }", "{ boolString }", "{ intBool }",
    "{ intId }", "{ floatFloat }", "{ stringFloat }", "{ badColor }", "{ matrix }", "{ notAList }",
    "{ upperValue upperBad }", "{ anyValue }", "{ missingTypename { name } }", "{ wrongTypename { __typename } }",
    "{ deprecatedField }", "{ human { shout } }", "{ dog { color tags } }",
    "{ dog { tags } nullNonNullList int32Overflow }",
    "{ named { __typename name ... on Human { age } } }", "{ catOrDog { __typename ... on Cat { lives meows } } }",
    "{ pets { __typename ... on Dog { barkVolume } ... on Cat { lives furColor } } }",
    "{ dog { ...D } } fragment D on Dog { name ... on Pet { nickname } ...N } fragment N on Named { name }",
    "{ dog { ...F @skip(if: true) } } fragment F on Dog { name }",
    "{ ... @include(if: false) { hello } dog { name } }", "{ hello @skip(if: true) @include(if: true) }",
    "{ hello @skip(if: false) @include(if: true) }", "{ hello @skip(if: false) @include(if: false) dog { name } }",
    "{ dog { name } dog { barks } }", "{ dog { owner { name } ... on Dog { owner { age } } } }",
    "{ dog { doesKnowCommand(command: SIT) } }", "{ dog { name @include(if: true) name @skip(if: true) } }",
    "{ dogs { fail } }", "{ listOfNonNullDogs { failNonNull } }", "{ dog { failNonNull } }",
    "{ __typename dog { __typename owner { __typename } } }", "{ ...Q } fragment Q on Query { hello }",
    "{ dog { ... { name } } }",
    "mutation { setName(name: \"x\") { name } second failMutation }", "mutation { __typename second }",
    "mutation M { first: second failMutation again: second }",
    "subscription { newDog { name } }",
    "query A { hello } query B { dog { name } }",
]:
    add("exec", q)
for q, op in [("query A { hello } query B { dog { name } }", "B"), ("query A { hello } query B { dog { name } }", "C"),
              ("query A { hello } mutation B { second }", "B"), ("query A { hello }", "A"), ("query A { hello }", "Z"),
              ("{ hello }", "A")]:
    add("opname", q, operation_name=op)

# --- Introspection ----------------------------------------------------------------------
for q in [
    '{ __type(name: "Dog") { name kind fields { name args { name } type { name kind ofType { name kind } } } } }',
    '{ __type(name: "Color") { enumValues { name isDeprecated deprecationReason } } }',
    '{ __type(name: "Color") { enumValues(includeDeprecated: true) { name isDeprecated deprecationReason } } }',
    '{ __type(name: "Query") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }',
    "{ __schema { queryType { name } mutationType { name } subscriptionType { name } description } }",
    "{ __schema { directives { name isRepeatable locations args { name defaultValue type { name kind ofType { name } } } } } }",
    '{ __type(name: "Nope") { name } }', '{ __type(name: "Complex") { inputFields { name defaultValue type { name ofType { name } } } } }',
    '{ __type(name: "Pet") { kind possibleTypes { name } interfaces { name } } }',
    '{ __type(name: "CatOrDog") { kind possibleTypes { name } fields { name } } }',
    '{ __type(name: "Upper") { kind description specifiedByURL } }', '{ __type(name: "OneOfInput") { isOneOf inputFields { name } } }',
    "{ __schema { types { name kind } } }", '{ __type(name: "Query") { fields { name args { name defaultValue } } } }',
    "{ dog { __typename } __schema { queryType { name } } }", '{ t: __type(name: "String") { name kind fields { name } } }',
    FULL_INTROSPECTION,
]:
    add("introspection", q)
add("introspection", FULL_INTROSPECTION, schema="golden", id="introspection-golden-full")

# --- The engine tests' own schema (Tests/GraphQLTests/Fixtures/golden-schema.graphql) -----
BORROW = ("mutation Borrow($input: BorrowInput!) { borrow(input: $input) { work { __typename ... on Book { title isbn } "
          "... on Recording { seconds } } dueAt problems clientMutationId } giveBack(workId: \"b1\") { id title } }")
for q, v in [
    ("{ ping }", None),
    ('{ node(id: "b1") { __typename id ... on Book { title isbn pages rating available identifiers } ... on Person { name } } }',
     None),
    ('{ work(key: {isbn: "978-0"}) { __typename id title loanPeriod published creators { name } '
     "... on Recording { seconds tracks } ... on Book { pages } } }", None),
    ('{ work(key: {id: "b1", isbn: "978-0"}) { id } }', None),
    ("query ($k: WorkKey!) { work(key: $k) { id } }", {"k": {}}),
    ("query ($k: WorkKey!) { work(key: $k) { id } }", {"k": {"id": None}}),
    ("{ search { __typename ... on Work { title } ... on Person { name } ... on Node { id } } }", None),
    ("{ search { title } }", None),
    ("query Q($f: SearchFilter) { search(filter: $f, limit: 2) { ... on Book { id } } }",
     {"f": {"text": "dune", "periods": "SHORT", "page": {"after": "c1"}}}),
    ("query Q($f: SearchFilter) { search(filter: $f) { __typename } }", {"f": {"page": {"first": None}}}),
    ("{ echo }", None),
    ("{ echo(filter: {}) }", None),
    ('{ echo(filter: {periods: SHORT, sort: {field: RATING}, not: {text: "x"}, excludeIds: 7}, period: INTERLIBRARY) }', None),
    ("query ($f: SearchFilter = {page: {}}, $p: LoanPeriod = SHORT) { echo(filter: $f, period: $p) }", None),
    ("query ($d: DateTime, $j: JSON, $k: WorkKey) { echo(when: $d, value: $j, key: $k) }",
     {"d": "2026-01-01T00:00:00Z", "j": {"a": [1, None, "two"], "b": {"c": 1.5}}, "k": {"isbn": "978-0"}}),
    ("{ echo(period: SHORTT) }", None),
    ('{ echo(value: {a: [1, "two", null], b: $x}) }', None),
    ("{ shelf(grid: [[1, null], [2]], scale: 2) }", None),
    ("{ people(names: [\"Frank\"]) { id name nickname works(roles: [AUTHOR]) { title } "
     "favourite { __typename ... on Book { isbn } } } }", None),
    ("{ grouped(by: []) { __typename } }", None),
    ("{ oldest { id } catalogue { size updated } }", None),
    (BORROW, {"input": {"workId": "b1", "memberId": "m1", "clientMutationId": "c1"}}),
    (BORROW, {"input": {"workId": "b1"}}),
    (BORROW, {"input": {"workId": "b1", "memberId": "m1", "days": "long"}}),
    ('mutation { borrow(input: {workId: "b1"}) { problems } }', None),
    ("subscription { returned { id title } }", None),
    ("subscription { returned { id } ping }", None),
    ("{ catalogue { size @format } ping @trace }", None),
    ("query Q @format { ping } fragment F on Query @trace { ping }", None),
    ('{ catalogue { updated @format(pattern: "yyyy", legacy: true) } }', None),
    ('{ __type(name: "Book") { fields(includeDeprecated: true) { name isDeprecated deprecationReason '
     "args(includeDeprecated: true) { name isDeprecated deprecationReason defaultValue } } } }", None),
    ('{ __type(name: "Book") { fields { name args { name } } } }', None),
    ('{ __type(name: "SearchFilter") { inputFields(includeDeprecated: true) { name defaultValue isDeprecated } '
     "f: inputFields { name } } }", None),
    ("{ __schema { description directives { name isRepeatable locations args(includeDeprecated: true) "
     "{ name defaultValue isDeprecated deprecationReason } } } }", None),
    ('{ __type(name: "DateTime") { kind specifiedByURL description } k: __type(name: "WorkKey") { isOneOf } '
     'r: __type(name: "Role") { enumValues { name } } }', None),
    ('{ __type(name: "Work") { kind interfaces { name } possibleTypes { name } } '
     'n: __type(name: "Node") { possibleTypes { name } } }', None),
    ('{ __type(name: "LoanPeriod") { enumValues(includeDeprecated: true) { name description isDeprecated '
     "deprecationReason } } }", None),
]:
    add("golden", q, v, schema="golden")

if __name__ == "__main__":
    for entry in docs:
        print(json.dumps(entry, ensure_ascii=False))
