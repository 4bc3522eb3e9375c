@testable import GraphQL
import Testing

/// Spec §5.3.2 Field Selection Merging.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct OverlappingFieldsCanBeMergedRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment uniqueFields on Dog { name nickname }",
            []),
        ValidationCase(
            "fragment mergeIdenticalFields on Dog { name name }",
            []),
        ValidationCase(
            "fragment mergeIdenticalFieldsWithIdenticalArgs on Dog { doesKnowCommand(dogCommand: SIT) doesKnowCommand(dogCommand: SIT) }",
            []),
        ValidationCase(
            "fragment mergeIdenticalFieldsWithIdenticalDirectives on Dog { name @include(if: true) name @include(if: false) }",
            []),
        ValidationCase(
            "fragment differentArgsWithDifferentAliases on Dog { knowsSit: doesKnowCommand(dogCommand: SIT) knowsDown: doesKnowCommand(dogCommand: DOWN) }",
            []),
        ValidationCase(
            "fragment differentDirectivesWithDifferentAliases on Dog { nameIfTrue: name @include(if: true) nameIfFalse: name @include(if: false) }",
            []),
        ValidationCase(
            "fragment differentDirectivesWithDifferentAliases on Dog { name @include(if: true) name @include(if: false) }",
            []),
        ValidationCase(
            "fragment sameAliasesWithDifferentFieldTargets on Dog { fido: name fido: nickname }",
            [
                "Fields \"fido\" conflict because \"name\" and \"nickname\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:56, 1:67)",
            ]),
        ValidationCase(
            "fragment sameAliasesAllowedOnNonOverlappingFields on Pet { ... on Dog { name } ... on Cat { name: nickname } }",
            []),
        ValidationCase(
            "fragment aliasMaskingDirectFieldAccess on Dog { name: nickname name }",
            [
                "Fields \"name\" conflict because \"nickname\" and \"name\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:49, 1:64)",
            ]),
        ValidationCase(
            "fragment conflictingArgs on Dog { doesKnowCommand doesKnowCommand(dogCommand: HEEL) }",
            [
                "Fields \"doesKnowCommand\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:35, 1:51)",
            ]),
        ValidationCase(
            "fragment conflictingArgs on Dog { doesKnowCommand(dogCommand: SIT) doesKnowCommand(dogCommand: HEEL) }",
            [
                "Fields \"doesKnowCommand\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:35, 1:68)",
            ]),
        ValidationCase(
            "fragment conflictingArgs on Dog { isAtLocation(x: 0) isAtLocation(y: 0) }",
            [
                "Fields \"isAtLocation\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:35, 1:54)",
            ]),
        ValidationCase(
            "fragment sameArgsDifferentOrder on Dog { isAtLocation(x: 0, y: 1) isAtLocation(y: 1, x: 0) }",
            []),
        ValidationCase(
            "{ complicatedArgs { complexArgField(complexArg: {requiredField: true, intField: 1}) complexArgField(complexArg: {intField: 1, requiredField: true}) } }",
            []),
        ValidationCase(
            "fragment conflictingArgs on Dog { ... on Dog { doesKnowCommand(dogCommand: SIT) } ... on Dog { doesKnowCommand(dogCommand: HEEL) } }",
            [
                "Fields \"doesKnowCommand\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (1:48, 1:96)",
            ]),
        ValidationCase(
            "fragment conflictingArgs on Pet { ... on Dog { name(surname: true) } ... on Cat { name } }",
            []),
        ValidationCase(
            "{ ...A ...B } fragment A on QueryRoot { x: dog { name } } fragment B on QueryRoot { x: dog { name: nickname } }",
            [
                "Fields \"x\" conflict because subfields \"name\" conflict because \"name\" and \"nickname\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:41, 1:50, 1:85, 1:94)",
            ]),
        ValidationCase(
            "{ f1 { ...A ...B } f2 { ...B ...A } f3 { ...A ...B x: c } } fragment A on Type { x: a } fragment B on Type { x: b }",
            [
                "Fields \"x\" conflict because \"a\" and \"b\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:82, 1:110)",
                "Fields \"x\" conflict because \"c\" and \"a\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:52, 1:82)",
                "Fields \"x\" conflict because \"c\" and \"b\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:52, 1:110)",
            ]),
        ValidationCase(
            "{ field { ...F } field { ...F } } fragment F on T { deepField { deeperField { x: a } deeperField { x: b } } deepField { deeperField { y } } }",
            [
                "Fields \"deeperField\" conflict because subfields \"x\" conflict because \"a\" and \"b\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:65, 1:79, 1:86, 1:100)",
            ]),
        ValidationCase(
            "{ dog { x: name } dog { x: barks } }",
            [
                "Fields \"dog\" conflict because subfields \"x\" conflict because \"name\" and \"barks\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:9, 1:19, 1:25)",
            ]),
        ValidationCase(
            "{ dog { x: name y: nickname } dog { x: barks y: barkVolume } }",
            [
                "Fields \"dog\" conflict because subfields \"x\" conflict because \"name\" and \"barks\" are different fields and subfields \"y\" conflict because \"nickname\" and \"barkVolume\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:9, 1:17, 1:31, 1:37, 1:46)",
            ]),
        ValidationCase(
            "{ dog { mother { x: name } } dog { mother { x: nickname } } }",
            [
                "Fields \"dog\" conflict because subfields \"mother\" conflict because subfields \"x\" conflict because \"name\" and \"nickname\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:9, 1:18, 1:30, 1:36, 1:45)",
            ]),
        ValidationCase(
            "{ dog { mother { x: name } mother { x: nickname } } dog { mother { x: barks } } }",
            [
                "Fields \"dog\" conflict because subfields \"mother\" conflict because subfields \"x\" conflict because \"name\" and \"barks\" are different fields and subfields \"mother\" conflict because subfields \"x\" conflict because \"nickname\" and \"barks\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:9, 1:18, 1:28, 1:37, 1:53, 1:59, 1:68, 1:59, 1:68)",
                "Fields \"mother\" conflict because subfields \"x\" conflict because \"name\" and \"nickname\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:9, 1:18, 1:28, 1:37)",
            ]),
        ValidationCase(
            "{ dog { ...F } dog { ...F } } fragment F on Dog { x: name ...G } fragment G on Dog { x: nickname }",
            [
                "Fields \"x\" conflict because \"name\" and \"nickname\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:51, 1:86)",
            ]),
        ValidationCase(
            "{ ...A } fragment A on QueryRoot { dog { ...B } } fragment B on Dog { x: name ...A }",
            []),
        ValidationCase(
            "{ ...A } fragment A on QueryRoot { ...B x: dog { name } } fragment B on QueryRoot { ...A x: cat { name } }",
            [
                "Fields \"x\" conflict because \"dog\" and \"cat\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:41, 1:90)",
                "Fields \"x\" conflict because \"cat\" and \"dog\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:90, 1:41)",
            ]),
        ValidationCase(
            "{ dog { ...F } } fragment F on Dog { x: name ...F }",
            []),
        ValidationCase(
            "{ catOrDog { ... on Dog { barkVolume: nickname } ... on Cat { barkVolume: meowsVolume } } }",
            [
                "Fields \"barkVolume\" conflict because they return conflicting types \"String\" and \"Int\". Use different aliases on the fields to fetch both if this was intentional. (1:27, 1:63)",
            ]),
        ValidationCase(
            "{ catOrDog { ... on Dog { x: barkVolume } ... on Cat { x: name } } }",
            [
                "Fields \"x\" conflict because they return conflicting types \"Int\" and \"String\". Use different aliases on the fields to fetch both if this was intentional. (1:27, 1:56)",
            ]),
        ValidationCase(
            "{ pet { ... on Dog { x: barkVolume } ... on Cat { x: meowsVolume } } }",
            []),
        ValidationCase(
            "{ pet { ... on Dog { x: nickname } ... on Cat { x: meowsVolume } } }",
            [
                "Fields \"x\" conflict because they return conflicting types \"String\" and \"Int\". Use different aliases on the fields to fetch both if this was intentional. (1:22, 1:49)",
            ]),
        ValidationCase(
            "{ human { relatives { name } } human { relatives: pets { name } } }",
            [
                "Fields \"human\" conflict because subfields \"relatives\" conflict because \"relatives\" and \"pets\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:11, 1:32, 1:40)",
            ]),
        ValidationCase(
            "{ dog { name } dog: cat { name } }",
            [
                "Fields \"dog\" conflict because \"dog\" and \"cat\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:16)",
            ]),
        ValidationCase(
            "{ dog { __typename x: __typename } dog { x: name } }",
            [
                "Fields \"dog\" conflict because subfields \"x\" conflict because \"__typename\" and \"name\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:20, 1:36, 1:42)",
            ]),
        ValidationCase(
            "{ a: __typename a: __typename b: __schema { queryType { name } } b: __schema { mutationType { name } } }",
            []),
        ValidationCase(
            "{ human { pets { ... on Dog { name } } } human { pets: relatives { name } } }",
            [
                "Fields \"human\" conflict because subfields \"pets\" conflict because \"pets\" and \"relatives\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 1:11, 1:42, 1:50)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: OverlappingFieldsCanBeMergedRule.self)
    }
}
