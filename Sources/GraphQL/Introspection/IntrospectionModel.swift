import JSON

/// The values introspection answers with, derived from a schema once (when its
/// `ExecutableSchema` is made) rather than per request: every leaf already a `JSON`
/// value (names, descriptions, kinds, printed default values), every `includeDeprecated`
/// list filtered both ways, every type reference linked to its type node without a
/// lookup by name. Depends on the schema alone, never on a query.
///
/// Type nodes refer to each other (and to themselves) through indices into `types`,
/// so the model holds no reference cycles. The list and non-null wrappers are interned:
/// every `[String!]` of the schema is the same node, so an execution that completes it
/// once with a selection can reuse the value (`IntrospectionExecution`).
final class IntrospectionModel: Sendable {
    /// A list or non-null wrapper of the type node `inner`.
    private struct WrapperKey: Hashable {
        let isNonNull: Bool
        let inner: Int
    }

    /// A list both ways: all items, and without the deprecated ones.
    struct Filtered<Item: Sendable>: Sendable {
        let all: [Item]
        let current: [Item]

        init(_ items: [Item], isDeprecated: (Item) -> Bool) {
            all = items
            current = items.filter { !isDeprecated($0) }
        }

        func items(includeDeprecated: Bool) -> [Item] { includeDeprecated ? all : current }
    }

    /// The fields of one `__Type` value; absent lists are nil (null in the response).
    /// Type references (`interfaces`, `possibleTypes`, `ofType`) are indices into `types`.
    final class TypeNode: Sendable {
        let kind: JSON
        let name: JSON
        let description: JSON
        let specifiedByURL: JSON
        let isOneOf: JSON
        let fields: Filtered<FieldNode>?
        let interfaces: [Int]?
        let possibleTypes: [Int]?
        let enumValues: Filtered<EnumValueNode>?
        let inputFields: Filtered<InputValueNode>?
        /// A wrapper's inner type; nil for named types.
        let ofType: Int?

        init(
            kind: String, name: JSON = .null, description: JSON = .null, specifiedByURL: JSON = .null,
            isOneOf: JSON = .null, fields: Filtered<FieldNode>? = nil, interfaces: [Int]? = nil,
            possibleTypes: [Int]? = nil, enumValues: Filtered<EnumValueNode>? = nil,
            inputFields: Filtered<InputValueNode>? = nil, ofType: Int? = nil
        ) {
            self.kind = .string(kind)
            self.name = name
            self.description = description
            self.specifiedByURL = specifiedByURL
            self.isOneOf = isOneOf
            self.fields = fields
            self.interfaces = interfaces
            self.possibleTypes = possibleTypes
            self.enumValues = enumValues
            self.inputFields = inputFields
            self.ofType = ofType
        }
    }

    /// A `__Field` value.
    final class FieldNode: Sendable {
        let name: JSON
        let description: JSON
        let args: Filtered<InputValueNode>
        /// An index into `types`.
        let type: Int
        let isDeprecated: JSON
        let deprecationReason: JSON

        init(name: JSON, description: JSON, args: Filtered<InputValueNode>, type: Int, deprecationReason: String?) {
            self.name = name
            self.description = description
            self.args = args
            self.type = type
            self.isDeprecated = .bool(deprecationReason != nil)
            self.deprecationReason = deprecationReason.map(JSON.string) ?? .null
        }
    }

    /// An `__InputValue` value.
    final class InputValueNode: Sendable {
        let name: JSON
        let description: JSON
        /// An index into `types`.
        let type: Int
        let defaultValue: JSON
        let isDeprecated: JSON
        let deprecationReason: JSON

        init(name: JSON, description: JSON, type: Int, defaultValue: JSON, deprecationReason: String?) {
            self.name = name
            self.description = description
            self.type = type
            self.defaultValue = defaultValue
            self.isDeprecated = .bool(deprecationReason != nil)
            self.deprecationReason = deprecationReason.map(JSON.string) ?? .null
        }
    }

    /// An `__EnumValue` value.
    final class EnumValueNode: Sendable {
        let name: JSON
        let description: JSON
        let isDeprecated: JSON
        let deprecationReason: JSON

        init(_ value: EnumValueDef) {
            name = .string(value.name)
            description = value.description.map(JSON.string) ?? .null
            isDeprecated = .bool(value.deprecationReason != nil)
            deprecationReason = value.deprecationReason.map(JSON.string) ?? .null
        }
    }

    /// A `__Directive` value.
    final class DirectiveNode: Sendable {
        let name: JSON
        let description: JSON
        let isRepeatable: JSON
        let locations: JSON
        let args: Filtered<InputValueNode>

        init(name: JSON, description: JSON, isRepeatable: Bool, locations: [DirectiveLocation], args: Filtered<InputValueNode>) {
            self.name = name
            self.description = description
            self.isRepeatable = .bool(isRepeatable)
            self.locations = .array(locations.map { .string($0.rawValue) })
            self.args = args
        }
    }

    /// The introspection object types, for field collection (fragment type conditions).
    struct ObjectTypes: Sendable {
        let schema: ObjectType
        let type: ObjectType
        let field: ObjectType
        let inputValue: ObjectType
        let enumValue: ObjectType
        let directive: ObjectType
    }

    /// The named types, in the schema's order (`namedTypeCount` of them), then the wrappers.
    let types: [TypeNode]
    let namedTypeCount: Int
    let typeIndex: [String: Int]
    let directives: [DirectiveNode]
    let description: JSON
    let queryType: Int
    let mutationType: Int?
    let subscriptionType: Int?
    let objectTypes: ObjectTypes

    /// Nil when the schema lacks an introspection type (it never does when built from SDL).
    init?(_ schema: GraphQLSchema) {
        func object(_ name: String) -> ObjectType? {
            if case .object(let object)? = schema.type(name) { return object }
            return nil
        }
        guard let schemaType = object("__Schema"), let typeType = object("__Type"), let fieldType = object("__Field"),
            let inputValueType = object("__InputValue"), let enumValueType = object("__EnumValue"),
            let directiveType = object("__Directive")
        else { return nil }
        objectTypes = ObjectTypes(
            schema: schemaType, type: typeType, field: fieldType, inputValue: inputValueType,
            enumValue: enumValueType, directive: directiveType)

        var typeIndex: [String: Int] = [:]
        for (index, type) in schema.types.enumerated() where typeIndex[type.name] == nil { typeIndex[type.name] = index }
        self.typeIndex = typeIndex
        let coercer = InputCoercer(schema: schema)

        /// Wrapper nodes (indices from `schema.types.count` on), one per kind and inner type.
        var wrappers: [TypeNode] = []
        var wrapperIndex: [WrapperKey: Int] = [:]
        func link(_ ref: TypeRef) -> Int {
            let key: WrapperKey
            switch ref {
            case .named(let name):
                // A schema that validated names only its own types.
                return typeIndex[name] ?? 0
            case .list(let inner): key = WrapperKey(isNonNull: false, inner: link(inner))
            case .nonNull(let inner): key = WrapperKey(isNonNull: true, inner: link(inner))
            }
            if let index = wrapperIndex[key] { return index }
            let index = schema.types.count + wrappers.count
            wrappers.append(TypeNode(kind: key.isNonNull ? "NON_NULL" : "LIST", ofType: key.inner))
            wrapperIndex[key] = index
            return index
        }
        func string(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
        func inputValue(_ input: InputValueDef) -> InputValueNode {
            var defaultValue = JSON.null
            if let literal = input.defaultValue {
                // The canonical literal of the coerced default (graphql-js astFromValue).
                if let value = coercer.literal(literal, type: input.type, variables: [:]),
                    let canonical = coercer.astFromValue(value, type: input.type)
                {
                    defaultValue = .string(print(canonical))
                } else {
                    defaultValue = .string(print(literal))
                }
            }
            return InputValueNode(
                name: .string(input.name), description: string(input.description), type: link(input.type),
                defaultValue: defaultValue, deprecationReason: input.deprecationReason)
        }
        func inputValues(_ inputs: [InputValueDef]) -> Filtered<InputValueNode> {
            Filtered(inputs.map(inputValue)) { $0.deprecationReason != .null }
        }
        func fields(_ object: ObjectType) -> Filtered<FieldNode> {
            let nodes = object.fields.map {
                FieldNode(
                    name: .string($0.name), description: string($0.description), args: inputValues($0.arguments),
                    type: link($0.type), deprecationReason: $0.deprecationReason)
            }
            return Filtered(nodes) { $0.deprecationReason != .null }
        }
        func indices(_ objects: [ObjectType]) -> [Int] { objects.map { typeIndex[$0.name] ?? 0 } }

        let named = schema.types.map { type in
            let name = JSON.string(type.name), description = string(type.description)
            switch type {
            case .scalar(let scalar):
                return TypeNode(kind: type.kind, name: name, description: description, specifiedByURL: string(scalar.specifiedByURL))
            case .object(let object), .interface(let object):
                let isInterface: Bool = { if case .interface = type { true } else { false } }()
                return TypeNode(
                    kind: type.kind, name: name, description: description, fields: fields(object),
                    interfaces: object.interfaces.map { typeIndex[$0] ?? 0 },
                    possibleTypes: isInterface ? indices(schema.possibleTypes(object.name)) : nil)
            case .union(let union):
                return TypeNode(
                    kind: type.kind, name: name, description: description,
                    possibleTypes: indices(schema.possibleTypes(union.name)))
            case .enumType(let enumType):
                return TypeNode(
                    kind: type.kind, name: name, description: description,
                    enumValues: Filtered(enumType.values.map(EnumValueNode.init)) { $0.deprecationReason != .null })
            case .inputObject(let input):
                return TypeNode(
                    kind: type.kind, name: name, description: description, isOneOf: .bool(input.isOneOf),
                    inputFields: inputValues(input.fields))
            }
        }
        namedTypeCount = named.count
        directives = schema.directives.map {
            DirectiveNode(
                name: .string($0.name), description: string($0.description), isRepeatable: $0.isRepeatable,
                locations: $0.locations, args: inputValues($0.arguments))
        }
        types = named + wrappers
        description = string(schema.description)
        queryType = typeIndex[schema.queryType.name] ?? 0
        mutationType = schema.mutationType.flatMap { typeIndex[$0.name] }
        subscriptionType = schema.subscriptionType.flatMap { typeIndex[$0.name] }
    }
}
