import Foundation
import JSON
import Testing

import GraphQL

/// The full introspection query graphql-core sends, run on the engine tests' own schema
/// (Fixtures/golden-schema.graphql), against graphql-core's own result
/// (Fixtures/introspection-schema.json, written by conformance/golden.py). The
/// introspection types' descriptions, which we word differently (Deviations.md), are null
/// in the golden and blanked in ours.
struct IntrospectionGoldenTests {
    static func executable() throws -> ExecutableSchema<Void> {
        let schema = try GraphQLSchema.build(sdl: fixture("golden-schema.graphql"), sourceName: "golden-schema.graphql")
        let roots = Set([schema.queryType.name, schema.mutationType?.name, schema.subscriptionType?.name].compactMap { $0 })
        var resolvers = Resolvers<Void>()
        for type in schema.types {
            guard case .object(let object) = type, !object.name.hasPrefix("__") else { continue }
            if roots.contains(object.name) {
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
        #expect(query_?["fields"]?[0]?["description"] == "The health check: always true.")
    }

    /// The golden schema keeps exercising what the introspection result can carry, so an
    /// edit of the fixture cannot quietly drop a feature from the comparison above.
    @Test func goldenSchemaHasEveryFeature() throws {
        let golden = try JSON.parse(fixture("introspection-schema.json"))
        let schema = try #require(golden["__schema"])
        #expect(schema["description"]?.stringValue != nil)
        #expect(schema["subscriptionType"]?["name"] != nil)
        let types = (schema["types"]?.arrayValue ?? []).filter { $0["name"]?.stringValue?.hasPrefix("__") == false }
        let kinds = Set(types.compactMap { $0["kind"]?.stringValue })
        #expect(kinds == ["SCALAR", "OBJECT", "INTERFACE", "UNION", "ENUM", "INPUT_OBJECT"])
        #expect(types.contains { $0["kind"] == "INTERFACE" && $0["interfaces"]?.arrayValue?.isEmpty == false })
        #expect(types.contains { $0["kind"] == "SCALAR" && $0["specifiedByURL"]?.stringValue != nil })
        // The full query does not ask for `isOneOf`; the printed golden shows the OneOf input.
        #expect(try fixture("golden-schema.printed.graphql").contains(" @oneOf {"))
        #expect(types.contains { $0["description"]?.stringValue?.contains("\n") == true })

        let fields = types.flatMap { $0["fields"]?.arrayValue ?? [] }
        let arguments = fields.flatMap { $0["args"]?.arrayValue ?? [] }
        let inputFields = types.flatMap { $0["inputFields"]?.arrayValue ?? [] }
        let enumValues = types.flatMap { $0["enumValues"]?.arrayValue ?? [] }
        for (what, members) in [("field", fields), ("argument", arguments), ("input field", inputFields), ("enum value", enumValues)] {
            #expect(members.contains { $0["isDeprecated"] == true && $0["deprecationReason"] == "No longer supported" }, "\(what)")
            #expect(members.contains { $0["isDeprecated"] == true && $0["deprecationReason"] != "No longer supported" }, "\(what)")
        }
        // Defaults of every literal kind, and ones coercion expands (`{}` becomes the filled object).
        let defaults = (arguments + inputFields).compactMap { $0["defaultValue"]?.stringValue }
        for prefix in ["\"", "[", "{", "1", "0.5", "true", "null", "STANDARD", "{periods: [STANDARD, SHORT]"] {
            #expect(defaults.contains { $0.hasPrefix(prefix) }, "a default starting with \(prefix)")
        }
        // A type three lists deep, with non-null inside and out.
        func depth(_ type: JSON?) -> Int {
            guard let type, type != .null else { return 0 }
            return (type["kind"] == "LIST" ? 1 : 0) + depth(type["ofType"])
        }
        #expect(fields.contains { depth($0["type"]) == 3 && $0["type"]?["kind"] == "NON_NULL" })

        let directives = (schema["directives"]?.arrayValue ?? []).filter {
            !["include", "skip", "deprecated", "specifiedBy", "oneOf"].contains($0["name"]?.stringValue ?? "")
        }
        #expect(directives.contains { $0["isRepeatable"] == true })
        #expect(directives.contains { $0["isRepeatable"] == false })
        let locations = Set(directives.flatMap { $0["locations"]?.arrayValue ?? [] }.compactMap(\.stringValue))
        #expect(locations.contains("FIELD") && locations.contains("FIELD_DEFINITION") && locations.contains("QUERY"))
        #expect(directives.flatMap { $0["args"]?.arrayValue ?? [] }.contains { $0["isDeprecated"] == true })
    }
}
