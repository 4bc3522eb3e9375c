/// Fragment Spreads Must Not Form Cycles (spec §5.5.2.2): following spreads from a
/// fragment never leads back to it. Each fragment is explored once (a depth-first
/// search over the spread graph), so the rule is linear in the document.
final class NoFragmentCyclesRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .fragmentDefinition]
    static let leaves: VisitKinds = []
    private let context: ValidationContext
    private var visited: Set<String> = []
    private var spreadPath: [FragmentSpread] = []
    private var pathIndexByName: [String: Int] = [:]
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        switch node {
        case .operation: return false
        case .fragmentDefinition(let fragment):
            detectCycles(from: fragment)
            return false
        default: return true
        }
    }

    private func detectCycles(from fragment: FragmentDefinition) {
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
                detectCycles(from: target)
            }
            spreadPath.removeLast()
        }
        pathIndexByName[name] = nil
    }
}
