@testable import GraphQL
import Testing

/// Spec §5.3.3 Leaf Field Selections.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct ScalarLeafsRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment scalarSelection on Dog { barks }",
            []),
        ValidationCase(
            "query directQueryOnObjectWithoutSubFields { human }",
            [
                "Field \"human\" of type \"Human\" must have a selection of subfields. Did you mean \"human { ... }\"? (1:45)",
            ]),
        ValidationCase(
            "query directQueryOnInterfaceWithoutSubFields { pet }",
            [
                "Field \"pet\" of type \"Pet\" must have a selection of subfields. Did you mean \"pet { ... }\"? (1:48)",
            ]),
        ValidationCase(
            "query directQueryOnUnionWithoutSubFields { catOrDog }",
            [
                "Field \"catOrDog\" of type \"CatOrDog\" must have a selection of subfields. Did you mean \"catOrDog { ... }\"? (1:44)",
            ]),
        ValidationCase(
            "fragment objectFieldSelection on Human { relatives }",
            [
                "Field \"relatives\" of type \"[Human]!\" must have a selection of subfields. Did you mean \"relatives { ... }\"? (1:42)",
            ]),
        ValidationCase(
            "fragment scalarSelectionsNotAllowedOnBoolean on Dog { barks { sinceWhen } }",
            [
                "Field \"barks\" must not have a selection since type \"Boolean\" has no subfields. (1:61)",
            ]),
        ValidationCase(
            "fragment scalarSelectionsNotAllowedOnEnum on Cat { furColor { inHexDec } }",
            [
                "Field \"furColor\" must not have a selection since type \"FurColor\" has no subfields. (1:61)",
            ]),
        ValidationCase(
            "fragment scalarSelectionsNotAllowedWithArgs on Dog { doesKnowCommand(dogCommand: SIT) { sinceWhen } }",
            [
                "Field \"doesKnowCommand\" must not have a selection since type \"Boolean\" has no subfields. (1:87)",
            ]),
        ValidationCase(
            "fragment scalarSelectionsNotAllowedWithDirectives on Dog { name @include(if: true) { isAlsoHumanName } }",
            [
                "Field \"name\" must not have a selection since type \"String\" has no subfields. (1:84)",
            ]),
        ValidationCase(
            "{ __typename { x } __schema }",
            [
                "Field \"__typename\" must not have a selection since type \"String!\" has no subfields. (1:14)",
                "Field \"__schema\" of type \"__Schema!\" must have a selection of subfields. Did you mean \"__schema { ... }\"? (1:20)",
            ]),
        ValidationCase(
            "{ unknownField { x } }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: ScalarLeafsRule.self)
    }
}
