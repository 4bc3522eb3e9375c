import JSON

/// What a resolver is told about the field it resolves (graphql-js's `info`).
///
/// Three references, whatever the field: its plan, its parent's response path (the
/// execution's path array, shared until execution changes it) and the execution's
/// request, so that telling a resolver costs next to nothing.
public struct ResolveInfo: Sendable {
    let field: FieldPlan
    let parentPath: [PathElement]
    let request: ExecutionRequest

    public var fieldName: String { field.fieldName }
    public var parentType: ObjectType { field.parentType }
    public var returnType: TypeRef { field.type }
    /// The response path of this field.
    public var path: [PathElement] { parentPath + [.key(field.responseKey)] }
    /// The field's nodes in the document (several when merged).
    public var fieldNodes: [Field] { field.nodes }
    public var operation: OperationDefinition { request.operation.definition }
    public var schema: GraphQLSchema { request.schema }
    /// The operation's coerced variables.
    public var variables: JSONObject { request.variables }
}

/// The operation, coerced variables and schema of one execution, shared by the
/// `ResolveInfo` of each resolver it calls.
final class ExecutionRequest: Sendable {
    let operation: PreparedOperation
    let variables: JSONObject
    let schema: GraphQLSchema

    init(operation: PreparedOperation, variables: JSONObject, schema: GraphQLSchema) {
        self.operation = operation
        self.variables = variables
        self.schema = schema
    }
}

/// Resolves one field: from the parent value, the coerced arguments, the request's
/// context and the field's info. Runs synchronously on the request's thread.
public typealias FieldResolver<Context> = @Sendable (
    _ source: ResolvedValue, _ arguments: JSONObject, _ context: Context, _ info: ResolveInfo
) throws -> ResolvedValue

/// The resolvers of a schema, bound by schema coordinate (`Type.field`).
///
/// Each binding says where its resolver may run (``ResolverPlacement``): a closure is
/// `.blocking` unless it is declared otherwise, and a key-path binding reads a property, so it
/// is pure by construction.
///
/// An object type's fields either each have a resolver or, for types declared with
/// `resolveFromJSON(_:)`, are read from a JSON object parent by field name. Abstract
/// types learn an object's type from `bind(_:to:)`, or from a `__typename` key of a
/// JSON parent.
///
/// The bindings by parent type and by key path are inlinable: compiled where they are called,
/// their resolvers are code for the concrete parent, property and context types, rather than
/// generic code that looks the types' metadata up on every call.
public struct Resolvers<Context>: Sendable {
    var fields: [String: Binding] = [:]
    var placements: [String: ResolverPlacement] = [:]
    var jsonTypes: Set<String> = []
    var typeTests: [String: @Sendable (any Sendable) -> Bool] = [:]
    /// Types resolved like another (``resolve(_:like:parent:)``), by name.
    var likenesses: [String: Likeness] = [:]

    /// A bound resolver, held in a struct: a dictionary or optional of a bare closure type
    /// holds the closure in its most general form, so each container it passed through on its
    /// way to the executor would add reabstraction thunks to every call of it.
    struct Binding: Sendable {
        let resolve: FieldResolver<Context>
    }

    /// A type whose fields without a resolver use `type`'s, given `parent(source)`.
    struct Likeness: Sendable {
        let type: String
        let parent: @Sendable (ResolvedValue) throws -> ResolvedValue
    }

    public init() {}

    /// Binds `resolver` to the field at `coordinate` (`"Type.field"`); it may block unless
    /// `runs` says otherwise.
    public mutating func field(
        _ coordinate: String, runs placement: ResolverPlacement = .blocking, _ resolver: @escaping FieldResolver<Context>
    ) {
        fields[coordinate] = Binding(resolve: resolver)
        placements[coordinate] = placement
    }

    /// Replaces each blocking resolver bound so far to a field of `type` with `wrap(field, resolver)`:
    /// for what every such field of a type does alike around its own work (an audit record of each
    /// mutation). Pure resolvers stay as they are, so a wrapper may block.
    public mutating func wrapBlockingFields(
        of type: String, _ wrap: (_ field: String, _ resolver: @escaping FieldResolver<Context>) -> FieldResolver<Context>
    ) {
        let prefix = type + "."
        for (coordinate, binding) in fields where coordinate.hasPrefix(prefix) && placements[coordinate] == .blocking {
            fields[coordinate] = Binding(resolve: wrap(String(coordinate.dropFirst(prefix.count)), binding.resolve))
        }
    }

    /// Binds a resolver whose parent is a Swift value of type `Parent` (from
    /// `ResolvedValue.value`); any other parent is an internal error of the field. It may block
    /// unless `runs` says otherwise.
    @inlinable
    public mutating func field<Parent: Sendable>(
        _ coordinate: String, on parent: Parent.Type, runs placement: ResolverPlacement = .blocking,
        _ resolver: @escaping @Sendable (Parent, JSONObject, Context, ResolveInfo) throws -> ResolvedValue
    ) {
        field(coordinate, runs: placement) { source, arguments, context, info in
            try resolver(Self.parent(source, coordinate), arguments, context, info)
        }
    }

    /// Binds the field at `coordinate` to a property of its parent (a string, number or
    /// boolean, or an optional one): pure.
    @inlinable
    public mutating func field<Parent: Sendable, Value: ResolvedValueRepresentable>(
        _ coordinate: String, _ property: KeyPath<Parent, Value> & Sendable
    ) {
        field(coordinate, runs: .pure) { source, _, _, _ in
            let parent: Parent = try Self.parent(source, coordinate)
            return parent[keyPath: property].resolvedValue
        }
    }

    /// Binds the field at `coordinate` to a property of its parent holding a Swift value (an
    /// object type's source, a custom scalar's value): pure.
    @inlinable
    public mutating func field<Parent: Sendable, Value: Sendable>(
        _ coordinate: String, value property: KeyPath<Parent, Value> & Sendable
    ) {
        field(coordinate, runs: .pure) { source, _, _, _ in
            let parent: Parent = try Self.parent(source, coordinate)
            return .value(parent[keyPath: property])
        }
    }

    /// Binds the field at `coordinate` to an optional property of its parent holding a Swift
    /// value; nil is null: pure.
    @inlinable
    public mutating func field<Parent: Sendable, Value: Sendable>(
        _ coordinate: String, value property: KeyPath<Parent, Value?> & Sendable
    ) {
        field(coordinate, runs: .pure) { source, _, _, _ in
            let parent: Parent = try Self.parent(source, coordinate)
            return parent[keyPath: property].map { .value($0) } ?? .null
        }
    }

    /// The parent of a field bound with a Swift parent type.
    @inlinable
    static func parent<Parent>(_ source: ResolvedValue, _ coordinate: String) throws -> Parent {
        guard case .value(let value) = source, let typed = value as? Parent else {
            throw GraphQLError("Resolver for \(coordinate) expected a parent of type \(Parent.self).")
        }
        return typed
    }

    /// Replaces the resolver bound at `coordinate` with what `wrap` makes of it, keeping its
    /// placement (so `wrap`'s resolver must block no more than the one it wraps): a check every
    /// field of a type needs, declared once. A coordinate with no resolver is left alone.
    public mutating func wrap(
        _ coordinate: String, _ wrap: (@escaping FieldResolver<Context>) -> FieldResolver<Context>
    ) {
        guard let binding = fields[coordinate] else { return }
        fields[coordinate] = Binding(resolve: wrap(binding.resolve))
    }

    /// Declares that `typeName`'s fields without a resolver are read from a JSON
    /// object parent by field name (graphql-js's default property resolver): pure.
    public mutating func resolveFromJSON(_ typeName: String) {
        jsonTypes.insert(typeName)
    }

    /// Resolves each field of `typeName` that has no resolver of its own with the resolver bound
    /// to the field of the same name on `otherType`, given `parent(source)` as its parent and
    /// keeping its placement: an object type that repeats another type's fields (an older
    /// shape of it, say) binds them once. The resolver's `info` names `typeName`'s field.
    public mutating func resolve(
        _ typeName: String, like otherType: String, parent: @escaping @Sendable (ResolvedValue) throws -> ResolvedValue
    ) {
        likenesses[typeName] = Likeness(type: otherType, parent: parent)
    }

    /// Declares that a Swift value of type `Swift` is an object of `typeName`, so that
    /// interfaces and unions can tell which object type a value is.
    public mutating func bind<Swift>(_ type: Swift.Type, to typeName: String) {
        typeTests[typeName] = { $0 is Swift }
    }
}
