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
    private var outputs: [(ref: TypeRef?, named: NamedType?)] = []
    private var parentTypes: [NamedType?] = []
    private var inputs: [(type: TypeRef?, named: NamedType?, defaultValue: Value?)] = []
    private var fieldDefs: [FieldDef?] = []
    private(set) var directive: DirectiveDef?
    private(set) var argument: InputValueDef?

    init(schema: GraphQLSchema) { self.schema = schema }

    /// The output type of the current field, operation or fragment.
    var type: TypeRef? {
        guard let top = outputs.last else { return nil }
        return top.ref ?? top.named.map { .named($0.name) }
    }
    /// The named type of `type`.
    var namedType: NamedType? { outputs.last?.named ?? nil }
    /// The composite type whose selection set is being visited.
    var parentType: NamedType? { parentTypes.last ?? nil }
    /// The input type expected at the current argument, list item or object field.
    var inputType: TypeRef? { inputs.last?.type ?? nil }
    /// The named type of `inputType`.
    var inputNamedType: NamedType? { inputs.last?.named ?? nil }
    /// The input type of the enclosing value (the list or input object).
    var parentInputType: TypeRef? { inputs.count >= 2 ? inputs[inputs.count - 2].type : nil }
    /// The named type of `parentInputType`.
    var parentInputNamedType: NamedType? { inputs.count >= 2 ? inputs[inputs.count - 2].named : nil }
    /// The definition of the field being visited.
    var fieldDef: FieldDef? { fieldDefs.last ?? nil }
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

    /// The definition of field `name` on `parentType`, including meta-fields.
    func fieldDef(_ name: String, on parentType: NamedType) -> FieldDef? {
        if name == "__schema" || name == "__type", parentType.name == schema.queryType.name,
            case .object = parentType
        {
            return name == "__schema" ? Self.schemaMetaField : Self.typeMetaField
        }
        if name == "__typename", parentType.isComposite { return Self.typenameMetaField }
        return parentType.field(name)
    }

    /// The schema type of a syntax-tree type, or nil when its named type is unknown.
    func typeRef(_ node: TypeReference) -> TypeRef? {
        schema.type(node.namedType.value) == nil ? nil : TypeRef(node)
    }

    func named(_ ref: TypeRef?) -> NamedType? { ref.flatMap { schema.type($0.namedType) } }
    func isInputType(_ ref: TypeRef?) -> Bool { named(ref)?.isInputType ?? false }
    func isOutputType(_ ref: TypeRef?) -> Bool { named(ref)?.isOutputType ?? false }

    // MARK: Entering and leaving nodes

    private mutating func pushOutput(_ ref: TypeRef?) {
        let named = ref.flatMap { schema.type($0.namedType) }
        if let named, named.isOutputType { outputs.append((ref, named)) } else { outputs.append((nil, nil)) }
    }

    private mutating func pushOutput(named: NamedType?) {
        if let named, named.isOutputType { outputs.append((nil, named)) } else { outputs.append((nil, nil)) }
    }

    private mutating func pushInput(_ type: TypeRef?, _ defaultValue: Value?) {
        let named = type.flatMap { schema.type($0.namedType) }
        if let named, named.isInputType { inputs.append((type, named, defaultValue)) } else { inputs.append((nil, nil, defaultValue)) }
    }

    mutating func enter(_ node: VisitNode) {
        switch node {
        case .selectionSet:
            let named = namedType
            parentTypes.append(named?.isComposite == true ? named : nil)
        case .field(let field):
            let def = parentType.flatMap { fieldDef(field.name.value, on: $0) }
            fieldDefs.append(def)
            pushOutput(def?.type)
        case .directive(let node, _):
            directive = schema.directive(node.name.value)
        case .operation(let operation):
            pushOutput(named: schema.rootType(operation.operation).map { .object($0) })
        case .inlineFragment(let fragment):
            if let condition = fragment.typeCondition {
                pushOutput(named: schema.type(condition.value))
            } else {
                pushOutput(named: namedType)
            }
        case .fragmentDefinition(let fragment):
            pushOutput(named: schema.type(fragment.typeCondition.value))
        case .variableDefinition(let definition):
            // No argument encloses a variable definition: its default value is nil.
            if let named = schema.type(definition.type.namedType.value), named.isInputType {
                inputs.append((TypeRef(definition.type), named, nil))
            } else {
                inputs.append((nil, nil, nil))
            }
        case .argument(let node):
            let arguments = directive?.arguments ?? fieldDef?.arguments ?? []
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
            fieldDefs.removeLast()
            outputs.removeLast()
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
