@testable import GraphQL
import Testing

/// `checkLimits`: depth through fragments (cycle-safe), aliases per document, root
/// fields per operation, each configurable; the standard introspection query passes
/// the defaults.
struct QueryLimitsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let document: String
        let operationName: String?
        let limits: QueryLimits
        let errors: [String]
        var testDescription: String { document }
    }

    static let cases: [Case] = [
        Case(document: "{ a { b { c } } }", operationName: nil, limits: QueryLimits(maxDepth: 3), errors: []),
        Case(
            document: "{ a { b { c { d } } } }", operationName: nil, limits: QueryLimits(maxDepth: 3),
            errors: [
                "Query is too deep: the anonymous operation nests fields 4 levels deep; the maximum depth is 3. (1:15)"
            ]),
        Case(
            document: "query Deep { a { ...F } }\nfragment F on T { b { ... on T { c { d } } } }",
            operationName: nil, limits: QueryLimits(maxDepth: 3),
            errors: ["Query is too deep: operation \"Deep\" nests fields 4 levels deep; the maximum depth is 3. (2:38)"]),
        Case(
            document: "query A { a { b { c { d } } } }\nquery B { a }", operationName: "B",
            limits: QueryLimits(maxDepth: 3), errors: []),
        Case(
            document: "query A { x { ...F } }\nfragment F on T { a { ...G } }\nfragment G on T { b { ...F } }",
            operationName: nil, limits: QueryLimits(maxDepth: 2),
            errors: ["Query is too deep: operation \"A\" nests fields 3 levels deep; the maximum depth is 2. (3:19)"]),
        Case(
            document: "{ a: f b: f c: f }", operationName: nil, limits: QueryLimits(maxAliases: 3), errors: []),
        Case(
            document: "{ a: f b: f ...F }\nfragment F on Q { c: f d: f { e: g } }", operationName: nil,
            limits: QueryLimits(maxAliases: 3),
            errors: ["Query uses too many aliases: the document has 5 aliases; the maximum is 3. (2:24)"]),
        Case(
            document: "{ a b ... { c } ...F ...F }\nfragment F on Q { d }", operationName: nil,
            limits: QueryLimits(maxRootFields: 4), errors: []),
        Case(
            document: "query Wide { a b ... { c } ...F }\nfragment F on Q { d e }", operationName: nil,
            limits: QueryLimits(maxRootFields: 4),
            errors: [
                "Query selects too many root fields: operation \"Wide\" selects 5 root fields; the maximum is 4. (1:1)"
            ]),
        Case(
            document: "query Both { a: x { b: y { c } } d e }", operationName: nil,
            limits: QueryLimits(maxDepth: 2, maxAliases: 1, maxRootFields: 2),
            errors: [
                "Query is too deep: operation \"Both\" nests fields 3 levels deep; the maximum depth is 2. (1:28)",
                "Query selects too many root fields: operation \"Both\" selects 3 root fields; the maximum is 2. (1:1)",
                "Query uses too many aliases: the document has 2 aliases; the maximum is 1. (1:21)",
            ]),
        // A fragment spread at two depths is measured once; the deeper spread counts.
        Case(
            document: "{ a { ...F } b { c { ...F } } }\nfragment F on T { d { e } }", operationName: nil,
            limits: QueryLimits(maxDepth: 3),
            errors: [
                "Query is too deep: the anonymous operation nests fields 4 levels deep; the maximum depth is 3. (2:23)"
            ]),
        // A fragment spreading itself (rejected by validation, which checkLimits may not follow).
        Case(
            document: "query Q { a { ...F } }\nfragment F on T { b { ...F } }", operationName: nil,
            limits: QueryLimits(maxDepth: 1),
            errors: ["Query is too deep: operation \"Q\" nests fields 2 levels deep; the maximum depth is 1. (2:19)"]),
        // Aliases of operations not selected and of fragments never spread count too.
        Case(
            document: "query A { x: f }\nquery B { y: f }\nfragment U on Q { z: f }", operationName: "A",
            limits: QueryLimits(maxAliases: 2),
            errors: ["Query uses too many aliases: the document has 3 aliases; the maximum is 2. (3:19)"]),
    ]

    @Test(arguments: cases)
    func limits(_ testCase: Case) throws {
        let source = Source(testCase.document)
        let errors = checkLimits(
            try parse(source), operationName: testCase.operationName, limits: testCase.limits, source: source)
        #expect(errors.map(\.description) == testCase.errors)
    }

    @Test func introspectionQueryPassesTheDefaults() throws {
        let source = Source(standardIntrospectionQuery)
        let document = try parse(source)
        #expect(checkLimits(document, operationName: "IntrospectionQuery", source: source).isEmpty)
        #expect(checkLimits(document, operationName: nil, source: source).isEmpty)
        // It is deep enough that a tight limit catches it: the TypeRef fragment nests ofType.
        let tight = checkLimits(document, operationName: nil, limits: QueryLimits(maxDepth: 10), source: source)
        #expect(tight.count == 1)
        #expect(tight.first?.message.hasPrefix("Query is too deep: operation \"IntrospectionQuery\" nests fields") == true)
    }

    /// Past eight fragments they are looked up by a table rather than searched: the same answers.
    @Test func chainOfTwelveFragments() throws {
        var text = "query Chain { ...F0 }\n"
        for i in 0..<12 {
            text += "fragment F\(i) on Q { f\(i) { \(i + 1 < 12 ? "...F\(i + 1)" : "leaf") } g\(i): f }\n"
        }
        let source = Source(text)
        let limits = QueryLimits(maxDepth: 12, maxAliases: 11)
        let errors = checkLimits(try parse(source), operationName: nil, limits: limits, source: source)
        #expect(errors.map(\.description) == [
            "Query is too deep: operation \"Chain\" nests fields 13 levels deep; the maximum depth is 12. (13:27)",
            "Query uses too many aliases: the document has 12 aliases; the maximum is 11. (13:34)",
        ])
    }

    @Test func manyFragmentsSpreadingEachOtherAreMeasuredQuickly() throws {
        var text = "{ ...F0 }\n"
        for i in 0..<60 {
            let next = i + 1 < 60 ? "...F\(i + 1) ...F\(i + 1)" : "leaf"
            text += "fragment F\(i) on Q { f\(i) { \(next) } \(i + 1 < 60 ? "...F\(i + 1)" : "") }\n"
        }
        let source = Source(text)
        let errors = checkLimits(try parse(source, options: ParseOptions(maxTokens: nil)), operationName: nil, source: source)
        #expect(errors.map(\.message) == [
            "Query is too deep: the anonymous operation nests fields 61 levels deep; the maximum depth is 20.",
            "Query selects too many root fields: the anonymous operation selects 60 root fields; the maximum is 20.",
        ])
    }
}
