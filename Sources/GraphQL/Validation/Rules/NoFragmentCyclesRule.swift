/// Fragment Spreads Must Not Form Cycles (spec §5.5.2.2): following spreads from a
/// fragment never leads back to it. Each fragment is explored once (a depth-first
/// search over the spread graph), so the rule is linear in the document.
struct NoFragmentCyclesRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .fragmentDefinition]
    static let leaves: VisitKinds = []
    /// Per fragment number, whether it was explored.
    private var visited: [Bool] = []
    private var spreadPath: [ValidationContext.SpreadReference] = []
    /// Per fragment number, its index in `spreadPath` while it is being explored, else -1.
    private var pathIndex: [Int] = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation: return false
        case .fragmentDefinition(let fragment):
            // Every fragment of the document has a number.
            if let number = context.fragments.number(of: fragment.name.value) {
                detectCycles(from: number, fragment.selectionSet, &context)
            }
            return false
        default: return true
        }
    }

    /// Explores the fragment numbered `number`, whose selection set is `selectionSet`.
    private mutating func detectCycles(
        from number: Int, _ selectionSet: SelectionSet, _ context: inout ValidationContext
    ) {
        if visited.isEmpty {
            visited = Array(repeating: false, count: context.fragments.count)
            pathIndex = Array(repeating: -1, count: context.fragments.count)
        }
        guard !visited[number] else { return }
        visited[number] = true
        let spreads = context.fragmentSpreads(selectionSet)
        guard !spreads.isEmpty else { return }
        pathIndex[number] = spreadPath.count
        for spread in spreads {
            let spreadName = spread.name
            let target = context.fragments.number(of: spreadName)
            let cycleIndex = target.map { pathIndex[$0] } ?? -1
            spreadPath.append(spread)
            if cycleIndex >= 0 {
                let cyclePath = spreadPath[cycleIndex...]
                let via = cyclePath.dropLast().map { "\"\($0.name)\"" }.joined(separator: ", ")
                context.report(
                    "Cannot spread fragment \"\(spreadName)\" within itself" + (via.isEmpty ? "." : " via \(via)."),
                    at: cyclePath.map(\.start))
            } else if let target {
                detectCycles(from: target, context.fragments.selectionSet(target), &context)
            }
            spreadPath.removeLast()
        }
        pathIndex[number] = -1
    }
}
