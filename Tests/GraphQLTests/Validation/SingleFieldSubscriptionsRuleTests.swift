@testable import GraphQL
import Testing

/// Spec §5.2.3.1 Single Root Field.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct SingleFieldSubscriptionsRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "subscription ImportantEmails { importantEmails }",
            []),
        ValidationCase(
            "subscription ImportantEmails { importantEmails @skip(if: true) notImportantEmails }",
            []),
        ValidationCase(
            "subscription sub { ...newMessageFields } fragment newMessageFields on SubscriptionRoot { newMessage { body sender } }",
            []),
        ValidationCase(
            "subscription ImportantEmails { importantEmails notImportantEmails }",
            [
                "Subscription \"ImportantEmails\" must select only one top level field. (1:48)",
            ]),
        ValidationCase(
            "subscription ImportantEmails { importantEmails __typename }",
            [
                "Subscription \"ImportantEmails\" must select only one top level field. (1:48)",
                "Subscription \"ImportantEmails\" must not select an introspection top level field. (1:48)",
            ]),
        ValidationCase(
            "subscription ImportantEmails { importantEmails notImportantEmails spamEmails: moreImportantEmails }",
            [
                "Subscription \"ImportantEmails\" must select only one top level field. (1:48, 1:67)",
            ]),
        ValidationCase(
            "subscription { importantEmails notImportantEmails }",
            [
                "Anonymous Subscription must select only one top level field. (1:32)",
            ]),
        ValidationCase(
            "subscription ImportantEmails { __typename }",
            [
                "Subscription \"ImportantEmails\" must not select an introspection top level field. (1:32)",
            ]),
        ValidationCase(
            "subscription { ... on SubscriptionRoot { importantEmails } ...F } fragment F on SubscriptionRoot { notImportantEmails }",
            [
                "Anonymous Subscription must select only one top level field. (1:100)",
            ]),
        ValidationCase(
            "subscription { importantEmails importantEmails }",
            []),
        ValidationCase(
            "subscription { a: importantEmails a: notImportantEmails __schema { queryType { name } } }",
            [
                "Anonymous Subscription must select only one top level field. (1:57)",
                "Anonymous Subscription must not select an introspection top level field. (1:57)",
            ]),
        ValidationCase(
            "query Foo { dog { name } } mutation Bar { renameDog(name: \"x\") { name } }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: SingleFieldSubscriptionsRule.self)
    }
}
