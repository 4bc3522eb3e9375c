import GraphQL

/// lexer-parser: arbitrary bytes (invalid UTF-8 included) through the lexer and
/// parser with the default ParseOptions; a document that parses must print to text
/// that parses again (with the same options) to an equal AST.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let source = Source(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    let document: Document
    do {
        document = try parse(source)
    } catch {
        _ = error.message  // errors carry a located message; building it must not trap
        return 0
    }
    let printed = print(document)
    let reparsed: Document
    do {
        reparsed = try parse(Source(printed))
    } catch {
        fatalError("print(document) does not parse: \(error.message)\n--- printed ---\n\(printed)\n---")
    }
    if reparsed != document {
        fatalError("parse(print(document)) != document\n--- printed ---\n\(printed)\n--- reprinted ---\n\(print(reparsed))\n---")
    }
    return 0
}
