/// A validated GraphQL schema: its named types (user types, the built-in scalars it
/// uses and the introspection types), directives and root operation types.
/// Immutable and safe to share between threads.
public final class GraphQLSchema: Sendable {
    public let description: String?
    public let queryType: ObjectType
    public let mutationType: ObjectType?
    public let subscriptionType: ObjectType?
    /// All named types, in graphql-js's order (a depth-first walk from the definitions).
    public let types: [NamedType]
    /// All directives, in graphql-js's order: the SDL's, then the built-in ones it did not redefine.
    public let directives: [DirectiveDef]
    private let directiveMap: [String: DirectiveDef]
    /// For each interface and union, the object types that are its possible types.
    private let possibleTypeMap: [String: [ObjectType]]
    /// For each interface, the interfaces that implement it.
    private let interfaceImplementations: [String: [ObjectType]]
    /// Field types resolved for validation, once per schema.
    let validationIndex: ValidationIndex

    init(
        description: String?, queryType: ObjectType, mutationType: ObjectType?, subscriptionType: ObjectType?,
        types: [NamedType], directives: [DirectiveDef]
    ) {
        self.description = description
        self.queryType = queryType
        self.mutationType = mutationType
        self.subscriptionType = subscriptionType
        self.types = types
        self.directives = directives
        var typeMap: [String: NamedType] = [:]
        for type in types { typeMap[type.name] = type }
        self.directiveMap = Dictionary(directives.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var possible: [String: [ObjectType]] = [:]
        var implementations: [String: [ObjectType]] = [:]
        for type in types {
            switch type {
            case .object(let object):
                for interface in object.interfaces { possible[interface, default: []].append(object) }
            case .interface(let interface):
                for parent in interface.interfaces { implementations[parent, default: []].append(interface) }
            case .union(let union):
                possible[union.name] = union.types.compactMap {
                    if case .object(let object)? = typeMap[$0] { return object }
                    return nil
                }
            default:
                break
            }
        }
        self.possibleTypeMap = possible
        self.interfaceImplementations = implementations
        self.validationIndex = ValidationIndex(
            types: types, typeMap: typeMap, roots: (queryType.name, mutationType?.name, subscriptionType?.name))
    }

    /// The named type called `name`: found through the validation index's FNV table of
    /// type names, which costs a fraction of hashing the name with SipHash.
    public func type(_ name: String) -> NamedType? {
        guard let number = validationIndex.typeNames.number(of: name) else { return nil }
        return validationIndex.types[number].type
    }

    /// The directive called `name` (without the `@`).
    public func directive(_ name: String) -> DirectiveDef? { directiveMap[name] }

    /// The root type of an operation type, if the schema supports it.
    public func rootType(_ operation: OperationType) -> ObjectType? {
        switch operation {
        case .query: queryType
        case .mutation: mutationType
        case .subscription: subscriptionType
        }
    }

    /// The object types an interface or union may be at run time (spec GetPossibleTypes).
    public func possibleTypes(_ abstractName: String) -> [ObjectType] {
        possibleTypeMap[abstractName] ?? []
    }

    /// The interfaces that declare they implement interface `name`.
    public func implementations(ofInterface name: String) -> [ObjectType] {
        interfaceImplementations[name] ?? []
    }

    /// Whether `subName` is a possible type of the abstract type `abstractName`: an
    /// object among its possible types, or an interface implementing it.
    public func isSubType(_ abstractName: String, _ subName: String) -> Bool {
        if possibleTypes(abstractName).contains(where: { $0.name == subName }) { return true }
        return implementations(ofInterface: abstractName).contains { $0.name == subName }
    }

    /// Resolves a type reference's named type.
    public func namedType(_ ref: TypeRef) -> NamedType? { type(ref.namedType) }
}
