/// Fragment Spreads Must Not Form Cycles (spec §5.5.2.2): following spreads from a
/// fragment never leads back to it. Each fragment is explored once (a depth-first
/// search over the spread graph), so the rule is linear in the document.
struct NoFragmentCyclesRule: ValidationRule {
    static var enters: VisitKinds { [.operation, .fragmentDefinition] }
    static var leaves: VisitKinds { [] }
    private var visited: Set<String> = []
    private var spreadPath: [FragmentSpread] = []
    private var pathIndexByName: [String: Int] = [:]

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation: return false
        case .fragmentDefinition(let fragment):
            detectCycles(from: fragment, &context)
            return false
        default: return true
        }
    }

    private mutating func detectCycles(from fragment: FragmentDefinition, _ context: inout ValidationContext) {
        let name = fragment.name.value
        guard !visited.contains(name) else { return }
        visited.insert(name)
        let spreads = context.fragmentSpreads(fragment.selectionSet)
        guard !spreads.isEmpty else { return }
        pathIndexByName[name] = spreadPath.count
        for spread in spreads {
            let spreadName = spread.name.value
            let cycleIndex = pathIndexByName[spreadName]
            spreadPath.append(spread)
            if let cycleIndex {
                let cyclePath = spreadPath[cycleIndex...]
                let via = cyclePath.dropLast().map { "\"\($0.name.value)\"" }.joined(separator: ", ")
                context.report(
                    "Cannot spread fragment \"\(spreadName)\" within itself" + (via.isEmpty ? "." : " via \(via)."),
                    at: cyclePath.map(\.span.start))
            } else if let target = context.fragments[spreadName] {
                detectCycles(from: target, &context)
            }
            spreadPath.removeLast()
        }
        pathIndexByName[name] = nil
    }
}
