@testable import GraphQL
import Testing

/// Spec §5.3.1 Field Selections, with graphql-js's suggestions.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct FieldsOnCorrectTypeRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment objectFieldSelection on Dog { __typename name }",
            []),
        ValidationCase(
            "fragment aliasedObjectFieldSelection on Dog { tn : __typename otherName : name }",
            []),
        ValidationCase(
            "fragment interfaceFieldSelection on Pet { __typename name }",
            []),
        ValidationCase(
            "fragment lyingAliasSelection on Dog { name : nickname }",
            []),
        ValidationCase(
            "fragment unknownSelection on UnknownType { unknownField }",
            []),
        ValidationCase(
            "fragment typeKnownAgain on Pet { unknown_pet_field { ... on Cat { unknown_cat_field } } }",
            [
                "Cannot query field \"unknown_pet_field\" on type \"Pet\". (1:34)",
                "Cannot query field \"unknown_cat_field\" on type \"Cat\". (1:67)",
            ]),
        ValidationCase(
            "fragment fieldNotDefined on Dog { meowVolume }",
            [
                "Cannot query field \"meowVolume\" on type \"Dog\". Did you mean \"barkVolume\"? (1:35)",
            ]),
        ValidationCase(
            "fragment aliasedFieldTargetNotDefined on Dog { volume : mooVolume }",
            [
                "Cannot query field \"mooVolume\" on type \"Dog\". Did you mean \"barkVolume\"? (1:48)",
            ]),
        ValidationCase(
            "fragment notDefinedOnInterface on Pet { tailLength }",
            [
                "Cannot query field \"tailLength\" on type \"Pet\". (1:41)",
            ]),
        ValidationCase(
            "fragment definedOnImplementorsButNotInterface on Pet { nickname }",
            [
                "Cannot query field \"nickname\" on type \"Pet\". Did you mean to use an inline fragment on \"Cat\" or \"Dog\"? (1:56)",
            ]),
        ValidationCase(
            "fragment directFieldSelectionOnUnion on CatOrDog { __typename directField }",
            [
                "Cannot query field \"directField\" on type \"CatOrDog\". (1:63)",
            ]),
        ValidationCase(
            "fragment definedOnImplementorsQueriedOnUnion on CatOrDog { name }",
            [
                "Cannot query field \"name\" on type \"CatOrDog\". Did you mean to use an inline fragment on \"Pet\", \"Canine\", \"Cat\", or \"Dog\"? (1:60)",
            ]),
        ValidationCase(
            "fragment beingName on Being { name } fragment onUnion on HumanOrAlien { name iq }",
            [
                "Cannot query field \"name\" on type \"HumanOrAlien\". Did you mean to use an inline fragment on \"Being\", \"Alien\", or \"Human\"? (1:73)",
                "Cannot query field \"iq\" on type \"HumanOrAlien\". Did you mean to use an inline fragment on \"Intelligent\", \"Alien\", or \"Human\"? (1:78)",
            ]),
        ValidationCase(
            "fragment meta on Pet { __schema { queryType { name } } }",
            [
                "Cannot query field \"__schema\" on type \"Pet\". (1:24)",
            ]),
        ValidationCase(
            "{ __schema { queryType { name } } __type(name: \"Dog\") { name } __typename }",
            []),
        ValidationCase(
            "{ dog { __type(name: \"Dog\") { name } } }",
            [
                "Cannot query field \"__type\" on type \"Dog\". (1:9)",
            ]),
        ValidationCase(
            "{ dog { nam } human { nme } }",
            [
                "Cannot query field \"nam\" on type \"Dog\". Did you mean \"name\"? (1:9)",
                "Cannot query field \"nme\" on type \"Human\". Did you mean \"name\"? (1:23)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: FieldsOnCorrectTypeRule.self)
    }
}
