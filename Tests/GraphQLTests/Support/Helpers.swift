import Foundation
import Testing

@testable import GraphQL

/// Every token of `source` up to (not including) the end of file.
func lexAll(_ source: Source) throws(GraphQLError) -> [Token] {
    let result: Result<[Token], GraphQLError> = source.bytes.withUnsafeBufferPointer { buffer in
        var lexer = Lexer(source: source, bytes: buffer)
        return Result { () throws(GraphQLError) -> [Token] in
            var tokens: [Token] = []
            while true {
                try lexer.advance()
                let token = lexer.token
                if token.kind == .endOfFile { return tokens }
                tokens.append(token)
            }
        }
    }
    return try result.get()
}

/// The error `body` throws, or nil when it succeeds.
func syntaxError<T>(_ body: () throws(GraphQLError) -> T) -> GraphQLError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The text of a file in `Fixtures/`.
func fixture(_ name: String) throws -> String {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil))
    return try String(contentsOf: url, encoding: .utf8)
}

/// The names of every `.graphql` document in `Fixtures/` that is an input (not an expected output).
func fixtureDocuments() -> [String] {
    guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil),
        let names = try? FileManager.default.contentsOfDirectory(atPath: url.path)
    else { return [] }
    return names.filter { $0.hasSuffix(".graphql") && !$0.contains(".printed.") }.sorted()
}

/// A short, readable label for a case whose input is source text.
func label(_ text: String) -> String {
    let shown = text.count > 60 ? String(text.prefix(57)) + "…" : text
    return shown.debugDescription
}

/// A document that must fail to lex or parse, with graphql-js's message and location.
struct SyntaxErrorCase: Sendable, CustomTestStringConvertible {
    let text: String
    let message: String
    let line: Int
    let column: Int
    init(_ text: String, _ message: String, _ line: Int, _ column: Int) {
        self.text = text
        self.message = message
        self.line = line
        self.column = column
    }
    var testDescription: String { label(text) }
}
