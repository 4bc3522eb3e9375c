// Type system definitions and extensions (spec §3). An extension reuses the
// definition's node with no description; `Definition` records which it is.

/// SchemaDefinition : Description? schema Directives[Const]? { RootOperationTypeDefinition+ }
/// SchemaExtension : extend schema Directives[Const]? { RootOperationTypeDefinition+ } | extend schema Directives[Const]
public struct SchemaDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var directives: [Directive]
    public var operationTypes: [RootOperationTypeDefinition]
    public var span: Span

    public init(
        description: StringValue? = nil, directives: [Directive] = [],
        operationTypes: [RootOperationTypeDefinition] = [], span: Span = .synthetic
    ) {
        self.description = description
        self.directives = directives
        self.operationTypes = operationTypes
        self.span = span
    }
}

/// RootOperationTypeDefinition : OperationType : NamedType
public struct RootOperationTypeDefinition: Sendable, Hashable {
    public var operation: OperationType
    public var type: Name
    public var span: Span

    public init(operation: OperationType, type: Name, span: Span = .synthetic) {
        self.operation = operation
        self.type = type
        self.span = span
    }
}

/// TypeDefinition : ScalarTypeDefinition | ObjectTypeDefinition | InterfaceTypeDefinition
///   | UnionTypeDefinition | EnumTypeDefinition | InputObjectTypeDefinition
public enum TypeDefinition: Sendable, Hashable {
    case scalar(ScalarTypeDefinition)
    case object(ObjectTypeDefinition)
    case interface(InterfaceTypeDefinition)
    case union(UnionTypeDefinition)
    case enumType(EnumTypeDefinition)
    case inputObject(InputObjectTypeDefinition)

    public var name: Name {
        switch self {
        case .scalar(let node): node.name
        case .object(let node): node.name
        case .interface(let node): node.name
        case .union(let node): node.name
        case .enumType(let node): node.name
        case .inputObject(let node): node.name
        }
    }

    public var span: Span {
        switch self {
        case .scalar(let node): node.span
        case .object(let node): node.span
        case .interface(let node): node.span
        case .union(let node): node.span
        case .enumType(let node): node.span
        case .inputObject(let node): node.span
        }
    }

    public var directives: [Directive] {
        switch self {
        case .scalar(let node): node.directives
        case .object(let node): node.directives
        case .interface(let node): node.directives
        case .union(let node): node.directives
        case .enumType(let node): node.directives
        case .inputObject(let node): node.directives
        }
    }

    public var description: StringValue? {
        switch self {
        case .scalar(let node): node.description
        case .object(let node): node.description
        case .interface(let node): node.description
        case .union(let node): node.description
        case .enumType(let node): node.description
        case .inputObject(let node): node.description
        }
    }
}

/// ScalarTypeDefinition : Description? scalar Name Directives[Const]?
public struct ScalarTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var span: Span

    public init(description: StringValue? = nil, name: Name, directives: [Directive] = [], span: Span = .synthetic) {
        self.description = description
        self.name = name
        self.directives = directives
        self.span = span
    }
}

/// ObjectTypeDefinition : Description? type Name ImplementsInterfaces? Directives[Const]? FieldsDefinition?
public struct ObjectTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var interfaces: [Name]
    public var directives: [Directive]
    public var fields: [FieldDefinition]
    public var span: Span

    public init(
        description: StringValue? = nil, name: Name, interfaces: [Name] = [], directives: [Directive] = [],
        fields: [FieldDefinition] = [], span: Span = .synthetic
    ) {
        self.description = description
        self.name = name
        self.interfaces = interfaces
        self.directives = directives
        self.fields = fields
        self.span = span
    }
}

/// InterfaceTypeDefinition : Description? interface Name ImplementsInterfaces? Directives[Const]? FieldsDefinition?
public typealias InterfaceTypeDefinition = ObjectTypeDefinition

/// FieldDefinition : Description? Name ArgumentsDefinition? : Type Directives[Const]?
public struct FieldDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var arguments: [InputValueDefinition]
    public var type: TypeReference
    public var directives: [Directive]
    public var span: Span

    public init(
        description: StringValue? = nil, name: Name, arguments: [InputValueDefinition] = [],
        type: TypeReference, directives: [Directive] = [], span: Span = .synthetic
    ) {
        self.description = description
        self.name = name
        self.arguments = arguments
        self.type = type
        self.directives = directives
        self.span = span
    }
}

/// InputValueDefinition : Description? Name : Type DefaultValue? Directives[Const]?
public struct InputValueDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var type: TypeReference
    public var defaultValue: Value?
    public var directives: [Directive]
    public var span: Span

    public init(
        description: StringValue? = nil, name: Name, type: TypeReference, defaultValue: Value? = nil,
        directives: [Directive] = [], span: Span = .synthetic
    ) {
        self.description = description
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.directives = directives
        self.span = span
    }
}

/// UnionTypeDefinition : Description? union Name Directives[Const]? UnionMemberTypes?
public struct UnionTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var types: [Name]
    public var span: Span

    public init(description: StringValue? = nil, name: Name, directives: [Directive] = [], types: [Name] = [], span: Span = .synthetic) {
        self.description = description
        self.name = name
        self.directives = directives
        self.types = types
        self.span = span
    }
}

/// EnumTypeDefinition : Description? enum Name Directives[Const]? EnumValuesDefinition?
public struct EnumTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var values: [EnumValueDefinition]
    public var span: Span

    public init(
        description: StringValue? = nil, name: Name, directives: [Directive] = [],
        values: [EnumValueDefinition] = [], span: Span = .synthetic
    ) {
        self.description = description
        self.name = name
        self.directives = directives
        self.values = values
        self.span = span
    }
}

/// EnumValueDefinition : Description? EnumValue Directives[Const]?
public struct EnumValueDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var span: Span

    public init(description: StringValue? = nil, name: Name, directives: [Directive] = [], span: Span = .synthetic) {
        self.description = description
        self.name = name
        self.directives = directives
        self.span = span
    }
}

/// InputObjectTypeDefinition : Description? input Name Directives[Const]? InputFieldsDefinition?
public struct InputObjectTypeDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var directives: [Directive]
    public var fields: [InputValueDefinition]
    public var span: Span

    public init(
        description: StringValue? = nil, name: Name, directives: [Directive] = [],
        fields: [InputValueDefinition] = [], span: Span = .synthetic
    ) {
        self.description = description
        self.name = name
        self.directives = directives
        self.fields = fields
        self.span = span
    }
}

/// DirectiveDefinition : Description? directive @ Name ArgumentsDefinition? `repeatable`? on DirectiveLocations
public struct DirectiveDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var arguments: [InputValueDefinition]
    public var isRepeatable: Bool
    public var locations: [Name]
    public var span: Span

    public init(
        description: StringValue? = nil, name: Name, arguments: [InputValueDefinition] = [],
        isRepeatable: Bool = false, locations: [Name], span: Span = .synthetic
    ) {
        self.description = description
        self.name = name
        self.arguments = arguments
        self.isRepeatable = isRepeatable
        self.locations = locations
        self.span = span
    }
}

/// DirectiveLocation : ExecutableDirectiveLocation | TypeSystemDirectiveLocation
public enum DirectiveLocation: String, Sendable, Hashable, CaseIterable {
    case query = "QUERY", mutation = "MUTATION", subscription = "SUBSCRIPTION", field = "FIELD"
    case fragmentDefinition = "FRAGMENT_DEFINITION", fragmentSpread = "FRAGMENT_SPREAD"
    case inlineFragment = "INLINE_FRAGMENT", variableDefinition = "VARIABLE_DEFINITION"
    case schema = "SCHEMA", scalar = "SCALAR", object = "OBJECT", fieldDefinition = "FIELD_DEFINITION"
    case argumentDefinition = "ARGUMENT_DEFINITION", interface = "INTERFACE", union = "UNION"
    case enumType = "ENUM", enumValue = "ENUM_VALUE", inputObject = "INPUT_OBJECT"
    case inputFieldDefinition = "INPUT_FIELD_DEFINITION"

    /// Whether the location is in an executable document (not a type system one).
    public var isExecutable: Bool {
        switch self {
        case .query, .mutation, .subscription, .field, .fragmentDefinition, .fragmentSpread,
            .inlineFragment, .variableDefinition:
            true
        default:
            false
        }
    }
}
