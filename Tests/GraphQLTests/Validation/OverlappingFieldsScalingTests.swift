@testable import GraphQL
import Testing

/// OverlappingFieldsCanBeMerged must stay polynomial: graphql-js memoises compared
/// fragment pairs and caches field maps; without that these documents take
/// exponential time. The time limit is a safety net, not a benchmark.
@Suite(.timeLimit(.minutes(1)))
struct OverlappingFieldsScalingTests {
    /// Forty fragments, each spreading every later one (twice), under two fields.
    static func interlinkedFragments(count: Int) -> String {
        var text = "{ dog { ...F0 } dog { ...F0 ...F1 } }\n"
        for i in 0..<count {
            let spreads = ((i + 1)..<count).map { "...F\($0) ...F\($0)" }.joined(separator: " ")
            text += "fragment F\(i) on Dog { name barks x\(i): nickname mother { name } \(spreads) }\n"
        }
        return text
    }

    @Test func manyFragmentsSpreadingEachOther() throws {
        let source = Source(Self.interlinkedFragments(count: 40))
        let document = try parse(source, options: ParseOptions(maxTokens: nil))
        let errors = validate(schema: ValidationHarness.schema, document: document, source: source)
        #expect(errors.isEmpty)
    }

    @Test func conflictsAreStillFoundAcrossManyFragments() throws {
        var text = Self.interlinkedFragments(count: 30)
        text += "fragment Late on Dog { x0: barks }\n"
        text = text.replacingOccurrences(of: "{ dog { ...F0 } dog", with: "{ dog { ...F0 ...Late } dog")
        let source = Source(text)
        let document = try parse(source, options: ParseOptions(maxTokens: nil))
        let errors = validate(schema: ValidationHarness.schema, document: document, source: source, rules: NoRules.Then<OverlappingFieldsCanBeMergedRule>.self)
        // As in graphql-js (checked with graphql-core): the fragment pair F0/Late is
        // compared once, at the root, so the conflict inside the first `dog` is not repeated.
        #expect(errors.map(\.description) == [
            "Fields \"dog\" conflict because subfields \"x0\" conflict because \"barks\" and \"nickname\" are different fields. Use different aliases on the fields to fetch both if this was intentional. (1:3, 32:24, 1:25, 2:33)"
        ])
    }

    @Test func thousandRepeatedFields() throws {
        let fields = Array(repeating: "name", count: 1000).joined(separator: " ")
        let source = Source("{ dog { \(fields) } dog { ... on Dog { \(fields) } } }")
        let document = try parse(source, options: ParseOptions(maxTokens: nil))
        #expect(validate(schema: ValidationHarness.schema, document: document, source: source).isEmpty)
    }

    @Test func thousandRepeatedConflictingFieldsStopAtTheErrorCap() throws {
        let fields = (0..<1000).map { $0 % 2 == 0 ? "a: name" : "a: nickname" }.joined(separator: " ")
        let source = Source("{ dog { \(fields) } }")
        let document = try parse(source, options: ParseOptions(maxTokens: nil))
        let errors = validate(schema: ValidationHarness.schema, document: document, source: source)
        #expect(errors.count == 101)
        #expect(errors.last?.message == "Too many validation errors, error limit reached. Validation aborted.")
    }
}
