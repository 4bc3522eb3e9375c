/// Variables Are Input Types (spec §5.8.2): a variable's type is a scalar, enum or
/// input object (possibly wrapped).
final class VariablesAreInputTypesRule: ValidationRule {
    static let enters: VisitKinds = .variableDefinition
    static let leaves: VisitKinds = []
    private let context: ValidationContext
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        if case .variableDefinition(let definition) = node,
            let type = context.schema.type(definition.type.namedType.value), !type.isInputType
        {
            context.report(
                "Variable \"$\(definition.variable.value)\" cannot be non-input type \"\(definition.type)\".",
                at: definition.type.span.start)
        }
        return true
    }
}
