@testable import GraphQL
import Testing

/// Spec §5.7.3 Directives Are Unique per Location.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct UniqueDirectivesPerLocationRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment Test on Type { field }",
            []),
        ValidationCase(
            "fragment Test on Type { field @directiveA }",
            []),
        ValidationCase(
            "fragment Test on Type { field @directiveA @directiveB }",
            []),
        ValidationCase(
            "fragment Test on Type { field @repeatable @repeatable }",
            []),
        ValidationCase(
            "fragment Test on Type { field @directiveA field @directiveA }",
            []),
        ValidationCase(
            "fragment Test on Type @directiveA { field @directiveA ... @directiveA { f } ...F @directiveA }",
            []),
        ValidationCase(
            "fragment Test on Type { field @directiveA @directiveA }",
            [
                "The directive \"@directiveA\" can only be used once at this location. (1:31, 1:43)",
            ]),
        ValidationCase(
            "fragment Test on Type { field @directiveA @directiveA @directiveA }",
            [
                "The directive \"@directiveA\" can only be used once at this location. (1:31, 1:43)",
                "The directive \"@directiveA\" can only be used once at this location. (1:31, 1:55)",
            ]),
        ValidationCase(
            "fragment Test on Type { field @directiveA @directiveB @directiveA @directiveB }",
            [
                "The directive \"@directiveA\" can only be used once at this location. (1:31, 1:55)",
                "The directive \"@directiveB\" can only be used once at this location. (1:43, 1:67)",
            ]),
        ValidationCase(
            "fragment Test on Type @directiveA @directiveA { field @directiveA @directiveA }",
            [
                "The directive \"@directiveA\" can only be used once at this location. (1:23, 1:35)",
                "The directive \"@directiveA\" can only be used once at this location. (1:55, 1:67)",
            ]),
        ValidationCase(
            "query Q($v: Int @onVariableDefinition @onVariableDefinition) @onQuery @onQuery { ... @directiveA @directiveA { f } ...F @directiveB @directiveB }",
            [
                "The directive \"@onQuery\" can only be used once at this location. (1:62, 1:71)",
                "The directive \"@onVariableDefinition\" can only be used once at this location. (1:17, 1:39)",
                "The directive \"@directiveA\" can only be used once at this location. (1:86, 1:98)",
                "The directive \"@directiveB\" can only be used once at this location. (1:121, 1:133)",
            ]),
        ValidationCase(
            "{ field @unknown @unknown }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: UniqueDirectivesPerLocationRule.self)
    }
}
