/// A schema with its resolvers bound and checked: every field of every object type
/// has a resolver (or reads JSON), and every resolver names a field.
public final class ExecutableSchema<Context>: Sendable {
    public let schema: GraphQLSchema
    /// Resolvers by object type name, then field name.
    let table: [String: [String: FieldResolver<Context>]]
    /// Resolvers by object type, then field position in the type's `fields`.
    private let resolverTable: [ObjectIdentifier: [FieldResolver<Context>?]]
    /// The named types of each object type's fields (resolved in the schema, nil if
    /// unknown), by field position: planning a selection looks its type up once instead
    /// of hashing each field's type name.
    private let fieldTypeTable: [ObjectIdentifier: [NamedType?]]
    /// Whether no resolver is bound to an introspection type's field, so that
    /// introspection results depend on the schema alone.
    let introspectionIsBuiltIn: Bool
    /// What introspection answers with, derived once; nil when resolvers are bound to
    /// introspection types (they then resolve field by field).
    let introspectionModel: IntrospectionModel?
    let jsonTypes: Set<String>
    let typeTests: [String: @Sendable (any Sendable) -> Bool]
    /// Turns an error a resolver threw (that is not a `GraphQLError`) into the error
    /// the client sees; the default uses the error's description.
    let mapError: @Sendable (any Error) -> GraphQLError

    public init(
        schema: GraphQLSchema, resolvers: Resolvers<Context>,
        mapError: @escaping @Sendable (any Error) -> GraphQLError = { GraphQLError(String(describing: $0)) }
    ) throws(SchemaError) {
        var problems: [GraphQLError] = []
        var table: [String: [String: FieldResolver<Context>]] = [:]
        for (coordinate, resolver) in resolvers.fields {
            let parts = coordinate.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else {
                problems.append(GraphQLError("Resolver coordinate \"\(coordinate)\" is not of the form Type.field."))
                continue
            }
            guard case .object(let object)? = schema.type(parts[0]) else {
                problems.append(GraphQLError("A resolver is bound to \"\(coordinate)\", but the schema has no object type \(parts[0])."))
                continue
            }
            guard object.field(parts[1]) != nil else {
                problems.append(GraphQLError("A resolver is bound to \"\(coordinate)\", but type \(parts[0]) has no field \"\(parts[1])\"."))
                continue
            }
            table[parts[0], default: [:]][parts[1]] = resolver
        }
        for name in resolvers.jsonTypes where schema.type(name) == nil {
            problems.append(GraphQLError("Type \(name) is declared to resolve from JSON, but the schema has no such type."))
        }
        for name in resolvers.typeTests.keys where schema.type(name) == nil {
            problems.append(GraphQLError("A Swift type is bound to \(name), but the schema has no such type."))
        }
        for type in schema.types {
            guard case .object(let object) = type, !Prelude.introspectionTypeNames.contains(object.name),
                !resolvers.jsonTypes.contains(object.name)
            else { continue }
            for field in object.fields where table[object.name]?[field.name] == nil {
                problems.append(GraphQLError("No resolver for field \"\(object.name).\(field.name)\": bind one, or declare \(object.name) as resolved from JSON."))
            }
        }
        if !problems.isEmpty { throw SchemaError(sourceName: "resolvers", errors: problems) }
        self.schema = schema
        self.table = table
        var resolverTable: [ObjectIdentifier: [FieldResolver<Context>?]] = [:]
        for type in schema.types {
            guard case .object(let object) = type, let byName = table[object.name] else { continue }
            resolverTable[ObjectIdentifier(object)] = object.fields.map { byName[$0.name] }
        }
        self.resolverTable = resolverTable
        var fieldTypeTable: [ObjectIdentifier: [NamedType?]] = [:]
        for type in schema.types {
            guard case .object(let object) = type else { continue }
            fieldTypeTable[ObjectIdentifier(object)] = object.fields.map { schema.type($0.type.namedType) }
        }
        self.fieldTypeTable = fieldTypeTable
        self.introspectionIsBuiltIn = !table.keys.contains { Prelude.introspectionTypeNames.contains($0) }
        self.introspectionModel = introspectionIsBuiltIn ? IntrospectionModel(schema) : nil
        self.jsonTypes = resolvers.jsonTypes
        self.typeTests = resolvers.typeTests
        self.mapError = mapError
    }

    /// The resolvers of `object`'s fields by position (nil when it has none).
    func resolvers(of object: ObjectType) -> [FieldResolver<Context>?]? {
        resolverTable[ObjectIdentifier(object)]
    }

    /// The named types of `object`'s fields by position (nil for a type not in the schema).
    func fieldTypes(of object: ObjectType) -> [NamedType?]? {
        fieldTypeTable[ObjectIdentifier(object)]
    }
}
