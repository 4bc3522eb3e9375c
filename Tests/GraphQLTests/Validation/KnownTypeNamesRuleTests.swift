@testable import GraphQL
import Testing

/// Spec §5.5.1.2 Fragment Spread Type Existence, §5.8.2 variable types.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct KnownTypeNamesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query Foo($var: String, $required: [Int!]!) { human(id: 4) { pets { ... on Pet { name }, ...PetFields, ... { name } } } } fragment PetFields on Pet { name }",
            []),
        ValidationCase(
            "query Foo($var: [JumbledUpLetters!]!) { human(id: 4) { name pets { ... on Badger { name }, ...PetFields } } } fragment PetFields on Peat { name }",
            [
                "Unknown type \"JumbledUpLetters\". (1:18)",
                "Unknown type \"Badger\". (1:75)",
                "Unknown type \"Peat\". Did you mean \"Pet\" or \"Cat\"? (1:133)",
            ]),
        ValidationCase(
            "query Foo($var: Strin) { dog { name } }",
            [
                "Unknown type \"Strin\". Did you mean \"String\"? (1:17)",
            ]),
        ValidationCase(
            "query Foo($a: ID, $b: Boolean, $c: Float, $d: __Type) { dog { name } }",
            []),
        ValidationCase(
            "{ dog { ... on Dogg { name } } }",
            [
                "Unknown type \"Dogg\". Did you mean \"Dog\"? (1:16)",
            ]),
        ValidationCase(
            "fragment F on Humen { name } { human { ...F } }",
            [
                "Unknown type \"Humen\". Did you mean \"Human\" or \"Alien\"? (1:15)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: KnownTypeNamesRule.self)
    }
}
