/// Where a resolver may run, declared where it is bound (``Resolvers``).
///
/// A transport that serves requests on threads that must never block (an event loop) asks the
/// executable schema how an operation may run (``ExecutableSchema/placement(of:in:)``): the
/// greatest placement of every field the operation may execute. The order of the cases is that
/// order.
public enum ResolverPlacement: Int, Sendable, Hashable, Comparable {
    /// Reads only its parent, its arguments and the schema: runs on any thread, never blocks.
    case pure
    /// Reads also what the transport settles in the context before execution (an application's
    /// viewer, say): never blocks once the context is settled, which the transport does when an
    /// operation's placement is this one.
    case pureOnceSettled
    /// May block (a database, password hashing, the network): runs on a thread that may block.
    case blocking

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A Swift value that a key-path binding returns as a field's value (``Resolvers/field(_:_:)``).
public protocol ResolvedValueRepresentable: Sendable {
    var resolvedValue: ResolvedValue { get }
}

extension String: ResolvedValueRepresentable {
    public var resolvedValue: ResolvedValue { .string(self) }
}

extension Bool: ResolvedValueRepresentable {
    public var resolvedValue: ResolvedValue { .bool(self) }
}

extension Int: ResolvedValueRepresentable {
    public var resolvedValue: ResolvedValue { .int(self) }
}

extension Double: ResolvedValueRepresentable {
    public var resolvedValue: ResolvedValue { .double(self) }
}

extension Optional: ResolvedValueRepresentable where Wrapped: ResolvedValueRepresentable {
    public var resolvedValue: ResolvedValue { self?.resolvedValue ?? .null }
}

extension ExecutableSchema {
    /// How `operation` of `document` may run: the greatest placement among the resolvers of the
    /// fields it may execute, through fragments and abstract types (every possible object type of
    /// an interface or union counts). `@skip`/`@include` are not evaluated, so the answer is what
    /// the operation *may* need. Introspection fields and fields read from JSON are pure.
    /// `document` must be valid.
    public func placement(of operation: OperationDefinition, in document: Document) -> ResolverPlacement {
        guard let root = schema.rootType(operation.operation) else { return .pure }
        var fragments: [String: FragmentDefinition] = [:]
        for case .fragment(let fragment) in document.definitions { fragments[fragment.name.value] = fragment }
        var placement = ResolverPlacement.pure
        // (type, fragment) pairs already walked: a fragment spread twice on one type adds nothing.
        var walked: Set<String> = []

        func walk(_ selectionSet: SelectionSet, on types: [ObjectType]) {
            for selection in selectionSet.selections where placement < .blocking {
                switch selection {
                case .field(let field):
                    let name = field.name.value
                    if name.hasPrefix("__") { continue }  // __typename, __schema, __type: the engine's own
                    for type in types {
                        guard let definition = type.field(name) else { continue }
                        placement = max(placement, placements.placement(of: type, field: name))
                        if let selections = field.selectionSet {
                            walk(selections, on: objectTypes(definition.type.namedType))
                        }
                    }
                case .inlineFragment(let fragment):
                    let narrowed = fragment.typeCondition.map { narrow(types, to: $0.value) } ?? types
                    walk(fragment.selectionSet, on: narrowed)
                case .fragmentSpread(let spread):
                    guard let fragment = fragments[spread.name.value] else { continue }
                    let narrowed = narrow(types, to: fragment.typeCondition.value)
                    let key = narrowed.map(\.name).joined(separator: ",") + "|" + spread.name.value
                    guard walked.insert(key).inserted else { continue }
                    walk(fragment.selectionSet, on: narrowed)
                }
            }
        }
        walk(operation.selectionSet, on: [root])
        return placement
    }

    /// The object types a value of the named type may be.
    private func objectTypes(_ name: String) -> [ObjectType] {
        switch schema.type(name) {
        case .object(let object)?: [object]
        case .interface?, .union?: schema.possibleTypes(name)
        default: []
        }
    }

    /// The types among `types` that a fragment on `condition` applies to.
    private func narrow(_ types: [ObjectType], to condition: String) -> [ObjectType] {
        let possible = Set(objectTypes(condition).map(\.name))
        return types.filter { possible.contains($0.name) }
    }
}

/// The declared placement of every bound field, by object type and field name.
struct PlacementTable: Sendable {
    private let table: [String: [String: ResolverPlacement]]

    init(_ table: [String: [String: ResolverPlacement]]) { self.table = table }

    /// A field's placement; fields without a resolver (read from JSON, introspection) are pure.
    func placement(of type: ObjectType, field: String) -> ResolverPlacement {
        table[type.name]?[field] ?? .pure
    }
}
