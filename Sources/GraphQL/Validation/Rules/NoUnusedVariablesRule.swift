/// All Variables Used (spec §5.8.4): every variable an operation defines is used by
/// it or by a fragment it spreads.
struct NoUnusedVariablesRule: ValidationRule {
    static let enters: VisitKinds = []
    static let leaves: VisitKinds = .operation

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        guard case .operation(let operation) = node else { return }
        guard !operation.variableDefinitions.isEmpty else { return }
        let used = NameTable(context.recursiveVariableUsages(operation).lazy.map(\.name))
        for definition in operation.variableDefinitions where used.number(of: definition.variable.value) == nil {
            let name = definition.variable.value
            let message =
                operation.name.map { "Variable \"$\(name)\" is never used in operation \"\($0.value)\"." }
                ?? "Variable \"$\(name)\" is never used."
            context.report(message, at: context.dollarOffset(definition))
        }
    }
}
