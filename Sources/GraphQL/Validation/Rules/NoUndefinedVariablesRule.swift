/// All Variable Uses Defined (spec §5.8.3): every variable used by an operation,
/// directly or in the fragments it spreads, is defined by the operation.
final class NoUndefinedVariablesRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .variableDefinition]
    static let leaves: VisitKinds = .operation
    private let context: ValidationContext
    private var defined: Set<String> = []
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        switch node {
        case .operation: defined = []
        case .variableDefinition(let definition): defined.insert(definition.variable.value)
        default: break
        }
        return true
    }

    func leave(_ node: VisitNode) {
        guard case .operation(let operation) = node else { return }
        for usage in context.recursiveVariableUsages(operation) where !defined.contains(usage.name) {
            let message =
                operation.name.map { "Variable \"$\(usage.name)\" is not defined by operation \"\($0.value)\"." }
                ?? "Variable \"$\(usage.name)\" is not defined."
            context.report(message, at: [usage.node.span.start, operation.span.start])
        }
    }
}
