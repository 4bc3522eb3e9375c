@testable import GraphQL
import Testing

/// Spec §5.5.1.1 Fragment Name Uniqueness.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct UniqueFragmentNamesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ dog { ...fragA ...fragB } } fragment fragA on Dog { name } fragment fragB on Dog { nickname }",
            []),
        ValidationCase(
            "query fragA { dog { ...fragA } } fragment fragA on Dog { name }",
            []),
        ValidationCase(
            """
            { dog { ...fragA } }
            fragment fragA on Dog { name }
            fragment fragA on Dog { barks }
            """,
            [
                "There can be only one fragment named \"fragA\". (2:10, 3:10)",
            ]),
        ValidationCase(
            """
            { dog { ...fragA } }
            fragment fragA on Dog { name }
            fragment fragA on Dog { barks }
            fragment fragA on Dog { nickname }
            """,
            [
                "There can be only one fragment named \"fragA\". (2:10, 3:10)",
                "There can be only one fragment named \"fragA\". (2:10, 4:10)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: UniqueFragmentNamesRule.self)
    }
}
