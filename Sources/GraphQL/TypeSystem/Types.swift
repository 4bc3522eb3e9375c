/// A reference to a type in a schema: a named type, a list, or non-null.
public indirect enum TypeRef: Sendable, Hashable, CustomStringConvertible {
    case named(String)
    case list(TypeRef)
    case nonNull(TypeRef)

    /// From a syntax-tree type reference.
    public init(_ node: TypeReference) {
        switch node {
        case .named(let name): self = .named(name.value)
        case .list(let inner, _): self = .list(TypeRef(inner))
        case .nonNull(let inner, _): self = .nonNull(TypeRef(inner))
        }
    }

    /// The innermost named type's name.
    public var namedType: String {
        switch self {
        case .named(let name): name
        case .list(let inner), .nonNull(let inner): inner.namedType
        }
    }

    public var isNonNull: Bool {
        if case .nonNull = self { return true }
        return false
    }

    /// The type without its outer non-null wrapper.
    public var nullable: TypeRef {
        if case .nonNull(let inner) = self { return inner }
        return self
    }

    public var description: String {
        switch self {
        case .named(let name): name
        case .list(let inner): "[\(inner)]"
        case .nonNull(let inner): "\(inner)!"
        }
    }
}

/// A named type of a schema (spec §3.4 Types).
public enum NamedType: Sendable {
    case scalar(ScalarType)
    case object(ObjectType)
    case interface(InterfaceType)
    case union(UnionType)
    case enumType(EnumType)
    case inputObject(InputObjectType)

    public var name: String {
        switch self {
        case .scalar(let type): type.name
        case .object(let type): type.name
        case .interface(let type): type.name
        case .union(let type): type.name
        case .enumType(let type): type.name
        case .inputObject(let type): type.name
        }
    }

    public var description: String? {
        switch self {
        case .scalar(let type): type.description
        case .object(let type): type.description
        case .interface(let type): type.description
        case .union(let type): type.description
        case .enumType(let type): type.description
        case .inputObject(let type): type.description
        }
    }

    /// The `__TypeKind` name: SCALAR, OBJECT, INTERFACE, UNION, ENUM, INPUT_OBJECT.
    public var kind: String {
        switch self {
        case .scalar: "SCALAR"
        case .object: "OBJECT"
        case .interface: "INTERFACE"
        case .union: "UNION"
        case .enumType: "ENUM"
        case .inputObject: "INPUT_OBJECT"
        }
    }

    /// Scalars and enums: types that end a selection.
    public var isLeaf: Bool {
        switch self {
        case .scalar, .enumType: true
        default: false
        }
    }

    /// Objects, interfaces and unions: types that need a selection set.
    public var isComposite: Bool {
        switch self {
        case .object, .interface, .union: true
        default: false
        }
    }

    /// Interfaces and unions.
    public var isAbstract: Bool {
        switch self {
        case .interface, .union: true
        default: false
        }
    }

    /// Types allowed in input positions: scalars, enums and input objects.
    public var isInputType: Bool {
        switch self {
        case .scalar, .enumType, .inputObject: true
        default: false
        }
    }

    /// Types allowed in output positions: all but input objects.
    public var isOutputType: Bool {
        if case .inputObject = self { return false }
        return true
    }

    /// The fields of an object or interface (empty for other kinds).
    public var fields: [FieldDef] {
        switch self {
        case .object(let type): type.fields
        case .interface(let type): type.fields
        default: []
        }
    }

    /// The field named `name` of an object or interface.
    public func field(_ name: String) -> FieldDef? {
        switch self {
        case .object(let type): type.field(name)
        case .interface(let type): type.field(name)
        default: nil
        }
    }
}

/// A scalar type with its coercion rules (spec §3.5 Scalars).
public final class ScalarType: Sendable {
    public let name: String
    public let description: String?
    public let specifiedByURL: String?
    public let coercion: ScalarCoercion

    public init(name: String, description: String? = nil, specifiedByURL: String? = nil, coercion: ScalarCoercion) {
        self.name = name
        self.description = description
        self.specifiedByURL = specifiedByURL
        self.coercion = coercion
    }
}

/// An object type: named fields, the interfaces it implements (spec §3.6 Objects).
public final class ObjectType: Sendable {
    public let name: String
    public let description: String?
    public let fields: [FieldDef]
    public let interfaces: [String]
    private let fieldIndex: [String: Int]

    public init(name: String, description: String? = nil, fields: [FieldDef], interfaces: [String] = []) {
        self.name = name
        self.description = description
        self.fields = fields
        self.interfaces = interfaces
        var index: [String: Int] = [:]
        for (i, field) in fields.enumerated() where index[field.name] == nil { index[field.name] = i }
        self.fieldIndex = index
    }

    public func field(_ name: String) -> FieldDef? {
        fieldIndex[name].map { fields[$0] }
    }

    /// The position of the field named `name` in `fields`.
    func fieldPosition(_ name: String) -> Int? { fieldIndex[name] }
}

/// An interface: fields shared by the types that implement it (spec §3.7 Interfaces).
public typealias InterfaceType = ObjectType

/// A union of object types (spec §3.8 Unions).
public final class UnionType: Sendable {
    public let name: String
    public let description: String?
    public let types: [String]

    public init(name: String, description: String? = nil, types: [String]) {
        self.name = name
        self.description = description
        self.types = types
    }
}

/// An enum and its values (spec §3.9 Enums).
public final class EnumType: Sendable {
    public let name: String
    public let description: String?
    public let values: [EnumValueDef]

    public init(name: String, description: String? = nil, values: [EnumValueDef]) {
        self.name = name
        self.description = description
        self.values = values
    }

    public func value(_ name: String) -> EnumValueDef? { values.first { $0.name == name } }
}

/// One value of an enum.
public struct EnumValueDef: Sendable {
    public let name: String
    public let description: String?
    public let deprecationReason: String?

    public init(name: String, description: String? = nil, deprecationReason: String? = nil) {
        self.name = name
        self.description = description
        self.deprecationReason = deprecationReason
    }
}

/// An input object type; `isOneOf` marks `@oneOf` (exactly one field must be given).
public final class InputObjectType: Sendable {
    public let name: String
    public let description: String?
    public let fields: [InputValueDef]
    public let isOneOf: Bool

    public init(name: String, description: String? = nil, fields: [InputValueDef], isOneOf: Bool = false) {
        self.name = name
        self.description = description
        self.fields = fields
        self.isOneOf = isOneOf
    }

    public func field(_ name: String) -> InputValueDef? { fields.first { $0.name == name } }
}

/// A field of an object or interface type.
public struct FieldDef: Sendable {
    public let name: String
    public let description: String?
    public let arguments: [InputValueDef]
    public let type: TypeRef
    public let deprecationReason: String?

    public init(
        name: String, description: String? = nil, arguments: [InputValueDef] = [], type: TypeRef,
        deprecationReason: String? = nil
    ) {
        self.name = name
        self.description = description
        self.arguments = arguments
        self.type = type
        self.deprecationReason = deprecationReason
    }

    public func argument(_ name: String) -> InputValueDef? { arguments.first { $0.name == name } }
}

/// An argument or input field: its type and optional default value (as a literal).
public struct InputValueDef: Sendable {
    public let name: String
    public let description: String?
    public let type: TypeRef
    public let defaultValue: Value?
    public let deprecationReason: String?

    public init(
        name: String, description: String? = nil, type: TypeRef, defaultValue: Value? = nil,
        deprecationReason: String? = nil
    ) {
        self.name = name
        self.description = description
        self.type = type
        self.defaultValue = defaultValue
        self.deprecationReason = deprecationReason
    }

    /// Required: non-null with no default (spec §5.4.2.1).
    public var isRequired: Bool { type.isNonNull && defaultValue == nil }
}

/// A directive a schema defines, built in or custom (spec §3.13 Directives).
public struct DirectiveDef: Sendable {
    public let name: String
    public let description: String?
    public let arguments: [InputValueDef]
    public let isRepeatable: Bool
    public let locations: [DirectiveLocation]

    public init(
        name: String, description: String? = nil, arguments: [InputValueDef] = [], isRepeatable: Bool = false,
        locations: [DirectiveLocation]
    ) {
        self.name = name
        self.description = description
        self.arguments = arguments
        self.isRepeatable = isRepeatable
        self.locations = locations
    }

    public func argument(_ name: String) -> InputValueDef? { arguments.first { $0.name == name } }
}
