@testable import GraphQL
import Testing

/// Spec §5.5.1.4 Fragments Must Be Used.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct NoUnusedFragmentsRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ human(id: 4) { ...HumanFields1 ... on Human { ...HumanFields2 } } } fragment HumanFields1 on Human { name ...HumanFields3 } fragment HumanFields2 on Human { name } fragment HumanFields3 on Human { name }",
            []),
        ValidationCase(
            "query Foo { human(id: 4) { ...HumanFields1 } } query Bar { human(id: 4) { ...HumanFields2 } } fragment HumanFields1 on Human { name ...HumanFields3 } fragment HumanFields2 on Human { name } fragment HumanFields3 on Human { name } fragment Unused1 on Human { name } fragment Unused2 on Human { name }",
            [
                "Fragment \"Unused1\" is never used. (1:231)",
                "Fragment \"Unused2\" is never used. (1:266)",
            ]),
        ValidationCase(
            "query Foo { human(id: 4) { ...HumanFields1 } } fragment HumanFields1 on Human { name } fragment Unused1 on Human { name ...Unused2 } fragment Unused2 on Human { name ...Unused1 }",
            [
                "Fragment \"Unused1\" is never used. (1:88)",
                "Fragment \"Unused2\" is never used. (1:134)",
            ]),
        ValidationCase(
            "{ human(id: 4) { ...bar } } fragment foo on Human { name }",
            [
                "Fragment \"foo\" is never used. (1:29)",
            ]),
        ValidationCase(
            "fragment foo on Human { name }",
            [
                "Fragment \"foo\" is never used. (1:1)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: NoUnusedFragmentsRule.self)
    }
}
