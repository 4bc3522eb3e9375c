import Foundation
import JSON
import Testing

import GraphQL
import TestSupport

/// The full introspection query graphql-core sends, run on the project's schema.graphql,
/// against graphql-core's own result (Fixtures/introspection-schema.json, written by
/// conformance/golden.py). The introspection types' descriptions, which we word
/// differently (Deviations.md), are null in the golden and blanked in ours.
struct IntrospectionGoldenTests {
    static let schemaURL = packageRoot.appendingPathComponent("schema.graphql")

    static func executable() throws -> ExecutableSchema<Void> {
        let schema = try GraphQLSchema.build(sdl: String(contentsOf: schemaURL, encoding: .utf8))
        var resolvers = Resolvers<Void>()
        for type in schema.types {
            guard case .object(let object) = type, !object.name.hasPrefix("__") else { continue }
            if object.name == "Query" || object.name == "Mutation" {
                for field in object.fields { resolvers.field("\(object.name).\(field.name)") { _, _, _, _ in .null } }
            } else {
                resolvers.resolveFromJSON(object.name)
            }
        }
        return try ExecutableSchema(schema: schema, resolvers: resolvers)
    }

    /// Descriptions of `__` types (and everything inside them) and of `@oneOf` set to null.
    static func blankIntrospectionDescriptions(_ value: JSON, inside: Bool = false) -> JSON {
        switch value {
        case .array(let items): return .array(items.map { blankIntrospectionDescriptions($0, inside: inside) })
        case .object(let object):
            let name = object["name"]?.stringValue ?? ""
            let own = inside || (name.hasPrefix("__") && object["kind"] != nil) || (name == "oneOf" && object["locations"] != nil)
            var out = JSONObject()
            for (key, child) in object {
                out.appendUnchecked(key, key == "description" && own ? .null : blankIntrospectionDescriptions(child, inside: own))
            }
            return .object(out)
        default: return value
        }
    }

    @Test func fullIntrospectionMatchesGraphQLCore() throws {
        let query = try fixture("introspection-query.txt")
        let golden = try JSON.parse(fixture("introspection-schema.json"))
        let source = Source(query)
        let document = try parse(source)
        let executable = try Self.executable()
        #expect(validate(schema: executable.schema, document: document, source: source).isEmpty)
        let result = executable.execute(document: document, source: source, context: ())
        #expect(result.errors.isEmpty)
        let ours = Self.blankIntrospectionDescriptions(try #require(result.data))
        // Field by field first, so a failure names the type that differs.
        let ourTypes = ours["__schema"]?["types"]?.arrayValue ?? []
        let goldenTypes = golden["__schema"]?["types"]?.arrayValue ?? []
        #expect(ourTypes.compactMap { $0["name"]?.stringValue } == goldenTypes.compactMap { $0["name"]?.stringValue })
        for (mine, theirs) in zip(ourTypes, goldenTypes) where mine != theirs {
            Issue.record("type \(theirs["name"]?.stringValue ?? "?"): ours \(mine) / graphql-core \(theirs)")
        }
        #expect(ours == golden)
        // The golden still carries the schema's own descriptions (the blanking is narrow).
        let query_ = goldenTypes.first { $0["name"] == "Query" }
        #expect(query_?["fields"]?[0]?["description"]?.stringValue?.hasPrefix("The health query") == true)
    }
}
