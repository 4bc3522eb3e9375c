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
        // A fragment found within the limit only because a spread back into the path was
        // not followed (B through A, at depth 2) must not be remembered as within the
        // limit: from `__type`, B leads through A to a third list.
        ValidationCase(
            "{ __schema { types { ...A } } __type(name: \"Dog\") { fields { interfaces { ...B } } } } fragment A on __Type { fields { interfaces { ...B } } } fragment B on __Type { ...A }",
            [
                "Maximum introspection depth exceeded (1:31)",
            ]),
        ValidationCase(
            "{ __type(name: \"Dog\") { fields { ...B } } a: __type(name: \"Dog\") { fields { interfaces { ...B } } } } fragment A on __Type { fields { interfaces { ...B } } } fragment B on __Type { ...A name }",
            [
                "Maximum introspection depth exceeded (1:3)",
                "Maximum introspection depth exceeded (1:43)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: MaxIntrospectionDepthRule.self)
    }
}
