import Testing

@testable import GraphQL

/// parse → print → parse gives the same tree, and printing is a fixed point
/// (graphql-rust/graphql-parser's round-trip tests), over every fixture document
/// and every valid document of the parser table.
@Suite struct RoundTripTests {
    @Test(arguments: fixtureDocuments())
    func fixtureRoundTrips(_ name: String) throws {
        try checkRoundTrip(try fixture(name))
    }

    @Test(arguments: ParserTable.valid + ParserTable.draft)
    func tableRoundTrips(_ c: ValidCase) throws {
        try checkRoundTrip(c.text)
    }

    @Test(arguments: LexerTable.valid.filter { $0.tokens.count == 1 && [.string, .blockString, .int, .float].contains($0.tokens[0].0) })
    func valueTokensRoundTrip(_ c: LexCase) throws {
        try checkRoundTrip("{ f(a: " + c.text + ") }")
    }

    @Test func fixturesArePresent() {
        #expect(fixtureDocuments() == [
            "draft-descriptions.graphql", "golden-schema.graphql", "kitchen-sink.graphql", "schema-kitchen-sink.graphql",
        ])
    }

    private func checkRoundTrip(_ text: String) throws {
        let ast = try parse(Source(text), options: .trusted)
        let printed = print(ast)
        let reparsed = try parse(Source(printed), options: .trusted)
        #expect(reparsed == ast)
        #expect(print(reparsed) == printed)
    }
}
