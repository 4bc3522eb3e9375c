/// Tracks the schema types at each point of a walk over an executable document, as
/// graphql-js's `TypeInfo` does: the output type and parent composite type of the
/// current selection, the field, directive and argument being visited, and the input
/// type and default value expected for the current value literal.
///
/// A `nil` entry means "unknown here" (an unknown field, type or argument); rules
/// treat unknown positions as already reported by another rule.
///
/// Each entry keeps the named type of its type reference, resolved once when it is
/// pushed, so that rules and nested selections need no second lookup by name. A value
/// type: the walk's dispatcher owns it, and entering and leaving nodes allocates only
/// when a stack first grows.
struct TypeInfo {
    let schema: GraphQLSchema
    /// The output type of each enclosing field, operation or fragment. The reference is
    /// nil for operations and fragments (whose type is a named type, built on demand).
    ///
    /// Each named type comes with its position among the schema's composite types
    /// (`ValidationIndex`), through which a field's type is found by position.
    private var outputs: [(ref: TypeRef?, named: NamedType?, composite: Int)] = []
    private var parentTypes: [(named: NamedType?, composite: Int)] = []
    private let index: ValidationIndex
    private var inputs: [(type: TypeRef?, named: NamedType?, defaultValue: Value?)] = []
    /// The name and arguments of each enclosing field's definition (not the whole
    /// definition, whose copies cost more than the lookups).
    private var fieldDefs: [(name: String, arguments: [InputValueDef])?] = []
    private(set) var directive: DirectiveDef?
    private(set) var argument: InputValueDef?

    init(schema: GraphQLSchema) {
        self.schema = schema
        self.index = schema.validationIndex
    }

    /// The output type of the current field, operation or fragment.
    var type: TypeRef? {
        guard let top = outputs.last else { return nil }
        return top.ref ?? top.named.map { .named($0.name) }
    }
    /// The named type of `type`.
    var namedType: NamedType? { outputs.last?.named ?? nil }
    /// The composite type whose selection set is being visited.
    var parentType: NamedType? { parentTypes.last?.named ?? nil }
    /// The input type expected at the current argument, list item or object field.
    var inputType: TypeRef? { inputs.last?.type ?? nil }
    /// The named type of `inputType`.
    var inputNamedType: NamedType? { inputs.last?.named ?? nil }
    /// The input type of the enclosing value (the list or input object).
    var parentInputType: TypeRef? { inputs.count >= 2 ? inputs[inputs.count - 2].type : nil }
    /// The named type of `parentInputType`.
    var parentInputNamedType: NamedType? { inputs.count >= 2 ? inputs[inputs.count - 2].named : nil }
    /// Whether the field being visited has a definition (is known on its parent type).
    var hasFieldDef: Bool {
        let count = fieldDefs.count
        return count > 0 && fieldDefs[count - 1] != nil
    }
    /// Whether `namedType` is a leaf type; nil when it is unknown.
    var namedTypeIsLeaf: Bool? {
        let count = outputs.count
        guard count > 0 else { return nil }
        switch outputs[count - 1].named {
        case .scalar?, .enumType?: return true
        case nil: return nil
        default: return false
        }
    }
    /// The name of the definition of the field being visited.
    var fieldName: String? { fieldDefs.last??.name }
    /// The arguments of the definition of the field being visited.
    var fieldArguments: [InputValueDef]? { fieldDefs.last??.arguments }
    /// The default value of the current argument or input field, if it has one.
    var defaultValue: Value? { inputs.last?.defaultValue ?? nil }

    // MARK: Meta-fields (spec §4.1 and §4.2), known wherever graphql-js's TypeInfo knows them.

    static let schemaMetaField = FieldDef(
        name: "__schema", description: "Access the current type schema of this server.",
        type: .nonNull(.named("__Schema")))
    static let typeMetaField = FieldDef(
        name: "__type", description: "Request the type information of a single type.",
        arguments: [InputValueDef(name: "name", type: .nonNull(.named("String")))], type: .named("__Type"))
    static let typenameMetaField = FieldDef(
        name: "__typename", description: "The name of the current Object type at runtime.",
        type: .nonNull(.named("String")))

    /// The schema type of a syntax-tree type, or nil when its named type is unknown.
    func typeRef(_ node: TypeReference) -> TypeRef? {
        schema.type(node.namedType.value) == nil ? nil : TypeRef(node)
    }

    func named(_ ref: TypeRef?) -> NamedType? { ref.flatMap { schema.type($0.namedType) } }
    func isInputType(_ ref: TypeRef?) -> Bool { named(ref)?.isInputType ?? false }
    func isOutputType(_ ref: TypeRef?) -> Bool { named(ref)?.isOutputType ?? false }

    // MARK: Entering and leaving nodes

    /// The stacks start with room for a typical document's nesting, so that they are
    /// allocated once instead of growing one element at a time.
    private static let initialCapacity = 16

    /// Pushes an output type: `ref` (nil for an operation or fragment, whose type is
    /// the named type) resolved to `resolved`, or unknown when that is not an output type.
    private mutating func pushOutput(_ ref: TypeRef?, _ resolved: ValidationIndex.Resolved?) {
        if outputs.capacity == 0 { outputs.reserveCapacity(Self.initialCapacity) }
        if let resolved, resolved.type.isOutputType {
            outputs.append((ref, resolved.type, resolved.composite))
        } else {
            outputs.append((nil, nil, -1))
        }
    }

    /// The arguments and type of field `name` on `parentType` (the composite type at
    /// `composite`), including meta-fields, with the named type it returns.
    private func resolveField(_ name: String, on parentType: NamedType, _ composite: Int)
        -> (arguments: [InputValueDef], type: TypeRef, resolved: ValidationIndex.Resolved?)?
    {
        if name.utf8.first == UInt8(ascii: "_") {
            if name == "__schema" || name == "__type", parentType.name == schema.queryType.name,
                case .object = parentType
            {
                return name == "__schema"
                    ? ([], Self.schemaMetaField.type, index.schemaMetaType)
                    : (Self.typeMetaField.arguments, Self.typeMetaField.type, index.typeMetaType)
            }
            if name == "__typename", parentType.isComposite { return ([], Self.typenameMetaField.type, index.typenameMetaType) }
        }
        let object: ObjectType
        switch parentType {
        case .object(let type), .interface(let type): object = type
        default: return nil
        }
        guard let position = object.fieldPosition(name) else { return nil }
        let fieldTypes = index.fieldTypes[composite]
        // Two projections rather than a copy of the whole definition.
        return (object.fields[position].arguments, object.fields[position].type,
                position < fieldTypes.count ? fieldTypes[position] : nil)
    }

    private mutating func pushInput(_ type: TypeRef?, _ defaultValue: Value?) {
        if inputs.capacity == 0 { inputs.reserveCapacity(Self.initialCapacity) }
        let named = type.flatMap { schema.type($0.namedType) }
        if let named, named.isInputType { inputs.append((type, named, defaultValue)) } else { inputs.append((nil, nil, defaultValue)) }
    }

    mutating func enterField(_ field: Field) {
        if fieldDefs.capacity == 0 { fieldDefs.reserveCapacity(Self.initialCapacity) }
        if let parent = parentTypes.last, let parentType = parent.named,
            let def = resolveField(field.name.value, on: parentType, parent.composite)
        {
            fieldDefs.append((field.name.value, def.arguments))
            pushOutput(def.type, def.resolved)
        } else {
            fieldDefs.append(nil)
            pushOutput(nil, nil)
        }
    }

    mutating func leaveField() {
        fieldDefs.removeLast()
        outputs.removeLast()
    }

    mutating func enter(_ node: VisitNode) {
        switch node {
        case .selectionSet:
            if parentTypes.capacity == 0 { parentTypes.reserveCapacity(Self.initialCapacity) }
            if let top = outputs.last, let named = top.named, named.isComposite {
                parentTypes.append((named, top.composite))
            } else {
                parentTypes.append((nil, -1))
            }
        case .field(let field):
            enterField(field)
        case .directive(let node, _):
            directive = schema.directive(node.name.value)
        case .operation(let operation):
            pushOutput(nil, index.root(operation.operation))
        case .inlineFragment(let fragment):
            if let condition = fragment.typeCondition {
                pushOutput(nil, index.byName[condition.value])
            } else if let top = outputs.last, let named = top.named {
                pushOutput(nil, ValidationIndex.Resolved(type: named, composite: top.composite))
            } else {
                pushOutput(nil, nil)
            }
        case .fragmentDefinition(let fragment):
            pushOutput(nil, index.byName[fragment.typeCondition.value])
        case .variableDefinition(let definition):
            // No argument encloses a variable definition: its default value is nil.
            if inputs.capacity == 0 { inputs.reserveCapacity(Self.initialCapacity) }
            if let named = schema.type(definition.type.namedType.value), named.isInputType {
                inputs.append((TypeRef(definition.type), named, nil))
            } else {
                inputs.append((nil, nil, nil))
            }
        case .argument(let node):
            let arguments = directive?.arguments ?? fieldArguments ?? []
            let def = arguments.first { $0.name == node.name.value }
            argument = def
            pushInput(def?.type, def?.defaultValue)
        case .value(let value):
            if case .list = value.kind {
                let listType = inputType?.nullable
                if case .list(let inner)? = listType {
                    pushInput(inner, nil)
                } else {
                    pushInput(listType, nil)
                }
            }
        case .objectField(let node):
            if case .inputObject(let object)? = inputNamedType, let field = object.field(node.name.value) {
                pushInput(field.type, field.defaultValue)
            } else {
                inputs.append((nil, nil, nil))
            }
        case .document, .fragmentSpread, .namedType:
            break
        }
    }

    mutating func leave(_ node: VisitNode) {
        switch node {
        case .selectionSet: parentTypes.removeLast()
        case .field:
            leaveField()
        case .directive: directive = nil
        case .operation, .inlineFragment, .fragmentDefinition: outputs.removeLast()
        case .variableDefinition: inputs.removeLast()
        case .argument:
            argument = nil
            inputs.removeLast()
        case .value(let value):
            if case .list = value.kind { inputs.removeLast() }
        case .objectField:
            inputs.removeLast()
        case .document, .fragmentSpread, .namedType:
            break
        }
    }
}
