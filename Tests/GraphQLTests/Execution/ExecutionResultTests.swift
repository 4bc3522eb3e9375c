import GraphQL
import Testing

/// The response written straight to bytes is the response map serialized.
@Suite struct ExecutionResultTests {
    @Test(arguments: [
        ExecutionResult(data: ["health": true]),
        ExecutionResult(data: .null, errors: [GraphQLError("boom", path: [.key("a"), .index(1)])]),
        ExecutionResult(data: nil, errors: [GraphQLError("bad"), GraphQLError("worse", locations: [SourceLocation(line: 1, column: 2)])]),
        ExecutionResult(data: ["a": ["b": "\u{1}\"x"]], errors: [GraphQLError("partial")]),
        ExecutionResult(data: nil),
    ])
    func writtenEqualsSerialized(_ result: ExecutionResult) {
        var written: [UInt8] = []
        result.write(to: &written)
        #expect(written == result.json.serialized())
    }
}
