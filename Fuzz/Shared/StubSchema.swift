import GraphQL

/// The stub executable schema of the validate-execute and http-request fuzzers:
/// the repo's `schema.graphql` (embedded by build.sh as `schemaSDL`) with
/// pass-through custom scalars and a deterministic resolver on every field of every
/// object type. Two fields misbehave on purpose: `User.email` throws, and
/// `User.updatedAt` (a `Date!`) returns null, so field errors and null propagation
/// are exercised too.
enum StubSchema {
    static let throwingField = "User.email"
    static let nullForNonNullField = "User.updatedAt"

    struct StubError: Error, CustomStringConvertible {
        var description: String { "stub resolver failure" }
    }

    /// A parent value for object types: every field has its own resolver, so it is never read.
    struct StubObject: Sendable { let typeName: String }

    static func make<Context>(_ context: Context.Type = Context.self) -> ExecutableSchema<Context> {
        let schema: GraphQLSchema
        do {
            schema = try GraphQLSchema.build(sdl: schemaSDL, scalars: ["Date": .passthrough, "Object": .passthrough])
        } catch {
            fatalError("schema.graphql does not build: \(error)")
        }
        var resolvers = Resolvers<Context>()
        for case .object(let object) in schema.types where !object.name.hasPrefix("__") {
            resolvers.bind(StubObject.self, to: object.name)
            for field in object.fields {
                let coordinate = "\(object.name).\(field.name)"
                if coordinate == throwingField {
                    resolvers.field(coordinate) { _, _, _, _ in throw StubError() }
                } else if coordinate == nullForNonNullField {
                    resolvers.field(coordinate) { _, _, _, _ in .null }
                } else {
                    let value = stubValue(field.type, field: field.name, schema: schema)
                    resolvers.field(coordinate) { _, _, _, _ in value }
                }
            }
        }
        do {
            return try ExecutableSchema(schema: schema, resolvers: resolvers)
        } catch {
            fatalError("stub resolvers do not bind: \(error)")
        }
    }

    /// Deterministic data of type `type`: lists have two items.
    static func stubValue(_ type: TypeRef, field: String, schema: GraphQLSchema) -> ResolvedValue {
        switch type {
        case .nonNull(let inner):
            return stubValue(inner, field: field, schema: schema)
        case .list(let inner):
            let item = stubValue(inner, field: field, schema: schema)
            return .list([item, item])
        case .named(let name):
            switch schema.type(name) {
            case .scalar(let scalar)?:
                switch scalar.name {
                case "Boolean": return .bool(true)
                case "Int": return .int(42)
                case "Float": return .double(1.5)
                case "ID": return .string("id-\(field)")
                case "Date": return .string("2026-11-30T08:00:00.000Z")
                case "Object": return .json(["k": 1, "nested": ["a": [1, 2.5, "x", .null, true]]])
                default: return .string("\(field) \u{1F600} \"q\"\n")
                }
            case .enumType(let enumType)?:
                return .string(enumType.values.first?.name ?? "")
            case .object(let object)?:
                return .value(StubObject(typeName: object.name))
            case .interface, .union:
                let concrete = schema.possibleTypes(name).first?.name ?? name
                return .value(StubObject(typeName: concrete))
            case .inputObject?, nil:
                return .null
            }
        }
    }
}
