@testable import GraphQL
import Testing

/// Spec §5.5.2.3 Fragment Spread Is Possible.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct PossibleFragmentSpreadsRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment objectWithinObject on Dog { ...dogFragment } fragment dogFragment on Dog { barkVolume }",
            []),
        ValidationCase(
            "fragment objectWithinObjectAnon on Dog { ... on Dog { barkVolume } }",
            []),
        ValidationCase(
            "fragment objectWithinInterface on Pet { ...dogFragment } fragment dogFragment on Dog { barkVolume }",
            []),
        ValidationCase(
            "fragment objectWithinUnion on CatOrDog { ...dogFragment } fragment dogFragment on Dog { barkVolume }",
            []),
        ValidationCase(
            "fragment unionWithinObject on Dog { ...catOrDogFragment } fragment catOrDogFragment on CatOrDog { __typename }",
            []),
        ValidationCase(
            "fragment interfaceWithinInterface on Pet { ...petFragment } fragment petFragment on Pet { name }",
            []),
        ValidationCase(
            "fragment interfaceWithinImplementedInterface on Mammal { ...canineFragment } fragment canineFragment on Canine { name }",
            []),
        ValidationCase(
            "fragment unionWithinUnion on DogOrHuman { ...catOrDogFragment } fragment catOrDogFragment on CatOrDog { __typename }",
            []),
        ValidationCase(
            "fragment invalidObjectWithinObject on Cat { ...dogFragment } fragment dogFragment on Dog { barkVolume }",
            [
                "Fragment \"dogFragment\" cannot be spread here as objects of type \"Cat\" can never be of type \"Dog\". (1:45)",
            ]),
        ValidationCase(
            "fragment invalidObjectWithinObjectAnon on Cat { ... on Dog { barkVolume } }",
            [
                "Fragment cannot be spread here as objects of type \"Cat\" can never be of type \"Dog\". (1:49)",
            ]),
        ValidationCase(
            "fragment invalidObjectWithinInterface on Pet { ...humanFragment } fragment humanFragment on Human { pets { name } }",
            [
                "Fragment \"humanFragment\" cannot be spread here as objects of type \"Pet\" can never be of type \"Human\". (1:48)",
            ]),
        ValidationCase(
            "fragment invalidObjectWithinUnion on CatOrDog { ...humanFragment } fragment humanFragment on Human { pets { name } }",
            [
                "Fragment \"humanFragment\" cannot be spread here as objects of type \"CatOrDog\" can never be of type \"Human\". (1:49)",
            ]),
        ValidationCase(
            "fragment invalidUnionWithinObject on Human { ...catOrDogFragment } fragment catOrDogFragment on CatOrDog { __typename }",
            [
                "Fragment \"catOrDogFragment\" cannot be spread here as objects of type \"Human\" can never be of type \"CatOrDog\". (1:46)",
            ]),
        ValidationCase(
            "fragment invalidUnionWithinInterface on Pet { ...humanOrAlienFragment } fragment humanOrAlienFragment on HumanOrAlien { __typename }",
            [
                "Fragment \"humanOrAlienFragment\" cannot be spread here as objects of type \"Pet\" can never be of type \"HumanOrAlien\". (1:47)",
            ]),
        ValidationCase(
            "fragment invalidUnionWithinUnion on CatOrDog { ...humanOrAlienFragment } fragment humanOrAlienFragment on HumanOrAlien { __typename }",
            [
                "Fragment \"humanOrAlienFragment\" cannot be spread here as objects of type \"CatOrDog\" can never be of type \"HumanOrAlien\". (1:48)",
            ]),
        ValidationCase(
            "fragment invalidInterfaceWithinObject on Cat { ...intelligentFragment } fragment intelligentFragment on Intelligent { iq }",
            [
                "Fragment \"intelligentFragment\" cannot be spread here as objects of type \"Cat\" can never be of type \"Intelligent\". (1:48)",
            ]),
        ValidationCase(
            "fragment invalidInterfaceWithinInterface on Pet { ...intelligentFragment } fragment intelligentFragment on Intelligent { iq }",
            [
                "Fragment \"intelligentFragment\" cannot be spread here as objects of type \"Pet\" can never be of type \"Intelligent\". (1:51)",
            ]),
        ValidationCase(
            "fragment invalidInterfaceWithinInterfaceAnon on Pet { ...on Intelligent { iq } }",
            [
                "Fragment cannot be spread here as objects of type \"Pet\" can never be of type \"Intelligent\". (1:55)",
            ]),
        ValidationCase(
            "fragment invalidInterfaceWithinUnion on HumanOrAlien { ...petFragment } fragment petFragment on Pet { name }",
            [
                "Fragment \"petFragment\" cannot be spread here as objects of type \"HumanOrAlien\" can never be of type \"Pet\". (1:56)",
            ]),
        ValidationCase(
            "fragment unknownFragment on Dog { ...missing ... on Unknown { x } }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: PossibleFragmentSpreadsRule.self)
    }
}
