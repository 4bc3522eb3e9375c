@testable import GraphQL
import Testing

/// Spec §5.2.1.1 Operation Name Uniqueness.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct UniqueOperationNamesRuleTests {
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
            "query Foo { dog { name } } mutation Bar { renameDog(name: \"x\") { name } }",
            []),
        ValidationCase(
            "query Foo { dog { name } } fragment Foo on Dog { name }",
            []),
        ValidationCase(
            """
            query Foo { dog { name } }
            query Foo { dog { nickname } }
            """,
            [
                "There can be only one operation named \"Foo\". (1:7, 2:7)",
            ]),
        ValidationCase(
            """
            query Foo { dog { name } }
            mutation Foo { renameDog(name: "x") { name } }
            subscription Foo { newMessage { body } }
            """,
            [
                "There can be only one operation named \"Foo\". (1:7, 2:10)",
                "There can be only one operation named \"Foo\". (1:7, 3:14)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: UniqueOperationNamesRule.self)
    }
}
