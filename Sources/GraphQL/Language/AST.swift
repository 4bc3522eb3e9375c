// The syntax tree of a GraphQL document (spec §2 Language and §3 Type System).
// Every node is a Sendable, Hashable value carrying the byte span it was parsed
// from; spans are ignored by equality (see `Span`).

/// Document : Definition+
public struct Document: Sendable, Hashable {
    public var definitions: [Definition]
    public var span: Span

    public init(definitions: [Definition], span: Span = .synthetic) {
        self.definitions = definitions
        self.span = span
    }
}

/// Definition : ExecutableDefinition | TypeSystemDefinitionOrExtension
public enum Definition: Sendable, Hashable {
    case operation(OperationDefinition)
    case fragment(FragmentDefinition)
    case schema(SchemaDefinition)
    case type(TypeDefinition)
    case directive(DirectiveDefinition)
    case schemaExtension(SchemaDefinition)
    case typeExtension(TypeDefinition)

    public var span: Span {
        switch self {
        case .operation(let node): node.span
        case .fragment(let node): node.span
        case .schema(let node), .schemaExtension(let node): node.span
        case .type(let node), .typeExtension(let node): node.span
        case .directive(let node): node.span
        }
    }

    /// Whether this is an ExecutableDefinition (an operation or a fragment).
    public var isExecutable: Bool {
        switch self {
        case .operation, .fragment: true
        default: false
        }
    }
}

/// A name, with the span it was written at.
public struct Name: Sendable, Hashable, CustomStringConvertible {
    public var value: String
    public var span: Span

    public init(_ value: String, span: Span = .synthetic) {
        self.value = value
        self.span = span
    }

    public var description: String { value }
}

/// OperationType : one of `query` `mutation` `subscription`
public enum OperationType: String, Sendable, Hashable, CaseIterable {
    case query, mutation, subscription
}

/// OperationDefinition : Description? OperationType Name? VariablesDefinition? Directives? SelectionSet | SelectionSet
public struct OperationDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var operation: OperationType
    public var name: Name?
    public var variableDefinitions: [VariableDefinition]
    public var directives: [Directive]
    public var selectionSet: SelectionSet
    public var span: Span

    public init(
        description: StringValue? = nil, operation: OperationType, name: Name? = nil,
        variableDefinitions: [VariableDefinition] = [], directives: [Directive] = [],
        selectionSet: SelectionSet, span: Span = .synthetic
    ) {
        self.description = description
        self.operation = operation
        self.name = name
        self.variableDefinitions = variableDefinitions
        self.directives = directives
        self.selectionSet = selectionSet
        self.span = span
    }
}

/// VariableDefinition : Description? Variable : Type DefaultValue? Directives[Const]?
public struct VariableDefinition: Sendable, Hashable {
    public var description: StringValue?
    /// The variable's name, without the `$`.
    public var variable: Name
    public var type: TypeReference
    public var defaultValue: Value?
    public var directives: [Directive]
    public var span: Span

    public init(
        description: StringValue? = nil, variable: Name, type: TypeReference, defaultValue: Value? = nil,
        directives: [Directive] = [], span: Span = .synthetic
    ) {
        self.description = description
        self.variable = variable
        self.type = type
        self.defaultValue = defaultValue
        self.directives = directives
        self.span = span
    }
}

/// SelectionSet : { Selection+ }
public struct SelectionSet: Sendable, Hashable {
    public var selections: [Selection]
    public var span: Span

    public init(selections: [Selection], span: Span = .synthetic) {
        self.selections = selections
        self.span = span
    }
}

/// Selection : Field | FragmentSpread | InlineFragment
public enum Selection: Sendable, Hashable {
    case field(Field)
    case fragmentSpread(FragmentSpread)
    case inlineFragment(InlineFragment)

    public var span: Span {
        switch self {
        case .field(let node): node.span
        case .fragmentSpread(let node): node.span
        case .inlineFragment(let node): node.span
        }
    }

    public var directives: [Directive] {
        switch self {
        case .field(let node): node.directives
        case .fragmentSpread(let node): node.directives
        case .inlineFragment(let node): node.directives
        }
    }
}

/// Field : Alias? Name Arguments? Directives? SelectionSet?
public struct Field: Sendable, Hashable {
    public var alias: Name?
    public var name: Name
    public var arguments: [Argument]
    public var directives: [Directive]
    public var selectionSet: SelectionSet?
    public var span: Span

    public init(
        alias: Name? = nil, name: Name, arguments: [Argument] = [], directives: [Directive] = [],
        selectionSet: SelectionSet? = nil, span: Span = .synthetic
    ) {
        self.alias = alias
        self.name = name
        self.arguments = arguments
        self.directives = directives
        self.selectionSet = selectionSet
        self.span = span
    }

    /// The key of this field in the response: the alias, or else the name.
    public var responseKey: String { alias?.value ?? name.value }
}

/// Argument : Name : Value
public struct Argument: Sendable, Hashable {
    public var name: Name
    public var value: Value
    public var span: Span

    public init(name: Name, value: Value, span: Span = .synthetic) {
        self.name = name
        self.value = value
        self.span = span
    }
}

/// FragmentSpread : ... FragmentName Directives?
public struct FragmentSpread: Sendable, Hashable {
    public var name: Name
    public var directives: [Directive]
    public var span: Span

    public init(name: Name, directives: [Directive] = [], span: Span = .synthetic) {
        self.name = name
        self.directives = directives
        self.span = span
    }
}

/// InlineFragment : ... TypeCondition? Directives? SelectionSet
public struct InlineFragment: Sendable, Hashable {
    public var typeCondition: Name?
    public var directives: [Directive]
    public var selectionSet: SelectionSet
    public var span: Span

    public init(typeCondition: Name? = nil, directives: [Directive] = [], selectionSet: SelectionSet, span: Span = .synthetic) {
        self.typeCondition = typeCondition
        self.directives = directives
        self.selectionSet = selectionSet
        self.span = span
    }
}

/// FragmentDefinition : Description? fragment FragmentName TypeCondition Directives? SelectionSet
public struct FragmentDefinition: Sendable, Hashable {
    public var description: StringValue?
    public var name: Name
    public var typeCondition: Name
    public var directives: [Directive]
    public var selectionSet: SelectionSet
    public var span: Span

    public init(
        description: StringValue? = nil, name: Name, typeCondition: Name, directives: [Directive] = [],
        selectionSet: SelectionSet, span: Span = .synthetic
    ) {
        self.description = description
        self.name = name
        self.typeCondition = typeCondition
        self.directives = directives
        self.selectionSet = selectionSet
        self.span = span
    }
}

/// Value[Const] : Variable | IntValue | FloatValue | StringValue | BooleanValue | NullValue | EnumValue | ListValue | ObjectValue
public struct Value: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// A variable, named without the `$`.
        case variable(String)
        /// An integer as written (`-0`, `123`).
        case int(String)
        /// A float as written (`1.5e3`).
        case float(String)
        /// A string's value; `block` records whether it was written as a block string.
        case string(String, block: Bool)
        case boolean(Bool)
        case null
        case enumValue(String)
        case list([Value])
        case object([ObjectField])
    }

    public var kind: Kind
    public var span: Span

    public init(_ kind: Kind, span: Span = .synthetic) {
        self.kind = kind
        self.span = span
    }
}

/// ObjectField : Name : Value
public struct ObjectField: Sendable, Hashable {
    public var name: Name
    public var value: Value
    public var span: Span

    public init(name: Name, value: Value, span: Span = .synthetic) {
        self.name = name
        self.value = value
        self.span = span
    }
}

/// A string literal used as a description.
public struct StringValue: Sendable, Hashable {
    public var value: String
    public var block: Bool
    public var span: Span

    public init(_ value: String, block: Bool = false, span: Span = .synthetic) {
        self.value = value
        self.block = block
        self.span = span
    }
}

/// Type : NamedType | ListType | NonNullType
///
/// Only the wrapping cases are indirect: a named type (most type references) is held
/// inline, so `String` costs no allocation and `ID!` one rather than two.
public enum TypeReference: Sendable, Hashable, CustomStringConvertible {
    case named(Name)
    indirect case list(TypeReference, span: Span)
    /// NonNullType : NamedType ! | ListType ! (never wraps another non-null type)
    indirect case nonNull(TypeReference, span: Span)

    /// The innermost named type.
    public var namedType: Name {
        switch self {
        case .named(let name): name
        case .list(let inner, _), .nonNull(let inner, _): inner.namedType
        }
    }

    public var span: Span {
        switch self {
        case .named(let name): name.span
        case .list(_, let span), .nonNull(_, let span): span
        }
    }

    public var description: String {
        switch self {
        case .named(let name): name.value
        case .list(let inner, _): "[\(inner)]"
        case .nonNull(let inner, _): "\(inner)!"
        }
    }
}

/// Directive[Const] : @ Name Arguments[?Const]?
public struct Directive: Sendable, Hashable {
    public var name: Name
    public var arguments: [Argument]
    public var span: Span

    public init(name: Name, arguments: [Argument] = [], span: Span = .synthetic) {
        self.name = name
        self.arguments = arguments
        self.span = span
    }
}
