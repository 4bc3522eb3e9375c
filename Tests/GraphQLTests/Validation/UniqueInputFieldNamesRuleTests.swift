@testable import GraphQL
import Testing

/// Spec §5.6.3 Input Object Field Uniqueness.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct UniqueInputFieldNamesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ field(arg: { f: true }) }",
            []),
        ValidationCase(
            "{ field(arg1: { f: true }, arg2: { f: true }) }",
            []),
        ValidationCase(
            "{ field(arg: { f1: \"value\", f2: \"value\", f3: \"value\" }) }",
            []),
        ValidationCase(
            "{ field(arg: { deep: { deep: { id: 1 } id: 1 } id: 1 }) }",
            []),
        ValidationCase(
            "{ field(arg: { f1: \"value\", f1: \"value\" }) }",
            [
                "There can be only one input field named \"f1\". (1:16, 1:29)",
            ]),
        ValidationCase(
            "{ field(arg: { f1: \"value\", f1: \"value\", f1: \"value\" }) }",
            [
                "There can be only one input field named \"f1\". (1:16, 1:29)",
                "There can be only one input field named \"f1\". (1:16, 1:42)",
            ]),
        ValidationCase(
            "{ field(arg: { f1: {f2: \"value\", f2: \"value\" }}) }",
            [
                "There can be only one input field named \"f2\". (1:21, 1:34)",
            ]),
        ValidationCase(
            "{ field(arg: [{ a: 1, a: 2 }, { a: 1 }]) }",
            [
                "There can be only one input field named \"a\". (1:17, 1:23)",
            ]),
        ValidationCase(
            "query ($v: ComplexInput = {a: 1, a: 2}) { dog { name } }",
            [
                "There can be only one input field named \"a\". (1:28, 1:34)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: UniqueInputFieldNamesRule.self)
    }
}
