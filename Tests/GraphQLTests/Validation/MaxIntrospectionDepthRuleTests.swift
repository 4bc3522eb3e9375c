@testable import GraphQL
import Testing

/// graphql-js's recommended MaxIntrospectionDepthRule (not a spec rule).
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct MaxIntrospectionDepthRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ __schema { types { fields { type { fields { name } } } } } }",
            []),
        ValidationCase(
            "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }",
            [
                "Maximum introspection depth exceeded (1:3)",
            ]),
        ValidationCase(
            "{ __type(name: \"Dog\") { interfaces { interfaces { interfaces { name } } } } }",
            [
                "Maximum introspection depth exceeded (1:3)",
            ]),
        ValidationCase(
            "{ __type(name: \"Dog\") { possibleTypes { inputFields { type { possibleTypes { name } } } } } }",
            [
                "Maximum introspection depth exceeded (1:3)",
            ]),
        ValidationCase(
            "{ __schema { types { ...F } } } fragment F on __Type { fields { type { ...G } } } fragment G on __Type { fields { name } }",
            []),
        ValidationCase(
            "{ __schema { types { ...F } } } fragment F on __Type { fields { type { ...F } } }",
            []),
        ValidationCase(
            "{ __schema { types { ... on __Type { fields { type { ... { interfaces { name } } } } } } } }",
            []),
        ValidationCase(
            "{ dog { fields { fields { fields { name } } } } }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rules: [MaxIntrospectionDepthRule.self])
    }
}
