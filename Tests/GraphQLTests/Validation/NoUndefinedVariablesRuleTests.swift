@testable import GraphQL
import Testing

/// Spec §5.8.3 All Variable Uses Defined.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct NoUndefinedVariablesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query Foo($a: String, $b: String, $c: String) { field(a: $a, b: $b, c: $c) }",
            []),
        ValidationCase(
            "query Foo($a: String, $b: String, $c: String) { field1(a: $a) { field2(b: $b) { field3(c: $c) } } }",
            []),
        ValidationCase(
            "query Foo($a: String, $b: String, $c: String) { ...FragA } fragment FragA on Type { field(a: $a) { ...FragB } } fragment FragB on Type { field(b: $b) { ...FragC } } fragment FragC on Type { field(c: $c) }",
            []),
        ValidationCase(
            "query Foo($a: String, $b: String) { ...FragA } fragment FragA on Type { field(a: $a) { ...FragA } }",
            []),
        ValidationCase(
            "query Foo($a: String, $b: String, $c: String) { field(a: $a, b: $b, c: $c, d: $d) }",
            [
                "Variable \"$d\" is not defined by operation \"Foo\". (1:79, 1:1)",
            ]),
        ValidationCase(
            "query { field(a: $a) }",
            [
                "Variable \"$a\" is not defined. (1:18, 1:1)",
            ]),
        ValidationCase(
            "query Foo($b: String) { field(a: $a, b: $b, c: $c) }",
            [
                "Variable \"$a\" is not defined by operation \"Foo\". (1:34, 1:1)",
                "Variable \"$c\" is not defined by operation \"Foo\". (1:48, 1:1)",
            ]),
        ValidationCase(
            "{ field(a: $a) { field(b: $b) } field(c: $c) }",
            [
                "Variable \"$a\" is not defined. (1:12, 1:1)",
                "Variable \"$b\" is not defined. (1:27, 1:1)",
                "Variable \"$c\" is not defined. (1:42, 1:1)",
            ]),
        ValidationCase(
            "query Foo($a: String, $b: String) { ...FragA } fragment FragA on Type { field(a: $a) { ...FragB } } fragment FragB on Type { field(b: $b) { ...FragC } } fragment FragC on Type { field(c: $c) }",
            [
                "Variable \"$c\" is not defined by operation \"Foo\". (1:188, 1:1)",
            ]),
        ValidationCase(
            "query Foo($b: String) { ...FragAB } query Bar($a: String) { ...FragAB } fragment FragAB on Type { field1(a: $a, b: $b) ...FragC field3(a: $a, b: $b) } fragment FragC on Type { field2(c: $c) }",
            [
                "Variable \"$a\" is not defined by operation \"Foo\". (1:109, 1:1)",
                "Variable \"$a\" is not defined by operation \"Foo\". (1:139, 1:1)",
                "Variable \"$c\" is not defined by operation \"Foo\". (1:187, 1:1)",
                "Variable \"$b\" is not defined by operation \"Bar\". (1:116, 1:37)",
                "Variable \"$b\" is not defined by operation \"Bar\". (1:146, 1:37)",
                "Variable \"$c\" is not defined by operation \"Bar\". (1:187, 1:37)",
            ]),
        ValidationCase(
            "query Foo($a: String) { dog @include(if: $cond) { name(surname: $a) } }",
            [
                "Variable \"$cond\" is not defined by operation \"Foo\". (1:42, 1:1)",
            ]),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: {requiredField: $x, stringListField: [$y]}) } }",
            [
                "Variable \"$x\" is not defined. (1:65, 1:1)",
                "Variable \"$y\" is not defined. (1:87, 1:1)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: NoUndefinedVariablesRule.self)
    }
}
