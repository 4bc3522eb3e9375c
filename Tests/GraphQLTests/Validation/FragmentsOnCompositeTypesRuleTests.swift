@testable import GraphQL
import Testing

/// Spec §5.5.1.3 Fragments On Composite Types.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct FragmentsOnCompositeTypesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment validFragment on Dog { barks }",
            []),
        ValidationCase(
            "fragment validFragment on Pet { ... on Dog { barks } }",
            []),
        ValidationCase(
            "fragment validFragment on Pet { ... { name } }",
            []),
        ValidationCase(
            "fragment validFragment on CatOrDog { __typename }",
            []),
        ValidationCase(
            "fragment scalarFragment on Boolean { bad }",
            [
                "Fragment \"scalarFragment\" cannot condition on non composite type \"Boolean\". (1:28)",
            ]),
        ValidationCase(
            "fragment scalarFragment on FurColor { bad }",
            [
                "Fragment \"scalarFragment\" cannot condition on non composite type \"FurColor\". (1:28)",
            ]),
        ValidationCase(
            "fragment inputFragment on ComplexInput { stringField }",
            [
                "Fragment \"inputFragment\" cannot condition on non composite type \"ComplexInput\". (1:27)",
            ]),
        ValidationCase(
            "fragment invalidFragment on Pet { ... on String { barks } }",
            [
                "Fragment cannot condition on non composite type \"String\". (1:42)",
            ]),
        ValidationCase(
            "fragment unknown on Unknown { x }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: FragmentsOnCompositeTypesRule.self)
    }
}
