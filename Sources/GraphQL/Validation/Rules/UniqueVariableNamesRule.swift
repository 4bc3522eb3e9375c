/// Variable Uniqueness (spec §5.8.1): an operation defines each variable once.
struct UniqueVariableNamesRule: ValidationRule {
    static let enters: VisitKinds = .operation
    static let leaves: VisitKinds = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        // Fewer than two definitions cannot repeat a name.
        guard case .operation(let operation) = node, operation.variableDefinitions.count >= 2 else { return true }
        var order: [String] = []
        var groups: [String: [Name]] = [:]
        for definition in operation.variableDefinitions {
            let name = definition.variable
            if groups[name.value] == nil { order.append(name.value) }
            groups[name.value, default: []].append(name)
        }
        for name in order where groups[name]!.count > 1 {
            context.report(
                "There can be only one variable named \"$\(name)\".", at: groups[name]!.map(\.span.start))
        }
        return true
    }
}
