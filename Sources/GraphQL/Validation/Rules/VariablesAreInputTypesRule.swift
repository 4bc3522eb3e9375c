/// Variables Are Input Types (spec §5.8.2): a variable's type is a scalar, enum or
/// input object (possibly wrapped).
struct VariablesAreInputTypesRule: ValidationRule {
    static let enters: VisitKinds = .variableDefinition
    static let leaves: VisitKinds = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        if case .variableDefinition(let definition) = node,
            let type = context.typeInfo.namedType(definition.type.namedType.value), !type.isInputType
        {
            context.report(
                "Variable \"$\(definition.variable.value)\" cannot be non-input type \"\(definition.type)\".",
                at: definition.type.span.start)
        }
        return true
    }
}
