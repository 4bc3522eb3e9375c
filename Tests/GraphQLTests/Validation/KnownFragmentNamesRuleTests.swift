@testable import GraphQL
import Testing

/// Spec §5.5.2.1 Fragment Spread Target Defined.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct KnownFragmentNamesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ human(id: 4) { ...HumanFields1 ... on Human { ...HumanFields2 } ... { name } } } fragment HumanFields1 on Human { name ...HumanFields3 } fragment HumanFields2 on Human { name } fragment HumanFields3 on Human { name }",
            []),
        ValidationCase(
            "{ human(id: 4) { ...UnknownFragment1 ... on Human { ...UnknownFragment2 } } } fragment HumanFields on Human { name ...UnknownFragment3 }",
            [
                "Unknown fragment \"UnknownFragment1\". (1:21)",
                "Unknown fragment \"UnknownFragment2\". (1:56)",
                "Unknown fragment \"UnknownFragment3\". (1:119)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: KnownFragmentNamesRule.self)
    }
}
