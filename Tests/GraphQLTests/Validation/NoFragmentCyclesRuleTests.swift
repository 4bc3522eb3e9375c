@testable import GraphQL
import Testing

/// Spec §5.5.2.2 Fragment Spreads Must Not Form Cycles.
/// Expected messages and locations come from graphql-core 3.2.8 (graphql-js 16).
struct NoFragmentCyclesRuleTests {
    static let cases: [ValidationCase] = [
        ValidationCase(
            "fragment fragA on Dog { ...fragB } fragment fragB on Dog { name }",
            []),
        ValidationCase(
            "fragment fragA on Dog { ...fragB, ...fragB } fragment fragB on Dog { name }",
            []),
        ValidationCase(
            "fragment fragA on Dog { ...fragB, ...fragC } fragment fragB on Dog { ...fragC } fragment fragC on Dog { name }",
            []),
        ValidationCase(
            "fragment nameFragment on Pet { ... on Dog { name } ... on Cat { name } } fragment spreadsInAnon on Pet { ... on Dog { ...nameFragment } ... on Cat { ...nameFragment } }",
            []),
        ValidationCase(
            "fragment fragA on Human { relatives { ...fragA } }",
            [
                "Cannot spread fragment \"fragA\" within itself. (1:39)",
            ]),
        ValidationCase(
            "fragment fragA on Dog { ...fragA }",
            [
                "Cannot spread fragment \"fragA\" within itself. (1:25)",
            ]),
        ValidationCase(
            "fragment fragA on Pet { ... on Dog { ...fragA } }",
            [
                "Cannot spread fragment \"fragA\" within itself. (1:38)",
            ]),
        ValidationCase(
            "fragment fragA on Dog { ...fragB } fragment fragB on Dog { ...fragA }",
            [
                "Cannot spread fragment \"fragA\" within itself via \"fragB\". (1:25, 1:60)",
            ]),
        ValidationCase(
            "fragment fragB on Dog { ...fragA } fragment fragA on Dog { ...fragB }",
            [
                "Cannot spread fragment \"fragB\" within itself via \"fragA\". (1:25, 1:60)",
            ]),
        ValidationCase(
            "fragment fragA on Pet { ... on Dog { ...fragB } } fragment fragB on Pet { ... on Dog { ...fragA } }",
            [
                "Cannot spread fragment \"fragA\" within itself via \"fragB\". (1:38, 1:88)",
            ]),
        ValidationCase(
            "fragment fragA on Dog { ...fragB } fragment fragB on Dog { ...fragC } fragment fragC on Dog { ...fragO } fragment fragX on Dog { ...fragY } fragment fragY on Dog { ...fragZ } fragment fragZ on Dog { ...fragO } fragment fragO on Dog { ...fragP } fragment fragP on Dog { ...fragA, ...fragX }",
            [
                "Cannot spread fragment \"fragA\" within itself via \"fragB\", \"fragC\", \"fragO\", \"fragP\". (1:25, 1:60, 1:95, 1:235, 1:270)",
                "Cannot spread fragment \"fragO\" within itself via \"fragP\", \"fragX\", \"fragY\", \"fragZ\". (1:235, 1:280, 1:130, 1:165, 1:200)",
            ]),
        ValidationCase(
            "fragment fragA on Dog { ...fragB, ...fragC } fragment fragB on Dog { ...fragA } fragment fragC on Dog { ...fragA }",
            [
                "Cannot spread fragment \"fragA\" within itself via \"fragB\". (1:25, 1:70)",
                "Cannot spread fragment \"fragA\" within itself via \"fragC\". (1:35, 1:105)",
            ]),
        ValidationCase(
            "fragment fragA on Dog { ...fragC } fragment fragB on Dog { ...fragC } fragment fragC on Dog { ...fragA, ...fragB }",
            [
                "Cannot spread fragment \"fragA\" within itself via \"fragC\". (1:25, 1:95)",
                "Cannot spread fragment \"fragC\" within itself via \"fragB\". (1:105, 1:60)",
            ]),
        ValidationCase(
            "fragment fragA on Dog { ...fragB } fragment fragB on Dog { ...fragB, ...fragC } fragment fragC on Dog { ...fragA, ...fragB }",
            [
                "Cannot spread fragment \"fragB\" within itself. (1:60)",
                "Cannot spread fragment \"fragA\" within itself via \"fragB\", \"fragC\". (1:25, 1:70, 1:105)",
                "Cannot spread fragment \"fragB\" within itself via \"fragC\". (1:70, 1:115)",
            ]),
        ValidationCase(
            "fragment fragA on Dog { ...unknown }",
            []),
    ]

    @Test(arguments: cases)
    func validates(_ testCase: ValidationCase) {
        expectValidation(testCase, rule: NoFragmentCyclesRule.self)
    }
}
