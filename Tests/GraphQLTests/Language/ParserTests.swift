import Testing

@testable import GraphQL

// Parser cases (spec §2 Language, §3 Type System). Expected printed forms and
// error messages were generated once from graphql-core 3.2.8 (graphql-js 16):
// `print_ast(parse(text))`, and the syntax error's message and location, with
// graphql-js's quoting. Draft-only syntax has hand-written expectations.

struct ValidCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    /// graphql-js's print of the parsed document.
    let printed: String
    init(_ name: String, _ text: String, _ printed: String) {
        self.name = name
        self.text = text
        self.printed = printed
    }
    var testDescription: String { name }
}

enum ParserTable {
    static let valid: [ValidCase] = [
        ValidCase("shorthand query", "{ a }", "{\n  a\n}"),
        ValidCase("field alias", "{ alias: field }", "{\n  alias: field\n}"),
        ValidCase("nested selections", "{ a { b { c } } }", "{\n  a {\n    b {\n      c\n    }\n  }\n}"),
        ValidCase("arguments of every value kind", "{ f(i: 1, n: -2, fl: 1.5e3, s: \"x\", bs: \"\"\"block\"\"\", t: true, fa: false, nu: null, e: ENUM, l: [1, \"two\", [3]], o: {a: 1, b: {c: [null]}}, v: $var, el: [], eo: {}) }", "{\n  f(\n    i: 1\n    n: -2\n    fl: 1.5e3\n    s: \"x\"\n    bs: \"\"\"block\"\"\"\n    t: true\n    fa: false\n    nu: null\n    e: ENUM\n    l: [1, \"two\", [3]]\n    o: {a: 1, b: {c: [null]}}\n    v: $var\n    el: []\n    eo: {}\n  )\n}"),
        ValidCase("variables in lists and objects", "query Q($v: Int) { f(a: [$v], b: {c: $v}) }", "query Q($v: Int) {\n  f(a: [$v], b: {c: $v})\n}"),
        ValidCase("named query", "query Q { a }", "query Q {\n  a\n}"),
        ValidCase("anonymous query keyword", "query { a }", "{\n  a\n}"),
        ValidCase("anonymous query with directive", "query @d { a }", "query @d {\n  a\n}"),
        ValidCase("mutation", "mutation M { m }", "mutation M {\n  m\n}"),
        ValidCase("subscription", "subscription S { s }", "subscription S {\n  s\n}"),
        ValidCase("anonymous mutation", "mutation { m }", "mutation {\n  m\n}"),
        ValidCase("variables with defaults and directives", "query Q($a: Int = 1, $b: [String!]! = [\"x\"], $c: In = {a: [1, {b: null}]} @d(x: 1) @e, $d: Boolean @d) { a }", "query Q($a: Int = 1, $b: [String!]! = [\"x\"], $c: In = {a: [1, {b: null}]} @d(x: 1) @e, $d: Boolean @d) {\n  a\n}"),
        ValidCase("variable types", "query Q($a: A, $b: A!, $c: [A], $d: [A!], $e: [A]!, $f: [[A!]!]!) { a }", "query Q($a: A, $b: A!, $c: [A], $d: [A!], $e: [A]!, $f: [[A!]!]!) {\n  a\n}"),
        ValidCase("field arguments and directives", "{ a(x: 1) @include(if: $c) @skip(if: false) { b } }", "{\n  a(x: 1) @include(if: $c) @skip(if: false) {\n    b\n  }\n}"),
        ValidCase("fragment spread with directives", "{ ...F @d(a: 1) ...G }", "{\n  ...F @d(a: 1)\n  ...G\n}"),
        ValidCase("inline fragment with type condition", "{ ... on T { a } }", "{\n  ... on T {\n    a\n  }\n}"),
        ValidCase("inline fragment without type condition", "{ ... @include(if: $x) { a } ... { b } }", "{\n  ... @include(if: $x) {\n    a\n  }\n  ... {\n    b\n  }\n}"),
        ValidCase("inline fragment with type condition and directives", "{ ... on T @d { a } }", "{\n  ... on T @d {\n    a\n  }\n}"),
        ValidCase("fragment definition", "fragment F on T @d(a: $v) { a ...G }", "fragment F on T @d(a: $v) {\n  a\n  ...G\n}"),
        ValidCase("keywords as names", "{ query mutation subscription fragment on type schema true: false null: null f(on: on, true: true) }", "{\n  query\n  mutation\n  subscription\n  fragment\n  on\n  type\n  schema\n  true: false\n  null: null\n  f(on: on, true: true)\n}"),
        ValidCase("fragment named like a keyword", "fragment query on on { on } { ...query }", "fragment query on on {\n  on\n}\n\n{\n  ...query\n}"),
        ValidCase("unicode in strings", "{ f(a: \"é😀 \\u00e9 \\u{1F600} \\uD83D\\uDE00\") }", "{\n  f(a: \"é😀 é 😀 😀\")\n}"),
        ValidCase("escaped string", "{ f(a: \"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u0000 \\u001F\") }", "{\n  f(a: \"q\\\" b\\\\ s/ \\b\\f\\n\\r\\t \\u0000 \\u001F\")\n}"),
        ValidCase("block string argument", "{ f(a: \"\"\"\n  multi\n    line\n  \"\"\") }", "{\n  f(a: \"\"\"\n  multi\n    line\n  \"\"\")\n}"),
        ValidCase("comments and commas", "# c\n{ a, b,, # d\n c }", "{\n  a\n  b\n  c\n}"),
        ValidCase("multiple operations", "query A { a } query B { b } fragment F on T { f }", "query A {\n  a\n}\n\nquery B {\n  b\n}\n\nfragment F on T {\n  f\n}"),
        ValidCase("schema", "schema { query: Q mutation: M subscription: S }", "schema {\n  query: Q\n  mutation: M\n  subscription: S\n}"),
        ValidCase("schema with directives and description", "\"\"\"desc\"\"\" schema @d { query: Q }", "\"\"\"desc\"\"\"\nschema @d {\n  query: Q\n}"),
        ValidCase("scalar", "scalar S", "scalar S"),
        ValidCase("scalar with directives", "\"d\" scalar S @d(a: \"x\") @e", "\"d\"\nscalar S @d(a: \"x\") @e"),
        ValidCase("object type", "type T { a: Int b(x: Int = 1 @d, y: [String!]!): [T!]! @deprecated(reason: \"no\") }", "type T {\n  a: Int\n  b(x: Int = 1 @d, y: [String!]!): [T!]! @deprecated(reason: \"no\")\n}"),
        ValidCase("object type without fields", "type T", "type T"),
        ValidCase("implements", "type T implements A { a: Int }", "type T implements A {\n  a: Int\n}"),
        ValidCase("implements with leading ampersand", "type T implements & A & B { a: Int }", "type T implements A & B {\n  a: Int\n}"),
        ValidCase("implements many", "type T implements A & B & C @d { a: Int }", "type T implements A & B & C @d {\n  a: Int\n}"),
        ValidCase("interface", "interface I { a: Int }", "interface I {\n  a: Int\n}"),
        ValidCase("interface implements interfaces", "interface I implements J & K @d { a: Int }", "interface I implements J & K @d {\n  a: Int\n}"),
        ValidCase("interface without fields", "interface I", "interface I"),
        ValidCase("union", "union U = A | B", "union U = A | B"),
        ValidCase("union with leading pipe", "union U = | A | B", "union U = A | B"),
        ValidCase("union with directives", "union U @d = A", "union U @d = A"),
        ValidCase("union without members", "union U", "union U"),
        ValidCase("enum", "enum E { A B @deprecated C }", "enum E {\n  A\n  B @deprecated\n  C\n}"),
        ValidCase("enum with directives and descriptions", "\"e\" enum E @d { \"a\" A \"\"\"b\"\"\" B @x }", "\"e\"\nenum E @d {\n  \"a\"\n  A\n  \"\"\"b\"\"\"\n  B @x\n}"),
        ValidCase("enum without values", "enum E", "enum E"),
        ValidCase("input", "input I { a: Int = 1 b: [I!] @d c: String = \"x\" }", "input I {\n  a: Int = 1\n  b: [I!] @d\n  c: String = \"x\"\n}"),
        ValidCase("input without fields", "input I @d", "input I @d"),
        ValidCase("directive", "directive @d on FIELD", "directive @d on FIELD"),
        ValidCase("directive with arguments", "directive @d(a: Int = 1, b: [String] @x) on FIELD | QUERY", "directive @d(a: Int = 1, b: [String] @x) on FIELD | QUERY"),
        ValidCase("repeatable directive", "directive @d repeatable on FIELD", "directive @d repeatable on FIELD"),
        ValidCase("directive with leading pipe", "directive @d on | FIELD | INLINE_FRAGMENT", "directive @d on FIELD | INLINE_FRAGMENT"),
        ValidCase("every directive location", "directive @d on QUERY | MUTATION | SUBSCRIPTION | FIELD | FRAGMENT_DEFINITION | FRAGMENT_SPREAD | INLINE_FRAGMENT | VARIABLE_DEFINITION | SCHEMA | SCALAR | OBJECT | FIELD_DEFINITION | ARGUMENT_DEFINITION | INTERFACE | UNION | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION", "directive @d on QUERY | MUTATION | SUBSCRIPTION | FIELD | FRAGMENT_DEFINITION | FRAGMENT_SPREAD | INLINE_FRAGMENT | VARIABLE_DEFINITION | SCHEMA | SCALAR | OBJECT | FIELD_DEFINITION | ARGUMENT_DEFINITION | INTERFACE | UNION | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION"),
        ValidCase("descriptions on fields and arguments", "\"\"\"T\"\"\"\ntype T {\n  \"f\"\n  f(\n    \"x\"\n    x: Int\n    \"\"\"y\"\"\"\n    y: Int = 2\n  ): Int\n}", "\"\"\"T\"\"\"\ntype T {\n  \"f\"\n  f(\n    \"x\"\n    x: Int\n    \"\"\"y\"\"\"\n    y: Int = 2\n  ): Int\n}"),
        ValidCase("description on directive arguments", "directive @d(\"a\" a: Int) on FIELD", "directive @d(\n  \"a\"\n  a: Int\n) on FIELD"),
        ValidCase("schema extension with operations", "extend schema { mutation: M }", "extend schema {\n  mutation: M\n}"),
        ValidCase("schema extension with directives", "extend schema @d", "extend schema @d"),
        ValidCase("schema extension with both", "extend schema @d { subscription: S }", "extend schema @d {\n  subscription: S\n}"),
        ValidCase("scalar extension", "extend scalar S @d", "extend scalar S @d"),
        ValidCase("type extension with fields", "extend type T { b: Int }", "extend type T {\n  b: Int\n}"),
        ValidCase("type extension with interface", "extend type T implements I", "extend type T implements I"),
        ValidCase("type extension with directives", "extend type T @d", "extend type T @d"),
        ValidCase("type extension with everything", "extend type T implements & I & J @d { b(a: Int): Int }", "extend type T implements I & J @d {\n  b(a: Int): Int\n}"),
        ValidCase("interface extension", "extend interface I { b: Int }", "extend interface I {\n  b: Int\n}"),
        ValidCase("interface extension with interfaces", "extend interface I implements J", "extend interface I implements J"),
        ValidCase("interface extension with directives", "extend interface I @d", "extend interface I @d"),
        ValidCase("union extension", "extend union U = C", "extend union U = C"),
        ValidCase("union extension with directives", "extend union U @d", "extend union U @d"),
        ValidCase("union extension with both", "extend union U @d = | C | D", "extend union U @d = C | D"),
        ValidCase("enum extension", "extend enum E { C }", "extend enum E {\n  C\n}"),
        ValidCase("enum extension with directives", "extend enum E @d", "extend enum E @d"),
        ValidCase("input extension", "extend input I { c: Int }", "extend input I {\n  c: Int\n}"),
        ValidCase("input extension with directives", "extend input I @d", "extend input I @d"),
        ValidCase("mixed document", "type Query { me: User }\n\nquery { me { id } }\n\nextend type Query { you: User }", "type Query {\n  me: User\n}\n\n{\n  me {\n    id\n  }\n}\n\nextend type Query {\n  you: User\n}"),
        ValidCase("long arguments wrap", "{ someField(firstArgument: \"a fairly long string value\", secondArgument: 12345, third: true) { x } }", "{\n  someField(\n    firstArgument: \"a fairly long string value\"\n    secondArgument: 12345\n    third: true\n  ) {\n    x\n  }\n}"),
        ValidCase("long arguments with alias and directive", "{ alias: someField(firstArgument: \"a fairly long string value\", secondArgument: 1234) @d { x } }", "{\n  alias: someField(\n    firstArgument: \"a fairly long string value\"\n    secondArgument: 1234\n  ) @d {\n    x\n  }\n}"),
        ValidCase("argument line of exactly 80", "{ f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\") }", "{\n  f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\")\n}"),
        ValidCase("argument line of 81", "{ f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\") }", "{\n  f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\")\n}"),
        ValidCase("nested wrapped arguments", "{ a { b(x: \"0123456789012345678901234567890123456789\", y: \"01234567890123456789012345678\") } }", "{\n  a {\n    b(\n      x: \"0123456789012345678901234567890123456789\"\n      y: \"01234567890123456789012345678\"\n    )\n  }\n}"),
        ValidCase("block strings in nested arguments", "{ a { b(x: \"\"\"\n  one\n  two\n\"\"\") } }", "{\n  a {\n    b(x: \"\"\"\n    one\n    two\n    \"\"\")\n  }\n}"),
        ValidCase("string descriptions", "\"single line\" type T { \"with \\\"quotes\\\"\" a: Int }", "\"single line\"\ntype T {\n  \"with \\\"quotes\\\"\"\n  a: Int\n}"),
        ValidCase("block description needing new lines", "\"\"\"\n  indented\n    more\n\"\"\"\ntype T", "\"\"\"\nindented\n  more\n\"\"\"\ntype T"),
        ValidCase("numbers as written", "{ f(a: -0, b: 0.0, c: 1E+3, d: 1e-10, e: 123456789012345678901234567890) }", "{\n  f(a: -0, b: 0.0, c: 1E+3, d: 1e-10, e: 123456789012345678901234567890)\n}"),
    ]

    /// The working draft's descriptions on executable definitions (graphql-core 3.2 rejects them).
    static let draft: [ValidCase] = [
        ValidCase("description on an operation", "\"\"\"Lists things.\"\"\"\nquery Q { a }", "\"\"\"Lists things.\"\"\"\nquery Q {\n  a\n}"),
        ValidCase("string description on an anonymous query", "\"desc\" query { a }", "\"desc\"\nquery {\n  a\n}"),
        ValidCase("description on a fragment", "\"frag\" fragment F on T { a }", "\"frag\"\nfragment F on T {\n  a\n}"),
        ValidCase("descriptions on variable definitions", "query Q(\"first\" $a: Int = 1 @d, \"\"\"second\"\"\" $b: [String!]!) { a }", "query Q(\"first\" $a: Int = 1 @d, \"\"\"second\"\"\" $b: [String!]!) {\n  a\n}"),
        ValidCase("description on a mutation and its variables", "\"m\" mutation (\"v\" $v: ID) { a }", "\"m\"\nmutation (\"v\" $v: ID) {\n  a\n}"),
        ValidCase("multi-line description on a subscription", "\"\"\"\nwatch\n  things\n\"\"\"\nsubscription S { a }", "\"\"\"\nwatch\n  things\n\"\"\"\nsubscription S {\n  a\n}"),
    ]

    static let invalid: [SyntaxErrorCase] = [
        SyntaxErrorCase("", "Syntax Error: Unexpected <EOF>.", 1, 1),
        SyntaxErrorCase(" ", "Syntax Error: Unexpected <EOF>.", 1, 2),
        SyntaxErrorCase("# only a comment", "Syntax Error: Unexpected <EOF>.", 1, 17),
        SyntaxErrorCase("{}", "Syntax Error: Expected Name, found \"}\".", 1, 2),
        SyntaxErrorCase("{", "Syntax Error: Expected Name, found <EOF>.", 1, 2),
        SyntaxErrorCase("{ a", "Syntax Error: Expected Name, found <EOF>.", 1, 4),
        SyntaxErrorCase("{ a(b:) }", "Syntax Error: Unexpected \")\".", 1, 7),
        SyntaxErrorCase("{ a(b: 1 }", "Syntax Error: Expected Name, found \"}\".", 1, 10),
        SyntaxErrorCase("{ a(: 1) }", "Syntax Error: Expected Name, found \":\".", 1, 5),
        SyntaxErrorCase("{ a() }", "Syntax Error: Expected Name, found \")\".", 1, 5),
        SyntaxErrorCase("{ a(b 1) }", "Syntax Error: Expected \":\", found Int \"1\".", 1, 7),
        SyntaxErrorCase("{ a: }", "Syntax Error: Expected Name, found \"}\".", 1, 6),
        SyntaxErrorCase("{ a @ }", "Syntax Error: Expected Name, found \"}\".", 1, 7),
        SyntaxErrorCase("{ a(b: [1, 2) }", "Syntax Error: Unexpected \")\".", 1, 13),
        SyntaxErrorCase("{ a(b: {c}) }", "Syntax Error: Expected \":\", found \"}\".", 1, 10),
        SyntaxErrorCase("{ a(b: {c: 1) }", "Syntax Error: Expected Name, found \")\".", 1, 13),
        SyntaxErrorCase("{ a(b: $) }", "Syntax Error: Expected Name, found \")\".", 1, 9),
        SyntaxErrorCase("{ a(b: $1) }", "Syntax Error: Expected Name, found Int \"1\".", 1, 9),
        SyntaxErrorCase("{ ... }", "Syntax Error: Expected \"{\", found \"}\".", 1, 7),
        SyntaxErrorCase("{ ...on }", "Syntax Error: Expected Name, found \"}\".", 1, 9),
        SyntaxErrorCase("query { ... on }", "Syntax Error: Expected Name, found \"}\".", 1, 16),
        SyntaxErrorCase("{ ... on T }", "Syntax Error: Expected \"{\", found \"}\".", 1, 12),
        SyntaxErrorCase("{ ...F( }", "Syntax Error: Expected Name, found \"(\".", 1, 7),
        SyntaxErrorCase("fragment on on T {a}", "Syntax Error: Unexpected Name \"on\".", 1, 10),
        SyntaxErrorCase("fragment F on T", "Syntax Error: Expected \"{\", found <EOF>.", 1, 16),
        SyntaxErrorCase("fragment F T { a }", "Syntax Error: Expected \"on\", found Name \"T\".", 1, 12),
        SyntaxErrorCase("fragment F on { a }", "Syntax Error: Expected Name, found \"{\".", 1, 15),
        SyntaxErrorCase("fragment F on T @d($) { a }", "Syntax Error: Expected Name, found \"$\".", 1, 20),
        SyntaxErrorCase("query ($a: Int = $b) {x}", "Syntax Error: Unexpected variable \"$b\" in constant value.", 1, 18),
        SyntaxErrorCase("query ($a: Int = [$b]) {x}", "Syntax Error: Unexpected variable \"$b\" in constant value.", 1, 19),
        SyntaxErrorCase("query ($a: Int = {c: $b}) {x}", "Syntax Error: Unexpected variable \"$b\" in constant value.", 1, 22),
        SyntaxErrorCase("query ($a: Int @d(x: $b)) {x}", "Syntax Error: Unexpected variable \"$b\" in constant value.", 1, 22),
        SyntaxErrorCase("query ($a: Int = $) {x}", "Syntax Error: Unexpected \"$\".", 1, 18),
        SyntaxErrorCase("query Q($a) {x}", "Syntax Error: Expected \":\", found \")\".", 1, 11),
        SyntaxErrorCase("query Q($a: ) {x}", "Syntax Error: Expected Name, found \")\".", 1, 13),
        SyntaxErrorCase("query Q(a: Int) {x}", "Syntax Error: Expected \"$\", found Name \"a\".", 1, 9),
        SyntaxErrorCase("query Q($a: Int = ) {x}", "Syntax Error: Unexpected \")\".", 1, 19),
        SyntaxErrorCase("query Q() {x}", "Syntax Error: Expected \"$\", found \")\".", 1, 9),
        SyntaxErrorCase("query Q($a: [[Int]!!) {x}", "Syntax Error: Expected \"]\", found \"!\".", 1, 20),
        SyntaxErrorCase("query Q($a: [Int) {x}", "Syntax Error: Expected \"]\", found \")\".", 1, 17),
        SyntaxErrorCase("query Q($a: Int!!) {x}", "Syntax Error: Expected \"$\", found \"!\".", 1, 17),
        SyntaxErrorCase("query Q($a: !Int) {x}", "Syntax Error: Expected Name, found \"!\".", 1, 13),
        SyntaxErrorCase("query", "Syntax Error: Expected \"{\", found <EOF>.", 1, 6),
        SyntaxErrorCase("mutation", "Syntax Error: Expected \"{\", found <EOF>.", 1, 9),
        SyntaxErrorCase("subscription S", "Syntax Error: Expected \"{\", found <EOF>.", 1, 15),
        SyntaxErrorCase("query Q", "Syntax Error: Expected \"{\", found <EOF>.", 1, 8),
        SyntaxErrorCase("query Q @d", "Syntax Error: Expected \"{\", found <EOF>.", 1, 11),
        SyntaxErrorCase("query Q @d(a: 1)", "Syntax Error: Expected \"{\", found <EOF>.", 1, 17),
        SyntaxErrorCase("queryy { a }", "Syntax Error: Unexpected Name \"queryy\".", 1, 1),
        SyntaxErrorCase("foo { }", "Syntax Error: Unexpected Name \"foo\".", 1, 1),
        SyntaxErrorCase("Query { a }", "Syntax Error: Unexpected Name \"Query\".", 1, 1),
        SyntaxErrorCase("{ a } b", "Syntax Error: Unexpected Name \"b\".", 1, 7),
        SyntaxErrorCase("type T {}", "Syntax Error: Expected Name, found \"}\".", 1, 9),
        SyntaxErrorCase("type T { a }", "Syntax Error: Expected \":\", found \"}\".", 1, 12),
        SyntaxErrorCase("type T { a: }", "Syntax Error: Expected Name, found \"}\".", 1, 13),
        SyntaxErrorCase("type T { a(): Int }", "Syntax Error: Expected Name, found \")\".", 1, 12),
        SyntaxErrorCase("type T { a(b): Int }", "Syntax Error: Expected \":\", found \")\".", 1, 13),
        SyntaxErrorCase("type T { a: Int = 1 }", "Syntax Error: Expected Name, found \"=\".", 1, 17),
        SyntaxErrorCase("type T @d(a: $v)", "Syntax Error: Unexpected variable \"$v\" in constant value.", 1, 14),
        SyntaxErrorCase("type T implements {", "Syntax Error: Expected Name, found \"{\".", 1, 19),
        SyntaxErrorCase("type T implements A &", "Syntax Error: Expected Name, found <EOF>.", 1, 22),
        SyntaxErrorCase("type T implements & { a: Int }", "Syntax Error: Expected Name, found \"{\".", 1, 21),
        SyntaxErrorCase("type T implements A, B { a: Int }", "Syntax Error: Unexpected Name \"B\".", 1, 22),
        SyntaxErrorCase("type T implements A B { a: Int }", "Syntax Error: Unexpected Name \"B\".", 1, 21),
        SyntaxErrorCase("type", "Syntax Error: Expected Name, found <EOF>.", 1, 5),
        SyntaxErrorCase("type 1", "Syntax Error: Expected Name, found Int \"1\".", 1, 6),
        SyntaxErrorCase("interface I implements", "Syntax Error: Expected Name, found <EOF>.", 1, 23),
        SyntaxErrorCase("interface I {}", "Syntax Error: Expected Name, found \"}\".", 1, 14),
        SyntaxErrorCase("scalar", "Syntax Error: Expected Name, found <EOF>.", 1, 7),
        SyntaxErrorCase("scalar S @d(a: $v)", "Syntax Error: Unexpected variable \"$v\" in constant value.", 1, 16),
        SyntaxErrorCase("schema {}", "Syntax Error: Expected Name, found \"}\".", 1, 9),
        SyntaxErrorCase("schema", "Syntax Error: Expected \"{\", found <EOF>.", 1, 7),
        SyntaxErrorCase("schema { query }", "Syntax Error: Expected \":\", found \"}\".", 1, 16),
        SyntaxErrorCase("schema { query: }", "Syntax Error: Expected Name, found \"}\".", 1, 17),
        SyntaxErrorCase("schema { foo: T }", "Syntax Error: Unexpected Name \"foo\".", 1, 10),
        SyntaxErrorCase("schema { query: [T] }", "Syntax Error: Expected Name, found \"[\".", 1, 17),
        SyntaxErrorCase("schema @d(a: $v) { query: Q }", "Syntax Error: Unexpected variable \"$v\" in constant value.", 1, 14),
        SyntaxErrorCase("union U =", "Syntax Error: Expected Name, found <EOF>.", 1, 10),
        SyntaxErrorCase("union U = |", "Syntax Error: Expected Name, found <EOF>.", 1, 12),
        SyntaxErrorCase("union U = A |", "Syntax Error: Expected Name, found <EOF>.", 1, 14),
        SyntaxErrorCase("union U = A | | B", "Syntax Error: Expected Name, found \"|\".", 1, 15),
        SyntaxErrorCase("union U = A & B", "Syntax Error: Unexpected \"&\".", 1, 13),
        SyntaxErrorCase("union U = [A]", "Syntax Error: Expected Name, found \"[\".", 1, 11),
        SyntaxErrorCase("enum E { true }", "Syntax Error: Name \"true\" is reserved and cannot be used for an enum value.", 1, 10),
        SyntaxErrorCase("enum E { false }", "Syntax Error: Name \"false\" is reserved and cannot be used for an enum value.", 1, 10),
        SyntaxErrorCase("enum E { null }", "Syntax Error: Name \"null\" is reserved and cannot be used for an enum value.", 1, 10),
        SyntaxErrorCase("enum E {}", "Syntax Error: Expected Name, found \"}\".", 1, 9),
        SyntaxErrorCase("enum E { A: Int }", "Syntax Error: Expected Name, found \":\".", 1, 11),
        SyntaxErrorCase("enum E { 1 }", "Syntax Error: Expected Name, found Int \"1\".", 1, 10),
        SyntaxErrorCase("input I { a }", "Syntax Error: Expected \":\", found \"}\".", 1, 13),
        SyntaxErrorCase("input I { a: Int b }", "Syntax Error: Expected \":\", found \"}\".", 1, 20),
        SyntaxErrorCase("input I {}", "Syntax Error: Expected Name, found \"}\".", 1, 10),
        SyntaxErrorCase("input I { a: Int = $v }", "Syntax Error: Unexpected variable \"$v\" in constant value.", 1, 20),
        SyntaxErrorCase("input I { a(b: Int): Int }", "Syntax Error: Expected \":\", found \"(\".", 1, 12),
        SyntaxErrorCase("directive @d on FOO", "Syntax Error: Unexpected Name \"FOO\".", 1, 17),
        SyntaxErrorCase("directive @d", "Syntax Error: Expected \"on\", found <EOF>.", 1, 13),
        SyntaxErrorCase("directive d on FIELD", "Syntax Error: Expected \"@\", found Name \"d\".", 1, 11),
        SyntaxErrorCase("directive @d repeatable FIELD", "Syntax Error: Expected \"on\", found Name \"FIELD\".", 1, 25),
        SyntaxErrorCase("directive @d on", "Syntax Error: Expected Name, found <EOF>.", 1, 16),
        SyntaxErrorCase("directive @d on FIELD |", "Syntax Error: Expected Name, found <EOF>.", 1, 24),
        SyntaxErrorCase("directive @d on field", "Syntax Error: Unexpected Name \"field\".", 1, 17),
        SyntaxErrorCase("directive @d(a) on FIELD", "Syntax Error: Expected \":\", found \")\".", 1, 15),
        SyntaxErrorCase("directive @d(a: Int = $v) on FIELD", "Syntax Error: Unexpected variable \"$v\" in constant value.", 1, 23),
        SyntaxErrorCase("directive @d() on FIELD", "Syntax Error: Expected Name, found \")\".", 1, 14),
        SyntaxErrorCase("extend", "Syntax Error: Unexpected <EOF>.", 1, 7),
        SyntaxErrorCase("extend foo", "Syntax Error: Unexpected Name \"foo\".", 1, 8),
        SyntaxErrorCase("extend schema", "Syntax Error: Unexpected <EOF>.", 1, 14),
        SyntaxErrorCase("extend schema {}", "Syntax Error: Expected Name, found \"}\".", 1, 16),
        SyntaxErrorCase("extend type T", "Syntax Error: Unexpected <EOF>.", 1, 14),
        SyntaxErrorCase("extend type T {}", "Syntax Error: Expected Name, found \"}\".", 1, 16),
        SyntaxErrorCase("extend scalar S", "Syntax Error: Unexpected <EOF>.", 1, 16),
        SyntaxErrorCase("extend interface I", "Syntax Error: Unexpected <EOF>.", 1, 19),
        SyntaxErrorCase("extend union U", "Syntax Error: Unexpected <EOF>.", 1, 15),
        SyntaxErrorCase("extend union U =", "Syntax Error: Expected Name, found <EOF>.", 1, 17),
        SyntaxErrorCase("extend enum E", "Syntax Error: Unexpected <EOF>.", 1, 14),
        SyntaxErrorCase("extend enum E {}", "Syntax Error: Expected Name, found \"}\".", 1, 16),
        SyntaxErrorCase("extend input I", "Syntax Error: Unexpected <EOF>.", 1, 15),
        SyntaxErrorCase("extend input I {}", "Syntax Error: Expected Name, found \"}\".", 1, 17),
        SyntaxErrorCase("extend directive @d on FIELD", "Syntax Error: Unexpected Name \"directive\".", 1, 8),
        SyntaxErrorCase("extend query Q { a }", "Syntax Error: Unexpected Name \"query\".", 1, 8),
        SyntaxErrorCase("extend type", "Syntax Error: Expected Name, found <EOF>.", 1, 12),
        SyntaxErrorCase("extend 1", "Syntax Error: Unexpected Int \"1\".", 1, 8),
        SyntaxErrorCase("\"desc\" extend type T @d", "Syntax Error: Unexpected description, only GraphQL definitions support descriptions.", 1, 1),
        SyntaxErrorCase("\"desc\" { a }", "Syntax Error: Unexpected description, descriptions are not supported on shorthand queries.", 1, 1),
        SyntaxErrorCase("\"\"\"desc\"\"\" { a }", "Syntax Error: Unexpected description, descriptions are not supported on shorthand queries.", 1, 1),
        SyntaxErrorCase("\"desc\"", "Syntax Error: Unexpected <EOF>.", 1, 7),
        SyntaxErrorCase("\"desc\" \"again\" type T", "Syntax Error: Unexpected String \"again\".", 1, 8),
        SyntaxErrorCase("\"desc\" foo", "Syntax Error: Unexpected description, only GraphQL definitions support descriptions.", 1, 1),
        SyntaxErrorCase("\"desc\" 1", "Syntax Error: Unexpected Int \"1\".", 1, 8),
        SyntaxErrorCase("{ a(b: \"unterminated) }", "Syntax Error: Unterminated string.", 1, 24),
        SyntaxErrorCase("{ a(b: 1.) }", "Syntax Error: Invalid number, expected digit but got: \")\".", 1, 10),
        SyntaxErrorCase("query ($a: Int = 00) {x}", "Syntax Error: Invalid number, unexpected digit after 0: \"0\".", 1, 19),
    ]
}

@Suite struct ParserTests {
    @Test(arguments: ParserTable.valid + ParserTable.draft)
    func parsesAndPrintsLikeGraphQLJS(_ c: ValidCase) throws {
        let document = try parse(c.text)
        #expect(print(document) == c.printed)
    }

    @Test(arguments: ParserTable.invalid)
    func rejectsWithGraphQLJSMessage(_ c: SyntaxErrorCase) throws {
        let error = try #require(syntaxError { () throws(GraphQLError) in try parse(c.text) })
        #expect(error.message == c.message)
        #expect(error.locations == [SourceLocation(line: c.line, column: c.column)])
    }

    @Test func fieldStructure() throws {
        let text = "{ alias: name(a: 1, b: [true, null], c: {d: $v, e: ENUM}) @dir(x: \"s\") { sub } }"
        let document = try parse(text)
        guard case .operation(let operation) = try #require(document.definitions.first) else {
            Issue.record("not an operation")
            return
        }
        #expect(operation.operation == .query)
        #expect(operation.name == nil)
        guard case .field(let field) = try #require(operation.selectionSet.selections.first) else {
            Issue.record("not a field")
            return
        }
        #expect(field.alias?.value == "alias")
        #expect(field.name.value == "name")
        #expect(field.responseKey == "alias")
        #expect(field.arguments.map(\.name.value) == ["a", "b", "c"])
        #expect(field.arguments[0].value.kind == .int("1"))
        #expect(field.arguments[1].value.kind == .list([Value(.boolean(true)), Value(.null)]))
        #expect(
            field.arguments[2].value.kind
                == .object([
                    ObjectField(name: Name("d"), value: Value(.variable("v"))),
                    ObjectField(name: Name("e"), value: Value(.enumValue("ENUM"))),
                ]))
        #expect(field.directives.map(\.name.value) == ["dir"])
        #expect(field.directives[0].arguments[0].value.kind == .string("s", block: false))
        #expect(field.selectionSet?.selections.count == 1)

        // Spans are byte ranges of the source text.
        let bytes = Array(text.utf8)
        func slice(_ span: Span) -> String { String(decoding: bytes[span.start..<span.end], as: UTF8.self) }
        #expect(field.span.start == 2)
        #expect(slice(field.span) == "alias: name(a: 1, b: [true, null], c: {d: $v, e: ENUM}) @dir(x: \"s\") { sub }")
        #expect(slice(field.alias!.span) == "alias")
        #expect(slice(field.name.span) == "name")
        #expect(slice(field.arguments[1].span) == "b: [true, null]")
        #expect(slice(field.arguments[1].value.span) == "[true, null]")
        #expect(slice(field.arguments[2].value.span) == "{d: $v, e: ENUM}")
        #expect(slice(field.directives[0].span) == "@dir(x: \"s\")")
        #expect(slice(field.selectionSet!.span) == "{ sub }")
        #expect(slice(operation.span) == String(text))
        #expect(document.span == Span(start: 0, end: bytes.count))
        #expect(document.span.end == bytes.count)
    }

    @Test func spansCountBytesAfterMultiByteText() throws {
        let text = "# é😀\nquery Q($v: [Int!]! = [1]) { ...F ... on T { f } }"
        let document = try parse(text)
        let bytes = Array(text.utf8)
        func slice(_ span: Span) -> String { String(decoding: bytes[span.start..<span.end], as: UTF8.self) }
        guard case .operation(let operation) = document.definitions[0] else {
            Issue.record("not an operation")
            return
        }
        #expect(operation.span.start == 9)
        #expect(slice(operation.span) == "query Q($v: [Int!]! = [1]) { ...F ... on T { f } }")
        let variable = operation.variableDefinitions[0]
        #expect(slice(variable.span) == "$v: [Int!]! = [1]")
        #expect(slice(variable.type.span) == "[Int!]!")
        if case .nonNull(let inner, _) = variable.type { #expect(slice(inner.span) == "[Int!]") } else { Issue.record("not non-null") }
        #expect(slice(operation.selectionSet.selections[0].span) == "...F")
        #expect(slice(operation.selectionSet.selections[1].span) == "... on T { f }")
        #expect(variable.type == .nonNull(.list(.nonNull(.named(Name("Int")), span: .synthetic), span: .synthetic), span: .synthetic))
    }

    @Test func typeSystemStructure() throws {
        let document = try parse(
            """
            "Type T" type T implements & A & B @key(f: "id") { "f" f("x" x: Int = 1): [T!]! }
            extend union U = | C | D
            directive @d(a: Int) repeatable on FIELD | QUERY
            enum E { A @deprecated B }
            """)
        #expect(document.definitions.count == 4)
        guard case .type(.object(let type)) = document.definitions[0],
            case .typeExtension(.union(let union)) = document.definitions[1],
            case .directive(let directive) = document.definitions[2],
            case .type(.enumType(let enumType)) = document.definitions[3]
        else {
            Issue.record("unexpected definitions \(document.definitions)")
            return
        }
        #expect(type.description == StringValue("Type T"))
        #expect(type.interfaces.map(\.value) == ["A", "B"])
        #expect(type.directives.map(\.name.value) == ["key"])
        #expect(type.fields[0].description?.value == "f")
        #expect(type.fields[0].arguments[0].description?.value == "x")
        #expect(type.fields[0].arguments[0].defaultValue?.kind == .int("1"))
        #expect(print(type.fields[0].type) == "[T!]!")
        #expect(union.types.map(\.value) == ["C", "D"])
        #expect(directive.isRepeatable)
        #expect(directive.locations.map(\.value) == ["FIELD", "QUERY"])
        #expect(enumType.values.map(\.name.value) == ["A", "B"])
        #expect(enumType.values[0].directives.map(\.name.value) == ["deprecated"])
        #expect(!document.definitions[0].isExecutable)
    }

    @Test func draftDescriptionsAreKept() throws {
        let document = try parse(#""""op""" query Q("v" $v: Int) { a } "fr" fragment F on T { a }"#)
        guard case .operation(let operation) = document.definitions[0], case .fragment(let fragment) = document.definitions[1] else {
            Issue.record("unexpected definitions")
            return
        }
        #expect(operation.description == StringValue("op", block: true))
        #expect(operation.variableDefinitions[0].description == StringValue("v"))
        #expect(fragment.description == StringValue("fr"))
        #expect(document.definitions.allSatisfy { $0.isExecutable })
    }

    @Test func spansDoNotTakePartInEquality() throws {
        let a = try parse("{ a }")
        #expect(a == (try parse("\n\n  {\n a\n }")))
        #expect(a != (try parse("{ b }")))
        #expect(try parse("{ a(x: 1) }") != (try parse("{ a(x: 1.0) }")))
        #expect(try parse(#"{ a(x: "s") }"#) != (try parse(#"{ a(x: """s""") }"#)))
    }

    @Test(arguments: [
        ("null", Value.Kind.null), ("[1, $a]", .list([Value(.int("1")), Value(.variable("a"))])),
        ("{a: ENUM}", .object([ObjectField(name: Name("a"), value: Value(.enumValue("ENUM")))])),
        (#""""b""""#, .string("b", block: true)),
    ])
    func parsesLoneValues(_ text: String, _ kind: Value.Kind) throws {
        #expect(try parseValue(Source(text)).kind == kind)
    }

    @Test func loneValueErrors() throws {
        let variable = syntaxError { () throws(GraphQLError) in try parseValue(Source("[$a]"), const: true) }
        #expect(variable?.message == "Syntax Error: Unexpected variable \"$a\" in constant value.")
        #expect(variable?.locations == [SourceLocation(line: 1, column: 2)])
        let trailing = syntaxError { () throws(GraphQLError) in try parseValue(Source("1 2")) }
        #expect(trailing?.message == "Syntax Error: Expected <EOF>, found Int \"2\".")
    }

    @Test(arguments: ["String", "[String]", "String!", "[String!]!", "[[A]!]"])
    func parsesLoneTypes(_ text: String) throws {
        #expect(print(try parseType(Source(text))) == text)
    }

    @Test func loneTypeErrors() throws {
        #expect(syntaxError { () throws(GraphQLError) in try parseType(Source("String!!")) }?.message == "Syntax Error: Expected <EOF>, found \"!\".")
        #expect(syntaxError { () throws(GraphQLError) in try parseType(Source("[String")) }?.message == "Syntax Error: Expected \"]\", found <EOF>.")
    }
}
