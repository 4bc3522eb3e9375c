@testable import GraphQL
import Testing

/// Spec §5.8.5 All Variable Usages Are Allowed.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct VariablesInAllowedPositionRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query Query($booleanArg: Boolean) { complicatedArgs { booleanArgField(booleanArg: $booleanArg) } }",
            []),
        ValidationCase(
            "query Query($nonNullBooleanArg: Boolean!) { complicatedArgs { booleanArgField(booleanArg: $nonNullBooleanArg) } }",
            []),
        ValidationCase(
            "query Query($intArg: Int) { complicatedArgs { nonNullIntArgField(nonNullIntArg: $intArg) } }",
            [
                "Variable \"$intArg\" of type \"Int\" used in position expecting type \"Int!\". (1:13, 1:81)",
            ]),
        ValidationCase(
            "query Query($intArg: Int = 1) { complicatedArgs { nonNullIntArgField(nonNullIntArg: $intArg) } }",
            []),
        ValidationCase(
            "query Query($intArg: Int = null) { complicatedArgs { nonNullIntArgField(nonNullIntArg: $intArg) } }",
            [
                "Variable \"$intArg\" of type \"Int\" used in position expecting type \"Int!\". (1:13, 1:88)",
            ]),
        ValidationCase(
            "query Query($intArg: Int) { complicatedArgs { nonNullFieldWithDefault(arg: $intArg) } }",
            []),
        ValidationCase(
            "query Query($stringVar: String) { complicatedArgs { stringListArgField(stringListArg: [$stringVar]) } }",
            []),
        ValidationCase(
            "query Query($stringVar: String) { complicatedArgs { stringListNonNullArgField(stringListNonNullArg: [$stringVar]) } }",
            [
                "Variable \"$stringVar\" of type \"String\" used in position expecting type \"String!\". (1:13, 1:102)",
            ]),
        ValidationCase(
            "query Query($stringListVar: [String]) { complicatedArgs { stringListArgField(stringListArg: $stringListVar) } }",
            []),
        ValidationCase(
            "query Query($stringListVar: [String!]) { complicatedArgs { stringListArgField(stringListArg: $stringListVar) } }",
            []),
        ValidationCase(
            "query Query($stringVar: String) { complicatedArgs { stringListArgField(stringListArg: $stringVar) } }",
            [
                "Variable \"$stringVar\" of type \"String\" used in position expecting type \"[String]\". (1:13, 1:87)",
            ]),
        ValidationCase(
            "query Query($stringVar: String!) { complicatedArgs { stringListArgField(stringListArg: $stringVar) } }",
            [
                "Variable \"$stringVar\" of type \"String!\" used in position expecting type \"[String]\". (1:13, 1:88)",
            ]),
        ValidationCase(
            "query Query($stringListVar: [String]) { complicatedArgs { stringArgField(stringArg: $stringListVar) } }",
            [
                "Variable \"$stringListVar\" of type \"[String]\" used in position expecting type \"String\". (1:13, 1:85)",
            ]),
        ValidationCase(
            "query Query($boolVar: Boolean) { dog @include(if: $boolVar) { name } }",
            [
                "Variable \"$boolVar\" of type \"Boolean\" used in position expecting type \"Boolean!\". (1:13, 1:51)",
            ]),
        ValidationCase(
            "query Query($boolVar: Boolean = false) { dog @include(if: $boolVar) { name } }",
            []),
        ValidationCase(
            "query Query($intVar: Int) { complicatedArgs { stringArgField(stringArg: $intVar) } }",
            [
                "Variable \"$intVar\" of type \"Int\" used in position expecting type \"String\". (1:13, 1:73)",
            ]),
        ValidationCase(
            "query Query($complexVar: ComplexInput) { complicatedArgs { complexArgField(complexArg: {requiredField: $boolVar, nonNullField: $complexVar}) } }",
            [
                "Variable \"$complexVar\" of type \"ComplexInput\" used in position expecting type \"Boolean!\". (1:13, 1:128)",
            ]),
        ValidationCase(
            "query Query($boolVar: Boolean) { complicatedArgs { complexArgField(complexArg: {requiredField: $boolVar, nonNullField: $boolVar}) } }",
            [
                "Variable \"$boolVar\" of type \"Boolean\" used in position expecting type \"Boolean!\". (1:13, 1:96)",
            ]),
        ValidationCase(
            "query Query($intArg: Int) { ...F } fragment F on QueryRoot { complicatedArgs { nonNullIntArgField(nonNullIntArg: $intArg) } }",
            [
                "Variable \"$intArg\" of type \"Int\" used in position expecting type \"Int!\". (1:13, 1:114)",
            ]),
        ValidationCase(
            "query Query($a: Int) { ...F } query Other($a: Int!) { ...F } fragment F on QueryRoot { complicatedArgs { nonNullIntArgField(nonNullIntArg: $a) } }",
            [
                "Variable \"$a\" of type \"Int\" used in position expecting type \"Int!\". (1:13, 1:140)",
            ]),
        ValidationCase(
            "query Query($v: Unknown) { complicatedArgs { intArgField(intArg: $v) } }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: VariablesInAllowedPositionRule.self)
    }
}
