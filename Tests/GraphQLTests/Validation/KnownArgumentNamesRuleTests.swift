@testable import GraphQL
import Testing

/// Spec §5.4.1 Argument Names.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct KnownArgumentNamesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment argOnRequiredArg on Dog { doesKnowCommand(dogCommand: SIT) }",
            []),
        ValidationCase(
            "fragment multipleArgs on ComplicatedArgs { multipleReqs(req1: 1, req2: 2) }",
            []),
        ValidationCase(
            "fragment argOnUnknownField on Dog { unknownField(unknownArg: SIT) }",
            []),
        ValidationCase(
            "fragment multipleArgsReverseOrder on ComplicatedArgs { multipleReqs(req2: 2, req1: 1) }",
            []),
        ValidationCase(
            "fragment noArgOnOptionalArg on Dog { isHouseTrained }",
            []),
        ValidationCase(
            "fragment argOnOptional on Dog { isHouseTrained(atOtherHomes: true) @include(if: true) }",
            []),
        ValidationCase(
            "{ dog @skip(if: true) { name } }",
            []),
        ValidationCase(
            "{ dog @skip(unless: true) { name } }",
            [
                "Unknown argument \"unless\" on directive \"@skip\". (1:13)",
            ]),
        ValidationCase(
            "{ dog @onField(if: true) { name } }",
            [
                "Unknown argument \"if\" on directive \"@onField\". (1:16)",
            ]),
        ValidationCase(
            "{ dog @skip(iff: true) { name } }",
            [
                "Unknown argument \"iff\" on directive \"@skip\". Did you mean \"if\"? (1:13)",
            ]),
        ValidationCase(
            "fragment invalidArgName on Dog { doesKnowCommand(unknown: true) }",
            [
                "Unknown argument \"unknown\" on field \"Dog.doesKnowCommand\". (1:50)",
            ]),
        ValidationCase(
            "fragment invalidArgName on Dog { doesKnowCommand(DogCommand: true) }",
            [
                "Unknown argument \"DogCommand\" on field \"Dog.doesKnowCommand\". Did you mean \"dogCommand\"? (1:50)",
            ]),
        ValidationCase(
            "fragment oneGoodArgOneInvalidArg on Dog { doesKnowCommand(whoKnows: 1, dogCommand: SIT, unknown: true) }",
            [
                "Unknown argument \"whoKnows\" on field \"Dog.doesKnowCommand\". (1:59)",
                "Unknown argument \"unknown\" on field \"Dog.doesKnowCommand\". (1:89)",
            ]),
        ValidationCase(
            "fragment multipleInvalidArgs on Dog { doesKnowCommand(whoKnows: 1) name(surnam: true) }",
            [
                "Unknown argument \"whoKnows\" on field \"Dog.doesKnowCommand\". (1:55)",
                "Unknown argument \"surnam\" on field \"Dog.name\". Did you mean \"surname\"? (1:73)",
            ]),
        ValidationCase(
            "{ dog { name @skip(iff: true) } }",
            [
                "Unknown argument \"iff\" on directive \"@skip\". Did you mean \"if\"? (1:20)",
            ]),
        ValidationCase(
            "{ __type(name: \"Dog\", nam: \"x\") { name } }",
            [
                "Unknown argument \"nam\" on field \"QueryRoot.__type\". Did you mean \"name\"? (1:23)",
            ]),
        ValidationCase(
            """
            directive @sdl(arg: Int) on FIELD
            { dog @sdl(arg: 1, arh: 2) { name } }
            """,
            [
                "Unknown argument \"arh\" on directive \"@sdl\". Did you mean \"arg\"? (2:20)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: KnownArgumentNamesRule.self)
    }
}
