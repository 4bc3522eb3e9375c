/// All Variable Usages Are Allowed (spec §5.8.5): each variable's type is compatible
/// with every position it is used in; a nullable variable may flow into a non-null
/// position only when the variable or the position has a (non-null) default.
struct VariablesInAllowedPositionRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .variableDefinition]
    static let leaves: VisitKinds = .operation
    private var definitions = VariableDefinitionTable()

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation: definitions = VariableDefinitionTable()
        case .variableDefinition(let definition): definitions.add(definition)
        default: break
        }
        return true
    }

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        guard case .operation(let operation) = node else { return }
        for usage in context.recursiveVariableUsages(operation) {
            guard let definition = definitions[usage.name], let locationType = usage.type,
                let variableType = context.typeInfo.typeRef(definition.type)
            else { continue }
            if !Self.isAllowed(context.schema, variableType, definition.defaultValue, locationType, usage.defaultValue) {
                context.report(
                    "Variable \"$\(usage.name)\" of type \"\(variableType)\" used in position expecting type \"\(locationType)\".",
                    at: [context.dollarOffset(definition), usage.node.span.start])
            }
        }
    }

    private static func isAllowed(_ schema: GraphQLSchema, _ variableType: TypeRef, _ variableDefault: Value?, _ locationType: TypeRef, _ locationDefault: Value?) -> Bool {
        if case .nonNull(let nullableLocation) = locationType, !variableType.isNonNull {
            let hasNonNullVariableDefault: Bool
            if let variableDefault, variableDefault.kind != .null { hasNonNullVariableDefault = true } else { hasNonNullVariableDefault = false }
            guard hasNonNullVariableDefault || locationDefault != nil else { return false }
            return schema.isTypeSubType(variableType, of: nullableLocation)
        }
        return schema.isTypeSubType(variableType, of: locationType)
    }
}
