/// What validation resolves at every field, computed once per schema: for each type,
/// its position among the composite types, and for each field of an object or
/// interface type, the named type it returns and that type's composite position. The
/// walk's `TypeInfo` then finds a field's type by position instead of looking its name
/// up again.
final class ValidationIndex: Sendable {
    /// A named type as the walk tracks it: the type and its position in `composites`
    /// (-1 when it is not composite).
    struct Resolved: Sendable {
        let type: NamedType
        let composite: Int
    }

    /// Per composite type (object, interface, union), per field position (none for
    /// unions), what the field returns: nil when its named type is unknown.
    let fieldTypes: [[Resolved?]]
    /// Every named type by name.
    let byName: [String: Resolved]
    /// The types of the meta-fields `__schema`, `__type` and `__typename`.
    let schemaMetaType: Resolved?
    let typeMetaType: Resolved?
    let typenameMetaType: Resolved?
    /// The root types of queries, mutations and subscriptions.
    private let roots: (query: Resolved?, mutation: Resolved?, subscription: Resolved?)

    init(types: [NamedType], typeMap: [String: NamedType], roots: (query: String, mutation: String?, subscription: String?)) {
        var byName: [String: Resolved] = [:]
        var composites: [NamedType] = []
        // The type `GraphQLSchema.type(_:)` returns for each name (the map's).
        for listed in types where byName[listed.name] == nil {
            let type = typeMap[listed.name] ?? listed
            if type.isComposite {
                byName[type.name] = Resolved(type: type, composite: composites.count)
                composites.append(type)
            } else {
                byName[type.name] = Resolved(type: type, composite: -1)
            }
        }
        // Types reachable only through the map (none in a built schema) are still known.
        for (name, type) in typeMap where byName[name] == nil { byName[name] = Resolved(type: type, composite: -1) }
        self.fieldTypes = composites.map { type in type.fields.map { byName[$0.type.namedType] } }
        self.byName = byName
        self.schemaMetaType = byName["__Schema"]
        self.typeMetaType = byName["__Type"]
        self.typenameMetaType = byName["String"]
        self.roots = (byName[roots.query], roots.mutation.flatMap { byName[$0] }, roots.subscription.flatMap { byName[$0] })
    }

    /// The root type of an operation type, if the schema has one.
    func root(_ operation: OperationType) -> Resolved? {
        switch operation {
        case .query: roots.query
        case .mutation: roots.mutation
        case .subscription: roots.subscription
        }
    }
}
