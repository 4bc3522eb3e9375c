/// All Variable Uses Defined (spec §5.8.3): every variable used by an operation,
/// directly or in the fragments it spreads, is defined by the operation.
struct NoUndefinedVariablesRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .variableDefinition]
    static let leaves: VisitKinds = .operation
    private var defined = NameTable()

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation: defined = NameTable()
        case .variableDefinition(let definition): defined.insert(definition.variable.value)
        default: break
        }
        return true
    }

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        guard case .operation(let operation) = node else { return }
        for usage in context.recursiveVariableUsages(operation) where defined.number(of: usage.name) == nil {
            let message =
                operation.name.map { "Variable \"$\(usage.name)\" is not defined by operation \"\($0.value)\"." }
                ?? "Variable \"$\(usage.name)\" is not defined."
            context.report(message, at: [usage.node.span.start, operation.span.start])
        }
    }
}
