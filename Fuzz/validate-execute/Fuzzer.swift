import GraphQL
import JSON

/// validate-execute: the input is a GraphQL document, optionally followed by a NUL
/// byte and JSON variables. A document that parses is validated against the repo's
/// schema and checked against the default QueryLimits; a valid one is executed
/// (each named operation, and once without a name) on the stub resolvers, and every
/// result (and every error list) must serialize to valid JSON.
let executable = StubSchema.make(Void.self)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? size
    let source = Source(bytes: Array(bytes[..<split]))
    var variables: JSONObject = [:]
    if split < size, case .object(let object)? = try? JSONParser().parse(bytes[(split + 1)...]) {
        variables = object
    }
    guard let document = try? parse(source) else { return 0 }

    var errors = validate(schema: executable.schema, document: document, source: source)
    if errors.isEmpty { errors = checkLimits(document, operationName: nil, source: source) }
    if !errors.isEmpty {
        check(ExecutionResult(data: nil, errors: errors), "request errors")
        return 0
    }
    var names: [String?] = [nil]
    for case .operation(let operation) in document.definitions {
        if let name = operation.name?.value { names.append(name) }
    }
    for name in names.prefix(5) {
        let result = executable.execute(
            document: document, source: source, operationName: name, variables: variables, context: ())
        check(result, "operation \(name ?? "(none)")")
    }
    return 0
}

/// The result must serialize to JSON that parses back to the same value.
func check(_ result: ExecutionResult, _ label: String) {
    let json = result.json
    let text = json.serialized()
    guard let reparsed = try? JSONParser(maxDepth: 100_000).parse(text) else {
        fatalError("\(label): the serialized result is not valid JSON:\n\(String(decoding: text, as: UTF8.self))")
    }
    if reparsed != json {
        fatalError("\(label): the serialized result does not parse back to itself:\n\(String(decoding: text, as: UTF8.self))")
    }
}
