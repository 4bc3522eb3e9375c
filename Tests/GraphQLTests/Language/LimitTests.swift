import Testing

@testable import GraphQL

/// DoS caps (graphql-js's maxTokens, plus a nesting limit graphql-js lacks) and
/// hostile inputs: each must fail or succeed quickly, without overflowing the stack.
@Suite struct LimitTests {
    /// `{ a a … a }` has n + 2 tokens.
    private func fields(_ n: Int) -> String { "{" + String(repeating: " a", count: n) + " }" }

    @Test func tokenLimitBoundary() throws {
        let options = ParseOptions(maxTokens: 10, maxDepth: 128)
        _ = try parse(Source(fields(8)), options: options)  // exactly 10 tokens
        let error = try #require(syntaxError { () throws(GraphQLError) in try parse(Source(fields(9)), options: options) })
        #expect(error.message == "Syntax Error: Document contains more than 10 tokens. Parsing aborted.")
        #expect(error.locations == [SourceLocation(line: 1, column: 21)])  // the 11th token, the closing brace
    }

    @Test func defaultTokenLimitIsTenThousand() throws {
        _ = try parse(fields(9_998))
        let error = try #require(syntaxError { () throws(GraphQLError) in try parse(fields(9_999)) })
        #expect(error.message == "Syntax Error: Document contains more than 10000 tokens. Parsing aborted.")
        _ = try parse(Source(fields(20_000)), options: .trusted)
    }

    enum Nesting: String, CaseIterable, Sendable {
        case selectionSets, listValues, objectValues, listTypes

        /// A document nesting the production `depth` levels deep (counting the
        /// operation's own selection set for values).
        func document(_ depth: Int) -> String {
            func repeated(_ s: String, _ n: Int) -> String { String(repeating: s, count: n) }
            switch self {
            case .selectionSets: return repeated("{ a ", depth - 1) + "{ a }" + repeated(" }", depth - 1)
            case .listValues: return "{ f(a: " + repeated("[", depth - 1) + "1" + repeated("]", depth - 1) + ") }"
            case .objectValues: return "{ f(a: " + repeated("{b: ", depth - 1) + "1" + repeated("}", depth - 1) + ") }"
            case .listTypes: return "query ($v: " + repeated("[", depth) + "Int" + repeated("]", depth) + ") { a }"
            }
        }
    }

    @Test(arguments: Nesting.allCases)
    func depthLimit(_ nesting: Nesting) throws {
        let options = ParseOptions(maxTokens: nil, maxDepth: 5)
        let limit = 5
        _ = try parse(Source(nesting.document(limit)), options: options)
        let error = try #require(syntaxError { () throws(GraphQLError) in try parse(Source(nesting.document(limit + 1)), options: options) })
        #expect(error.message == "Syntax Error: Document exceeds the maximum nesting depth of 5.")
    }

    @Test func hundredThousandNestedBrackets() throws {
        for text in [
            "{ f(a: " + String(repeating: "[", count: 100_000) + " }",
            "query ($v: " + String(repeating: "[", count: 100_000),
            String(repeating: "[", count: 100_000),
        ] {
            let error = try #require(syntaxError { () throws(GraphQLError) in try parse(Source(text), options: .trusted) })
            #expect(error.message.hasPrefix("Syntax Error: "))
        }
        let error = syntaxError { () throws(GraphQLError) in try parse("{ f(a: " + String(repeating: "[", count: 100_000) + " }") }
        #expect(error?.message == "Syntax Error: Document exceeds the maximum nesting depth of 128.")
    }

    @Test func megabyteOfBraces() throws {
        let text = String(repeating: "{", count: 1 << 20)
        let error = syntaxError { () throws(GraphQLError) in try parse(Source(text), options: ParseOptions(maxTokens: nil)) }
        #expect(error?.message == "Syntax Error: Expected Name, found \"{\".")
        let objects = "{ f(a: " + String(repeating: "{a:", count: 1 << 18) + " }"
        let deep = syntaxError { () throws(GraphQLError) in try parse(Source(objects), options: ParseOptions(maxTokens: nil)) }
        #expect(deep?.message == "Syntax Error: Document exceeds the maximum nesting depth of 128.")
    }

    @Test func tenMegabyteString() throws {
        let length = 10 << 20
        let document = try parse("{ f(a: \"" + String(repeating: "x", count: length) + "\") }")
        guard case .operation(let operation) = document.definitions[0], case .field(let field) = operation.selectionSet.selections[0],
            case .string(let value, block: false) = field.arguments[0].value.kind
        else {
            Issue.record("unexpected tree")
            return
        }
        #expect(value.utf8.count == length)
        let block = try parseValue(Source("\"\"\"" + String(repeating: "y", count: length) + "\"\"\""))
        if case .string(let value, block: true) = block.kind { #expect(value.utf8.count == length) } else { Issue.record("not a block string") }
        let escaped = try parseValue(Source("\"" + String(repeating: "\\n", count: 1 << 20) + "\""))
        #expect(escaped.kind == .string(String(repeating: "\n", count: 1 << 20), block: false))
    }

    @Test func megabyteOfFieldNames() throws {
        let text = "{ " + String(repeating: "a ", count: 1 << 19) + "}"
        let error = try #require(syntaxError { () throws(GraphQLError) in try parse(text) })
        #expect(error.message == "Syntax Error: Document contains more than 10000 tokens. Parsing aborted.")
        #expect(error.locations == [SourceLocation(line: 1, column: 20_001)])
        // Without a token limit the same document parses, in linear time.
        let document = try parse(Source(text), options: .trusted)
        if case .operation(let operation) = document.definitions[0] { #expect(operation.selectionSet.selections.count == 1 << 19) }
    }

    @Test func megabyteOfComments() throws {
        let text = String(repeating: "# comment\n", count: 100_000) + "{ a }"
        #expect(try parse(text).definitions.count == 1)
        let error = syntaxError { () throws(GraphQLError) in try parse(text + " ?") }
        #expect(error?.locations == [SourceLocation(line: 100_001, column: 7)])
    }
}
