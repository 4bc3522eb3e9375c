@testable import GraphQL
import Testing

/// Spec §5.7.1 Directives Are Defined, §5.7.2 Directives Are in Valid Locations.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct KnownDirectivesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "query Foo { name ...Frag } fragment Frag on Dog { name }",
            []),
        ValidationCase(
            "{ dog @include(if: true) { name } human @skip(if: false) { name } }",
            []),
        ValidationCase(
            "{ dog @unknown(directive: \"value\") { name } }",
            [
                "Unknown directive \"@unknown\". (1:7)",
            ]),
        ValidationCase(
            "{ dog @unknown(directive: \"value\") { name } human @unknown(directive: \"value\") { name pets @unknown(directive: \"value\") { name } } }",
            [
                "Unknown directive \"@unknown\". (1:7)",
                "Unknown directive \"@unknown\". (1:51)",
                "Unknown directive \"@unknown\". (1:92)",
            ]),
        ValidationCase(
            "query ($var: Boolean @onVariableDefinition) @onQuery { name @include(if: $var) ...Frag @include(if: true) skippedField @skip(if: true) ...SkippedFrag @skip(if: true) ... @skip(if: true) { skippedField } } mutation @onMutation { someField } subscription @onSubscription { someField } fragment Frag on SomeType @onFragmentDefinition { someField }",
            []),
        ValidationCase(
            "query ($var: Boolean @onQuery) @onMutation { name @onQuery @include(if: $var) ...Frag @onQuery ... @onFragmentSpread { name } } mutation @onQuery { someField } subscription @onQuery { someField @onSubscription } fragment Frag on SomeType @onQuery { someField @onFragmentDefinition }",
            [
                "Directive \"@onQuery\" may not be used on VARIABLE_DEFINITION. (1:22)",
                "Directive \"@onMutation\" may not be used on QUERY. (1:32)",
                "Directive \"@onQuery\" may not be used on FIELD. (1:51)",
                "Directive \"@onQuery\" may not be used on FRAGMENT_SPREAD. (1:87)",
                "Directive \"@onFragmentSpread\" may not be used on INLINE_FRAGMENT. (1:100)",
                "Directive \"@onQuery\" may not be used on MUTATION. (1:138)",
                "Directive \"@onQuery\" may not be used on SUBSCRIPTION. (1:174)",
                "Directive \"@onSubscription\" may not be used on FIELD. (1:195)",
                "Directive \"@onQuery\" may not be used on FRAGMENT_DEFINITION. (1:239)",
                "Directive \"@onFragmentDefinition\" may not be used on FIELD. (1:260)",
            ]),
        ValidationCase(
            "{ dog @repeatable @repeatable { name } }",
            []),
        ValidationCase(
            """
            directive @sdl on FIELD
            { dog @sdl { name } }
            """,
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: KnownDirectivesRule.self)
    }
}
