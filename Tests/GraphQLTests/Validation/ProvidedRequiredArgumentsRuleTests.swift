@testable import GraphQL
import Testing

/// Spec §5.4.2.1 Required Arguments.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct ProvidedRequiredArgumentsRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "{ dog { isHouseTrained(unknownArgument: true) } }",
            []),
        ValidationCase(
            "{ dog { isHouseTrained(atOtherHomes: true) } }",
            []),
        ValidationCase(
            "{ dog { isHouseTrained } }",
            []),
        ValidationCase(
            "{ complicatedArgs { multipleOpts } }",
            []),
        ValidationCase(
            "{ complicatedArgs { multipleReqs(req1: 1, req2: 2) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { multipleOptAndReq(req1: 1, req2: 2, opt1: 1) } }",
            []),
        ValidationCase(
            "{ complicatedArgs { nonNullFieldWithDefault } }",
            []),
        ValidationCase(
            "{ complicatedArgs { multipleReqs(req2: 2) } }",
            [
                "Field \"multipleReqs\" argument \"req1\" of type \"Int!\" is required, but it was not provided. (1:21)",
            ]),
        ValidationCase(
            "{ complicatedArgs { multipleReqs } }",
            [
                "Field \"multipleReqs\" argument \"req1\" of type \"Int!\" is required, but it was not provided. (1:21)",
                "Field \"multipleReqs\" argument \"req2\" of type \"Int!\" is required, but it was not provided. (1:21)",
            ]),
        ValidationCase(
            "{ complicatedArgs { multipleReqs(req1: \"one\") } }",
            [
                "Field \"multipleReqs\" argument \"req2\" of type \"Int!\" is required, but it was not provided. (1:21)",
            ]),
        ValidationCase(
            "{ dog @unknownDirective { name } }",
            []),
        ValidationCase(
            "{ dog @include(if: true) { name } human @skip(if: false) { name } }",
            []),
        ValidationCase(
            "{ dog @include { name @skip } }",
            [
                "Directive \"@include\" argument \"if\" of type \"Boolean!\" is required, but it was not provided. (1:7)",
                "Directive \"@skip\" argument \"if\" of type \"Boolean!\" is required, but it was not provided. (1:23)",
            ]),
        ValidationCase(
            "{ dog @withArgs { name @withArgs(req: 1) } }",
            [
                "Directive \"@withArgs\" argument \"req\" of type \"Int!\" is required, but it was not provided. (1:7)",
            ]),
        ValidationCase(
            "{ __type { name } }",
            [
                "Field \"__type\" argument \"name\" of type \"String!\" is required, but it was not provided. (1:3)",
            ]),
        ValidationCase(
            """
            directive @sdl(a: Int!, b: Int! = 1, c: String) on FIELD
            { dog @sdl { name } }
            """,
            [
                "Directive \"@sdl\" argument \"a\" of type \"Int!\" is required, but it was not provided. (2:7)",
            ]),
        ValidationCase(
            "{ complicatedArgs { multipleReqs @include { nonNullIntArgField } } }",
            [
                "Directive \"@include\" argument \"if\" of type \"Boolean!\" is required, but it was not provided. (1:34)",
                "Field \"multipleReqs\" argument \"req1\" of type \"Int!\" is required, but it was not provided. (1:21)",
                "Field \"multipleReqs\" argument \"req2\" of type \"Int!\" is required, but it was not provided. (1:21)",
            ]),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: ProvidedRequiredArgumentsRule.self)
    }
}
