import Testing

@testable import GraphQL

/// Inputs found by the fuzzers (Fuzz/README.md), each the exact crashing input, kept
/// so the bug cannot come back unnoticed.
@Suite struct FuzzRegressionTests {
    /// validate-execute, 2026-12-01: a stack overflow in OverlappingFieldsCanBeMergedRule.
    /// `FullType` spreads itself inside its `types` field, next to another `types`
    /// field; comparing the fragment's fields with that sub-selection expanded the
    /// fragment again, without end (now: a comparison is re-entered at most once).
    static let selfSpreadingFragment = """
        query IntrospectionQuery { __schema { queryType { name } mutatioType } directives { name description location{ name } mutationTyfe { name } subscriptionType { nae descriptis args { ...InputValue } } } }
        fragment FullType on __Type { kind name description fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } inputFields { ...InputValue } mnterfaces { ...TyDeprecated deprected deprecationReasoj } possibleTypes { ...TypeRef } nTyfe { name } subscriptionType { name } types { ...FullType bscriptionType { name } types { ...FullType } directives { name descriptis args { ...InputValue } enemValues(includeDeprecated: true) { kn indame } } } }
        """

    @Test func selfSpreadingFragmentDoesNotOverflowTheStack() throws {
        let source = Source(Self.selfSpreadingFragment)
        let document = try parse(source)
        let errors = validate(schema: ValidationHarness.schema, document: document, source: source)
        #expect(errors.contains { $0.message.hasPrefix("Cannot spread fragment \"FullType\" within itself") })
    }

    /// The smallest form of the same cycle, on the validation harness schema.
    @Test func cyclicFragmentInsideSameFieldIsReportedOnce() throws {
        let text = "{ dog { ...F } } fragment F on Dog { mother { ...F mother { name } } }"
        let source = Source(text)
        let errors = validate(schema: ValidationHarness.schema, document: try parse(source), source: source)
        #expect(errors.map(\.message) == ["Cannot spread fragment \"F\" within itself."])
    }
}
