/// What a resolver is told about the field it resolves (graphql-js's `info`).
public struct ResolveInfo: Sendable {
    public let fieldName: String
    public let parentType: ObjectType
    public let returnType: TypeRef
    let responsePath: ResponsePath
    /// The response path of this field.
    public var path: [PathElement] { responsePath.elements }
    /// The field's nodes in the document (several when merged).
    public let fieldNodes: [Field]
    public let operation: OperationDefinition
    public let schema: GraphQLSchema
    /// The operation's coerced variables.
    public let variables: JSONObject
}

/// Resolves one field: from the parent value, the coerced arguments, the request's
/// context and the field's info. Runs synchronously on the request's thread.
public typealias FieldResolver<Context> = @Sendable (
    _ source: ResolvedValue, _ arguments: JSONObject, _ context: Context, _ info: ResolveInfo
) throws -> ResolvedValue

/// The resolvers of a schema, bound by schema coordinate (`Type.field`).
///
/// An object type's fields either each have a resolver or, for types declared with
/// `resolveFromJSON(_:)`, are read from a JSON object parent by field name. Abstract
/// types learn an object's type from `bind(_:to:)`, or from a `__typename` key of a
/// JSON parent.
public struct Resolvers<Context>: Sendable {
    var fields: [String: FieldResolver<Context>] = [:]
    var jsonTypes: Set<String> = []
    var typeTests: [String: @Sendable (any Sendable) -> Bool] = [:]

    public init() {}

    /// Binds `resolver` to the field at `coordinate` (`"Type.field"`).
    public mutating func field(_ coordinate: String, _ resolver: @escaping FieldResolver<Context>) {
        fields[coordinate] = resolver
    }

    /// Binds a resolver whose parent is a Swift value of type `Parent` (from
    /// `ResolvedValue.value`); any other parent is an internal error of the field.
    public mutating func field<Parent: Sendable>(
        _ coordinate: String, on parent: Parent.Type,
        _ resolver: @escaping @Sendable (Parent, JSONObject, Context, ResolveInfo) throws -> ResolvedValue
    ) {
        fields[coordinate] = { source, arguments, context, info in
            guard case .value(let value) = source, let typed = value as? Parent else {
                throw GraphQLError("Resolver for \(coordinate) expected a parent of type \(Parent.self).")
            }
            return try resolver(typed, arguments, context, info)
        }
    }

    /// Declares that `typeName`'s fields without a resolver are read from a JSON
    /// object parent by field name (graphql-js's default property resolver).
    public mutating func resolveFromJSON(_ typeName: String) {
        jsonTypes.insert(typeName)
    }

    /// Declares that a Swift value of type `Swift` is an object of `typeName`, so that
    /// interfaces and unions can tell which object type a value is.
    public mutating func bind<Swift>(_ type: Swift.Type, to typeName: String) {
        typeTests[typeName] = { $0 is Swift }
    }
}
