@testable import GraphQL
import Testing

/// Spec §5.8.4 All Variables Used.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct NoUnusedVariablesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query ($a: String, $b: String, $c: String) { field(a: $a, b: $b, c: $c) }",
            []),
        ValidationCase(
            "query Foo($a: String, $b: String, $c: String) { ...FragA } fragment FragA on Type { field(a: $a) { ...FragB } } fragment FragB on Type { field(b: $b) { ...FragC } } fragment FragC on Type { field(c: $c) }",
            []),
        ValidationCase(
            "query Foo($b: String) { ...FragA } fragment FragA on Type { field(a: $a) { ...FragA } }",
            [
                "Variable \"$b\" is never used in operation \"Foo\". (1:11)",
            ]),
        ValidationCase(
            "query ($a: String, $b: String, $c: String) { field(a: $a, b: $b) }",
            [
                "Variable \"$c\" is never used. (1:32)",
            ]),
        ValidationCase(
            "query Foo($a: String, $b: String, $c: String) { field(b: $b) }",
            [
                "Variable \"$a\" is never used in operation \"Foo\". (1:11)",
                "Variable \"$c\" is never used in operation \"Foo\". (1:35)",
            ]),
        ValidationCase(
            "query Foo($a: String, $b: String) { ...FragA } query Bar($a: String) { ...FragB } fragment FragA on Type { field(a: $a) } fragment FragB on Type { field(b: $b) }",
            [
                "Variable \"$b\" is never used in operation \"Foo\". (1:23)",
                "Variable \"$a\" is never used in operation \"Bar\". (1:58)",
            ]),
        ValidationCase(
            "query Foo($a: String = \"x\" @onVariableDefinition) { dog { name } }",
            [
                "Variable \"$a\" is never used in operation \"Foo\". (1:11)",
            ]),
        ValidationCase(
            "query Foo($a: Boolean) { dog @include(if: $a) { name } }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: NoUnusedVariablesRule.self)
    }
}
