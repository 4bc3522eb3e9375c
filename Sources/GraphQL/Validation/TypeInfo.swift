/// Tracks the schema types at each point of a walk over an executable document, as
/// graphql-js's `TypeInfo` does: the output type and parent composite type of the
/// current selection, the field, directive and argument being visited, and the input
/// type and default value expected for the current value literal.
///
/// A `nil` entry means "unknown here" (an unknown field, type or argument); rules
/// treat unknown positions as already reported by another rule.
///
/// The output stacks hold numbers from the schema's `ValidationIndex`, resolved once
/// when pushed, so that rules and nested selections need no second lookup by name and
/// a field costs no reference counting. A value type: the walk's dispatcher owns it,
/// and entering and leaving nodes allocates only when a stack first grows.
struct TypeInfo {
    let schema: GraphQLSchema
    private let index: ValidationIndex
    /// The output type of each enclosing field, operation or fragment: the number of its
    /// named type (`ValidationIndex.types`) and of the field (`ValidationIndex.fields`),
    /// -1 when unknown or, for operations and fragments, when there is no field.
    private var outputs: [(type: Int32, field: Int32)] = []
    /// The number of the composite type of each enclosing selection set (-1: unknown).
    private var parentTypes: [Int32] = []
    private var inputs: [(type: TypeRef?, named: NamedType?, defaultValue: Value?)] = []
    /// The number of each enclosing field's definition (-1: unknown).
    private var fieldDefs: [Int32] = []
    private(set) var directive: DirectiveDef?
    private(set) var argument: InputValueDef?

    init(schema: GraphQLSchema) {
        self.schema = schema
        self.index = schema.validationIndex
    }

    /// The output type of the current field, operation or fragment.
    var type: TypeRef? {
        guard let top = outputs.last, top.type >= 0 else { return nil }
        return top.field >= 0 ? index.fields[Int(top.field)].type : .named(index.types[Int(top.type)].type.name)
    }
    /// The named type of `type`.
    var namedType: NamedType? {
        guard let top = outputs.last, top.type >= 0 else { return nil }
        return index.types[Int(top.type)].type
    }
    /// The composite type whose selection set is being visited.
    var parentType: NamedType? {
        guard let top = parentTypes.last, top >= 0 else { return nil }
        return index.types[Int(top)].type
    }
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
        return count > 0 && fieldDefs[count - 1] >= 0
    }
    /// Whether `namedType` is a leaf type; nil when it is unknown.
    var namedTypeIsLeaf: Bool? {
        let count = outputs.count
        guard count > 0, outputs[count - 1].type >= 0 else { return nil }
        return index.types[Int(outputs[count - 1].type)].isLeaf
    }
    /// The definition of the field being visited, when it has one.
    private var fieldDef: ValidationIndex.FieldEntry? {
        guard let top = fieldDefs.last, top >= 0 else { return nil }
        return index.fields[Int(top)]
    }
    /// The name of the definition of the field being visited.
    var fieldName: String? { fieldDef?.name }
    /// The arguments of the definition of the field being visited.
    var fieldArguments: [InputValueDef]? { fieldDef?.arguments }
    /// Whether the definition of the field being visited has a required argument.
    var fieldHasRequiredArguments: Bool {
        let count = fieldDefs.count
        guard count > 0, fieldDefs[count - 1] >= 0 else { return false }
        return index.fields[Int(fieldDefs[count - 1])].hasRequiredArguments
    }
    /// The default value of the current argument or input field, if it has one.
    var defaultValue: Value? { inputs.last?.defaultValue ?? nil }

    /// The schema's type named `name` (as `GraphQLSchema.type(_:)`, found by number).
    func namedType(_ name: String) -> NamedType? {
        let number = index.typeNumber(name)
        return number < 0 ? nil : index.types[number].type
    }

    /// The schema type of a syntax-tree type, or nil when its named type is unknown.
    func typeRef(_ node: TypeReference) -> TypeRef? {
        index.typeNumber(node.namedType.value) < 0 ? nil : TypeRef(node)
    }

    // MARK: Entering and leaving nodes

    /// The stacks start with room for a typical document's nesting, so that they are
    /// allocated once instead of growing one element at a time.
    private static let initialCapacity = 16

    /// Pushes an output type: the type numbered `type` (-1: unknown) returned by the
    /// field numbered `field` (-1: an operation or fragment), or unknown when that is not
    /// an output type.
    private mutating func pushOutput(_ type: Int, field: Int = -1) {
        if outputs.capacity == 0 { outputs.reserveCapacity(Self.initialCapacity) }
        if type >= 0, index.types[type].isOutputType {
            outputs.append((Int32(type), Int32(field)))
        } else {
            outputs.append((-1, -1))
        }
    }

    private mutating func pushInput(_ type: TypeRef?, _ defaultValue: Value?) {
        if inputs.capacity == 0 { inputs.reserveCapacity(Self.initialCapacity) }
        let named = type.flatMap { type in
            let number = index.typeNumber(type.namedType)
            return number < 0 ? nil : index.types[number].type
        }
        if let named, named.isInputType { inputs.append((type, named, defaultValue)) } else { inputs.append((nil, nil, defaultValue)) }
    }

    mutating func enterField(_ field: Field) {
        if fieldDefs.capacity == 0 { fieldDefs.reserveCapacity(Self.initialCapacity) }
        if let parent = parentTypes.last, parent >= 0, let number = index.field(field.name.value, on: Int(parent)) {
            fieldDefs.append(Int32(number))
            pushOutput(index.fields[number].typeNumber, field: number)
        } else {
            fieldDefs.append(-1)
            pushOutput(-1)
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
            if let top = outputs.last, top.type >= 0, index.types[Int(top.type)].composite >= 0 {
                parentTypes.append(top.type)
            } else {
                parentTypes.append(-1)
            }
        case .field(let field):
            enterField(field)
        case .directive(let node, _):
            directive = schema.directive(node.name.value)
        case .operation(let operation):
            pushOutput(index.root(operation.operation))
        case .inlineFragment(let fragment):
            if let condition = fragment.typeCondition {
                pushOutput(index.typeNumber(condition.value))
            } else {
                pushOutput(Int(outputs.last?.type ?? -1))
            }
        case .fragmentDefinition(let fragment):
            pushOutput(index.typeNumber(fragment.typeCondition.value))
        case .variableDefinition(let definition):
            // No argument encloses a variable definition: its default value is nil.
            if inputs.capacity == 0 { inputs.reserveCapacity(Self.initialCapacity) }
            let number = index.typeNumber(definition.type.namedType.value)
            if number >= 0, index.types[number].type.isInputType {
                inputs.append((TypeRef(definition.type), index.types[number].type, nil))
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
