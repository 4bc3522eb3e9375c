@testable import GraphQL
import Testing

/// Spec §5.2.2.1 Lone Anonymous Operation.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct LoneAnonymousOperationRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment fragA on Dog { name }",
            []),
        ValidationCase(
            "{ dog { name } }",
            []),
        ValidationCase(
            "query Foo { dog { name } } query Bar { dog { name } }",
            []),
        ValidationCase(
            """
            { dog { name } }
            { cat { name } }
            """,
            [
                "This anonymous operation must be the only defined operation. (1:1)",
                "This anonymous operation must be the only defined operation. (2:1)",
            ]),
        ValidationCase(
            """
            { dog { name } }
            query Foo { cat { name } }
            """,
            [
                "This anonymous operation must be the only defined operation. (1:1)",
            ]),
        ValidationCase(
            """
            { dog { name } }
            mutation Foo { renameDog(name: "x") { name } }
            """,
            [
                "This anonymous operation must be the only defined operation. (1:1)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: LoneAnonymousOperationRule.self)
    }
}
