@testable import GraphQL
import Testing

/// Spec §5.8.2 Variables Are Input Types.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct VariablesAreInputTypesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query Foo($a: Unknown, $b: [[Unknown!]]!) { field(a: $a, b: $b) }",
            []),
        ValidationCase(
            "query Foo($a: String, $b: [Boolean!]!, $c: ComplexInput) { field(a: $a, b: $b, c: $c) }",
            []),
        ValidationCase(
            "query Foo($a: Dog, $b: [[CatOrDog!]]!, $c: Pet) { field(a: $a, b: $b, c: $c) }",
            [
                "Variable \"$a\" cannot be non-input type \"Dog\". (1:15)",
                "Variable \"$b\" cannot be non-input type \"[[CatOrDog!]]!\". (1:24)",
                "Variable \"$c\" cannot be non-input type \"Pet\". (1:44)",
            ]),
        ValidationCase(
            "query Foo($a: Dog = null) { dog { name } }",
            [
                "Variable \"$a\" cannot be non-input type \"Dog\". (1:15)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: VariablesAreInputTypesRule.self)
    }
}
