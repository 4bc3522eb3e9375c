import JSON

/// A schema with its resolvers bound and checked: every field of every object type
/// has a resolver (or reads JSON), and every resolver names a field.
public final class ExecutableSchema<Context>: Sendable {
    public let schema: GraphQLSchema
    /// What executes requests: everything but the context type, which is erased once
    /// here so that execution itself is not generic.
    let executor: Executor
    /// Where each bound resolver may run (``placement(of:in:)``).
    let placements: PlacementTable

    public init(
        schema: GraphQLSchema, resolvers: Resolvers<Context>,
        mapError: @escaping @Sendable (any Error) -> GraphQLError = { GraphQLError(String(describing: $0)) }
    ) throws(SchemaError) {
        var problems: [GraphQLError] = []
        var table: [String: [String: Resolvers<Context>.Binding]] = [:]
        var placements: [String: [String: ResolverPlacement]] = [:]
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
            placements[parts[0], default: [:]][parts[1]] = resolvers.placements[coordinate] ?? .blocking
        }
        for (name, likeness) in resolvers.likenesses.sorted(by: { $0.key < $1.key }) {
            guard case .object(let object)? = schema.type(name), case .object? = schema.type(likeness.type) else {
                let missing = if case .object? = schema.type(name) { likeness.type } else { name }
                problems.append(GraphQLError("Type \(name) is declared to resolve like \(likeness.type), but the schema has no object type \(missing)."))
                continue
            }
            for field in object.fields where table[name]?[field.name] == nil {
                guard let resolver = table[likeness.type]?[field.name] else { continue }  // reported below
                let parent = likeness.parent
                table[name, default: [:]][field.name] = Resolvers.Binding { source, arguments, context, info in
                    try resolver.resolve(parent(source), arguments, context, info)
                }
                placements[name, default: [:]][field.name] = placements[likeness.type]?[field.name] ?? .blocking
            }
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
                if let likeness = resolvers.likenesses[object.name] {
                    problems.append(GraphQLError("No resolver for field \"\(object.name).\(field.name)\": bind one, or one to \"\(likeness.type).\(field.name)\" (\(object.name) resolves like \(likeness.type))."))
                } else {
                    problems.append(GraphQLError("No resolver for field \"\(object.name).\(field.name)\": bind one, or declare \(object.name) as resolved from JSON."))
                }
            }
        }
        if !problems.isEmpty { throw SchemaError(sourceName: "resolvers", errors: problems) }
        self.schema = schema
        self.placements = PlacementTable(placements)
        self.executor = Executor(
            schema: schema, resolvers: ResolverTable(schema: schema, resolvers: table),
            typeTests: resolvers.typeTests, mapError: mapError)
    }

    /// Executes a validated document (spec §6 ExecuteRequest): selects the operation,
    /// coerces variables, executes the selection (mutation root fields serially) and
    /// collects field errors with paths and locations.
    public func execute(
        document: Document, source: Source, operationName: String? = nil, variables: JSONObject = [:],
        context: Context
    ) -> ExecutionResult {
        execute(
            document: document, source: source, operationName: operationName, variables: variables,
            context: context, plans: nil)
    }

    /// `execute(document:…)` with the selection plans of a prepared document, if it has any.
    func execute(
        document: Document, source: Source, operationName: String?, variables: JSONObject, context: Context,
        plans: ExecutionPlans?
    ) -> ExecutionResult {
        // The resolvers read the context through this pointer (`ResolverTable`).
        withUnsafePointer(to: context) { context in
            executor.execute(
                document: document, source: source, operationName: operationName, variables: variables,
                context: UnsafeRawPointer(context), plans: plans)
        }
    }
}
