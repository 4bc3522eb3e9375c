import JSON

/// The resolvers of an executable schema by object type and field position, with the
/// context type erased: the executor is then ordinary concrete code, compiled once for
/// every context type, instead of unspecialised generic code that looks up generic
/// metadata as it runs.
struct ResolverTable: Sendable {
    /// A resolver whose context is passed as a pointer to a value of the `Context` the
    /// table was built for, valid for the duration of the call.
    ///
    /// A struct around the closure: arrays and optionals of a bare closure type hold it
    /// in its most general form, so each call would go through a reabstraction thunk.
    struct Resolver: Sendable {
        let resolve: @Sendable (
            _ source: ResolvedValue, _ arguments: JSONObject, _ context: UnsafeRawPointer, _ info: ResolveInfo
        ) throws -> ResolvedValue
    }

    /// Resolvers by object type, then field position in the type's `fields`.
    private let table: [ObjectIdentifier: [Resolver?]]
    /// Whether a resolver is bound to a field of an introspection type.
    let bindsIntrospectionTypes: Bool

    /// The table of `resolvers`, given by object type name and then field name (each
    /// naming a field of `schema`).
    init<Context>(schema: GraphQLSchema, resolvers: [String: [String: Resolvers<Context>.Binding]]) {
        var table: [ObjectIdentifier: [Resolver?]] = [:]
        for type in schema.types {
            guard case .object(let object) = type, let byName = resolvers[object.name] else { continue }
            table[ObjectIdentifier(object)] = object.fields.map { byName[$0.name].map(Self.erase) }
        }
        self.table = table
        self.bindsIntrospectionTypes = resolvers.keys.contains { Prelude.introspectionTypeNames.contains($0) }
    }

    /// `binding`'s resolver called with the context its pointer points to.
    private static func erase<Context>(_ binding: Resolvers<Context>.Binding) -> Resolver {
        let resolve = binding.resolve
        return Resolver { source, arguments, context, info in
            try resolve(source, arguments, context.assumingMemoryBound(to: Context.self).pointee, info)
        }
    }

    /// The resolvers of `object`'s fields by position (nil when it has none).
    func resolvers(of object: ObjectType) -> [Resolver?]? {
        table[ObjectIdentifier(object)]
    }
}
