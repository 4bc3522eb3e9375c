@testable import GraphQL
import Testing

/// Spec §5.8.1 Variable Uniqueness.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct UniqueVariableNamesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query A($x: Int, $y: String) { __typename } query B($x: String, $y: Int) { __typename }",
            []),
        ValidationCase(
            "query A($x: Int, $x: Int, $x: String) { __typename } query B($x: String, $x: Int) { __typename } query C($x: Int, $x: Int) { __typename }",
            [
                "There can be only one variable named \"$x\". (1:10, 1:19, 1:28)",
                "There can be only one variable named \"$x\". (1:63, 1:75)",
                "There can be only one variable named \"$x\". (1:107, 1:116)",
            ]),
        ValidationCase(
            "query A($a: Int, $b: Int, $a: Int, $b: Int) { __typename }",
            [
                "There can be only one variable named \"$a\". (1:10, 1:28)",
                "There can be only one variable named \"$b\". (1:19, 1:37)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: UniqueVariableNamesRule.self)
    }
}
