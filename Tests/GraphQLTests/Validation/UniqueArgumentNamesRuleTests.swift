@testable import GraphQL
import Testing

/// Spec §5.4.2 Argument Uniqueness.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct UniqueArgumentNamesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ field }",
            []),
        ValidationCase(
            "{ field @directive }",
            []),
        ValidationCase(
            "{ field(arg: \"value\") }",
            []),
        ValidationCase(
            "{ field(arg1: \"value\", arg2: \"value\", arg3: \"value\") }",
            []),
        ValidationCase(
            "{ one: field(arg: \"value\") two: field(arg: \"value\") }",
            []),
        ValidationCase(
            "{ field(arg: \"value\") @directive(arg: \"value\") }",
            []),
        ValidationCase(
            "{ field(arg1: \"value\", arg1: \"value\") }",
            [
                "There can be only one argument named \"arg1\". (1:9, 1:24)",
            ]),
        ValidationCase(
            "{ field(arg1: \"value\", arg1: \"value\", arg1: \"value\") }",
            [
                "There can be only one argument named \"arg1\". (1:9, 1:24, 1:39)",
            ]),
        ValidationCase(
            "{ field @directive(arg1: \"value\", arg1: \"value\") }",
            [
                "There can be only one argument named \"arg1\". (1:20, 1:35)",
            ]),
        ValidationCase(
            "{ field(a: 1, b: 2, a: 3, b: 4) @directive(x: 1, x: 2) }",
            [
                "There can be only one argument named \"a\". (1:9, 1:21)",
                "There can be only one argument named \"b\". (1:15, 1:27)",
                "There can be only one argument named \"x\". (1:44, 1:50)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: UniqueArgumentNamesRule.self)
    }
}
