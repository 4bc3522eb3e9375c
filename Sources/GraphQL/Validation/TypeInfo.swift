/// Tracks the schema types at each point of a walk over an executable document, as
/// graphql-js's `TypeInfo` does: the output type and parent composite type of the
/// current selection, the field, directive and argument being visited, and the input
/// type and default value expected for the current value literal.
///
/// A `nil` entry means "unknown here" (an unknown field, type or argument); rules
/// treat unknown positions as already reported by another rule.
final class TypeInfo {
    let schema: GraphQLSchema
    private var types: [TypeRef?] = []
    private var parentTypes: [NamedType?] = []
    private var inputTypes: [TypeRef?] = []
    private var fieldDefs: [FieldDef?] = []
    private var defaultValues: [Value?] = []
    private(set) var directive: DirectiveDef?
    private(set) var argument: InputValueDef?

    init(schema: GraphQLSchema) { self.schema = schema }

    /// The output type of the current field, operation or fragment.
    var type: TypeRef? { types.last ?? nil }
    /// The composite type whose selection set is being visited.
    var parentType: NamedType? { parentTypes.last ?? nil }
    /// The input type expected at the current argument, list item or object field.
    var inputType: TypeRef? { inputTypes.last ?? nil }
    /// The input type of the enclosing value (the list or input object).
    var parentInputType: TypeRef? { inputTypes.count >= 2 ? inputTypes[inputTypes.count - 2] : nil }
    /// The definition of the field being visited.
    var fieldDef: FieldDef? { fieldDefs.last ?? nil }
    /// The default value of the current argument or input field, if it has one.
    var defaultValue: Value? { defaultValues.last ?? nil }

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

    func enter(_ node: VisitNode) {
        switch node {
        case .selectionSet:
            let named = named(type)
            parentTypes.append(named?.isComposite == true ? named : nil)
        case .field(let field):
            let def = parentType.flatMap { fieldDef(field.name.value, on: $0) }
            fieldDefs.append(def)
            types.append(isOutputType(def?.type) ? def?.type : nil)
        case .directive(let node, _):
            directive = schema.directive(node.name.value)
        case .operation(let operation):
            types.append(schema.rootType(operation.operation).map { .named($0.name) })
        case .inlineFragment(let fragment):
            let ref: TypeRef? = fragment.typeCondition.map { schema.type($0.value) == nil ? nil : .named($0.value) }
                ?? named(type).map { .named($0.name) }
            types.append(isOutputType(ref) ? ref : nil)
        case .fragmentDefinition(let fragment):
            let ref: TypeRef? = schema.type(fragment.typeCondition.value) == nil ? nil : .named(fragment.typeCondition.value)
            types.append(isOutputType(ref) ? ref : nil)
        case .variableDefinition(let definition):
            let ref = typeRef(definition.type)
            inputTypes.append(isInputType(ref) ? ref : nil)
        case .argument(let node):
            let arguments = directive?.arguments ?? fieldDef?.arguments ?? []
            let def = arguments.first { $0.name == node.name.value }
            argument = def
            defaultValues.append(def?.defaultValue)
            inputTypes.append(isInputType(def?.type) ? def?.type : nil)
        case .value(let value):
            if case .list = value.kind {
                let listType = inputType?.nullable
                let itemType: TypeRef?
                if case .list(let inner)? = listType { itemType = inner } else { itemType = listType }
                defaultValues.append(nil)
                inputTypes.append(isInputType(itemType) ? itemType : nil)
            }
        case .objectField(let node):
            if case .inputObject(let object)? = named(inputType), let field = object.field(node.name.value) {
                defaultValues.append(field.defaultValue)
                inputTypes.append(isInputType(field.type) ? field.type : nil)
            } else {
                defaultValues.append(nil)
                inputTypes.append(nil)
            }
        case .document, .fragmentSpread, .namedType:
            break
        }
    }

    func leave(_ node: VisitNode) {
        switch node {
        case .selectionSet: parentTypes.removeLast()
        case .field:
            fieldDefs.removeLast()
            types.removeLast()
        case .directive: directive = nil
        case .operation, .inlineFragment, .fragmentDefinition: types.removeLast()
        case .variableDefinition: inputTypes.removeLast()
        case .argument:
            argument = nil
            defaultValues.removeLast()
            inputTypes.removeLast()
        case .value(let value):
            if case .list = value.kind {
                defaultValues.removeLast()
                inputTypes.removeLast()
            }
        case .objectField:
            defaultValues.removeLast()
            inputTypes.removeLast()
        case .document, .fragmentSpread, .namedType:
            break
        }
    }
}
