/// Values of Correct Type (spec §5.6.1) and Input Object Required Fields (§5.6.4):
/// every literal can be coerced to the type expected where it is written. Scalars
/// decide through their `parseLiteral`, as in graphql-js; `@oneOf` input objects
/// (spec §3.10.1) must be given exactly one non-null field.
struct ValuesOfCorrectTypeRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .variableDefinition, .objectField, .value]
    static let leaves: VisitKinds = []
    private var variableDefinitions = VariableDefinitionTable()

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation:
            variableDefinitions = VariableDefinitionTable()
        case .variableDefinition(let definition):
            variableDefinitions.add(definition)
        case .objectField(let field):
            if context.typeInfo.inputType == nil, case .inputObject(let parent)? = context.typeInfo.parentInputNamedType {
                let name = field.name.value
                context.report(
                    "Field \"\(name)\" is not defined by type \"\(parent.name)\"."
                        + didYouMean(Suggestions.list(name, parent.fields.map(\.name))),
                    at: field.span.start)
            }
        case .value(let value):
            switch value.kind {
            case .variable:
                break
            case .list:
                // TypeInfo has entered the item type: look at the parent input type.
                guard case .list? = context.typeInfo.parentInputType?.nullable else {
                    Self.checkLiteral(value, &context)
                    return false
                }
            case .object(let fields):
                guard case .inputObject(let type)? = context.typeInfo.inputNamedType else {
                    Self.checkLiteral(value, &context)
                    return false
                }
                checkObject(value, fields, type, &context)
            case .null:
                if let type = context.typeInfo.inputType, type.isNonNull {
                    context.report("Expected value of type \"\(type)\", found null.", at: value.span.start)
                }
            case .int, .float, .string, .boolean, .enumValue:
                Self.checkLiteral(value, &context)
            }
        default: break
        }
        return true
    }

    private func checkObject(_ value: Value, _ fields: [ObjectField], _ type: InputObjectType, _ context: inout ValidationContext) {
        var given: [String: ObjectField] = [:]
        var keys: [String] = []
        for field in fields where given[field.name.value] == nil {
            given[field.name.value] = field
            keys.append(field.name.value)
        }
        for field in type.fields where given[field.name] == nil && field.isRequired {
            context.report(
                "Field \"\(type.name).\(field.name)\" of required type \"\(field.type)\" was not provided.",
                at: value.span.start)
        }
        guard type.isOneOf else { return }
        guard keys.count == 1 else {
            context.report("OneOf Input Object \"\(type.name)\" must specify exactly one key.", at: value.span.start)
            return
        }
        let fieldValue = given[keys[0]]!.value
        switch fieldValue.kind {
        case .null:
            context.report("Field \"\(type.name).\(keys[0])\" must be non-null.", at: value.span.start)
        case .variable(let name):
            if let definition = variableDefinitions[name], !TypeRef(definition.type).isNonNull {
                context.report(
                    "Variable \"\(name)\" must be non-nullable to be used for OneOf Input Object \"\(type.name)\".",
                    at: value.span.start)
            }
        default: break
        }
    }

    /// graphql-js `isValidValueNode`: the literal against the full type expected here.
    private static func checkLiteral(_ value: Value, _ context: inout ValidationContext) {
        guard let locationType = context.typeInfo.inputType, let named = context.typeInfo.inputNamedType else { return }
        switch named {
        case .scalar(let scalar):
            do {
                _ = try scalar.coercion.parseLiteral(value, [:])
            } catch {
                // As graphql-js for scalars that throw GraphQLError (all built-ins): the bare message.
                context.report(error.message, at: value.span.start)
            }
        case .enumType(let enumType):
            let text = print(value)
            let suggestions = didYouMean(Suggestions.list(text, enumType.values.map(\.name)), sub: "the enum value")
            guard case .enumValue(let name) = value.kind else {
                context.report(
                    "Enum \"\(enumType.name)\" cannot represent non-enum value: \(text)." + suggestions,
                    at: value.span.start)
                return
            }
            if enumType.value(name) == nil {
                context.report(
                    "Value \"\(text)\" does not exist in \"\(enumType.name)\" enum." + suggestions, at: value.span.start)
            }
        default:
            context.report("Expected value of type \"\(locationType)\", found \(print(value)).", at: value.span.start)
        }
    }
}
