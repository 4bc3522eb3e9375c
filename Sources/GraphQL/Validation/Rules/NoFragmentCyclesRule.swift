/// Fragment Spreads Must Not Form Cycles (spec §5.5.2.2): following spreads from a
/// fragment never leads back to it. Each fragment is explored once (a depth-first
/// search over the spread graph), so the rule is linear in the document.
struct NoFragmentCyclesRule: ValidationRule {
    static var enters: VisitKinds { [.operation, .fragmentDefinition] }
    static var leaves: VisitKinds { [] }
    /// Per fragment number, whether it was explored.
    private var visited: [Bool] = []
    private var spreadPath: [FragmentSpread] = []
    /// Per fragment number, its index in `spreadPath` while it is being explored, else -1.
    private var pathIndex: [Int] = []

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
        // Every fragment of the document has a number.
        guard let number = context.fragments.number(of: fragment.name.value) else { return }
        if visited.isEmpty {
            visited = Array(repeating: false, count: context.fragments.count)
            pathIndex = Array(repeating: -1, count: context.fragments.count)
        }
        guard !visited[number] else { return }
        visited[number] = true
        let spreads = context.fragmentSpreads(fragment.selectionSet)
        guard !spreads.isEmpty else { return }
        pathIndex[number] = spreadPath.count
        for spread in spreads {
            let spreadName = spread.name.value
            let target = context.fragments.number(of: spreadName)
            let cycleIndex = target.map { pathIndex[$0] } ?? -1
            spreadPath.append(spread)
            if cycleIndex >= 0 {
                let cyclePath = spreadPath[cycleIndex...]
                let via = cyclePath.dropLast().map { "\"\($0.name.value)\"" }.joined(separator: ", ")
                context.report(
                    "Cannot spread fragment \"\(spreadName)\" within itself" + (via.isEmpty ? "." : " via \(via)."),
                    at: cyclePath.map(\.span.start))
            } else if let target {
                detectCycles(from: context.fragments[target], &context)
            }
            spreadPath.removeLast()
        }
        pathIndex[number] = -1
    }
}
