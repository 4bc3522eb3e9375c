// Conformance runner: reads a JSON-lines corpus on stdin (`{"id", "schema", "query",
// "variables"?, "operationName"?}`) and writes one JSON line per document on stdout:
// `{"id", "parse": "ok" | {message, locations}, "validation": [...], "result": response | null}`.
//
//   ConformanceRunner <conformance dir> <golden-schema.graphql>
//
// Schemas: `zoo` (conformance/zoo.graphql) and `golden` (the engine tests' own schema,
// Tests/GraphQLTests/Fixtures/golden-schema.graphql), both with the stub data of
// conformance/stubs.json; conformance/run.py binds the same resolvers in graphql-core.
import Foundation
import GraphQL
import JSON

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: ConformanceRunner <conformance dir> <golden-schema.graphql>\n".utf8))
    exit(2)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

func read(_ path: String) -> String {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
    return text
}

struct Stub: Error, CustomStringConvertible { let description: String }

/// Upper: serializes strings upper-cased; accepts only strings (the same rules as run.py).
let upper = ScalarCoercion(
    serialize: { (value: ResolvedValue) throws(CoercionError) -> JSON in
        guard case .string(let text) = value else { throw CoercionError("Upper cannot represent a non-string value.") }
        return .string(text.uppercased())
    },
    parseValue: { (json: JSON) throws(CoercionError) -> JSON in
        guard case .string(let text) = json else { throw CoercionError("Upper cannot represent a non-string input.") }
        return .string(text.uppercased())
    },
    parseLiteral: { (literal: Value, _: JSONObject) throws(CoercionError) -> JSON in
        guard case .string(let text, _) = literal.kind else { throw CoercionError("Upper cannot represent a non-string literal.") }
        return .string(text.uppercased())
    })

/// Root fields read the stub data by field name; other object types read JSON parents.
func stubResolvers(_ schema: GraphQLSchema, data: JSONObject) -> Resolvers<Void> {
    var resolvers = Resolvers<Void>()
    let roots = Set([schema.queryType.name, schema.mutationType?.name, schema.subscriptionType?.name].compactMap { $0 })
    for type in schema.types {
        guard case .object(let object) = type, !object.name.hasPrefix("__") else { continue }
        if roots.contains(object.name) {
            for field in object.fields {
                let value = data[field.name] ?? .null
                resolvers.field("\(object.name).\(field.name)") { _, _, _, _ in ResolvedValue(value) }
            }
        } else {
            resolvers.resolveFromJSON(object.name)
        }
    }
    return resolvers
}

let directory = arguments[1]
guard case .object(let stubs)? = try? JSON.parse(read(directory + "/stubs.json")) else { fail("bad stubs.json") }

func makeZoo() throws -> ExecutableSchema<Void> {
    let schema = try GraphQLSchema.build(
        sdl: read(directory + "/zoo.graphql"), sourceName: "zoo.graphql", scalars: ["Upper": upper])
    var resolvers = stubResolvers(schema, data: stubs["zoo"]?.objectValue ?? [:])
    resolvers.field("Query.echo") { _, args, _, _ in .json(.object(args)) }
    resolvers.field("Query.required") { _, args, _, _ in .json(.object(args)) }
    resolvers.field("Query.boom") { _, _, _, _ in throw Stub(description: "boom") }
    resolvers.field("Query.boomNonNull") { _, _, _, _ in throw Stub(description: "boom non-null") }
    resolvers.field("Dog.fail") { _, _, _, _ in throw Stub(description: "dog failed") }
    resolvers.field("Dog.failNonNull") { _, _, _, _ in throw Stub(description: "dog failed hard") }
    resolvers.field("Mutation.failMutation") { _, _, _, _ in throw Stub(description: "mutation failed") }
    return try ExecutableSchema(schema: schema, resolvers: resolvers)
}

func makeGolden() throws -> ExecutableSchema<Void> {
    let schema = try GraphQLSchema.build(sdl: read(arguments[2]), sourceName: "golden-schema.graphql")
    var resolvers = stubResolvers(schema, data: stubs["golden"]?.objectValue ?? [:])
    resolvers.field("Query.echo") { _, args, _, _ in .json(.object(args)) }
    return try ExecutableSchema(schema: schema, resolvers: resolvers)
}

let schemas: [String: ExecutableSchema<Void>]
do {
    schemas = ["zoo": try makeZoo(), "golden": try makeGolden()]
} catch {
    fail("schema: \(error)")
}

func errorJSON(_ error: GraphQLError) -> JSON {
    var object = JSONObject()
    object.appendUnchecked("message", .string(error.message))
    object.appendUnchecked(
        "locations", .array(error.locations.map { .object(["line": .int($0.line), "column": .int($0.column)]) }))
    return .object(object)
}

var output: [UInt8] = []
while let line = readLine(strippingNewline: true) {
    if line.isEmpty { continue }
    guard case .object(let entry)? = try? JSON.parse(line) else { fail("bad corpus line: \(line)") }
    let id = entry["id"] ?? .null
    guard let name = entry["schema"]?.stringValue, let executable = schemas[name] else { fail("unknown schema in \(line)") }
    let query = entry["query"]?.stringValue ?? ""
    var record = JSONObject()
    record.appendUnchecked("id", id)
    let source = Source(query)
    do {
        let document = try parse(source)
        record.appendUnchecked("parse", "ok")
        let errors = validate(schema: executable.schema, document: document, source: source)
        record.appendUnchecked("validation", .array(errors.map(errorJSON)))
        if errors.isEmpty {
            let result = executable.execute(
                document: document, source: source, operationName: entry["operationName"]?.stringValue,
                variables: entry["variables"]?.objectValue ?? [:], context: ())
            record.appendUnchecked("result", result.json)
        } else {
            record.appendUnchecked("result", .null)
        }
    } catch {
        record.appendUnchecked("parse", errorJSON(error))
        record.appendUnchecked("validation", [])
        record.appendUnchecked("result", .null)
    }
    JSON.object(record).write(to: &output)
    output.append(UInt8(ascii: "\n"))
}
FileHandle.standardOutput.write(Data(output))
