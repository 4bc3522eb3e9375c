/// Fragments Must Be Used (spec §5.5.1.4): every fragment is spread by some
/// operation, directly or through other fragments.
///
/// The spreads of each definition are recorded as the walk passes them, so that on
/// leaving the document the fragments reachable from the operations are found without
/// walking the document again.
struct NoUnusedFragmentsRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .fragmentDefinition, .fragmentSpread]
    static let leaves: VisitKinds = .document
    /// Every fragment definition in document order: its number, name and start.
    private var definitions: [(number: Int, name: String, start: Int)] = []
    /// The numbers of the fragments spread anywhere in an operation (unknown fragments,
    /// `KnownFragmentNamesRule`'s, lead nowhere and are left out).
    private var operationSpreads: [Int] = []
    /// Per fragment number, the fragments its (last) definition spreads, as
    /// `context.fragments` keeps the last of equally named definitions.
    private var fragmentSpreads: [[Int]] = []
    /// The number of the fragment being walked; nil in an operation.
    private var current: Int? = nil

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation:
            current = nil
        case .fragmentDefinition(let fragment):
            guard let number = context.fragments.number(of: fragment.name.value) else { break }
            if fragmentSpreads.isEmpty { fragmentSpreads = Array(repeating: [], count: context.fragments.count) }
            definitions.append((number, fragment.name.value, fragment.span.start))
            current = number
            fragmentSpreads[number] = []
        case .fragmentSpread(let spread):
            // Without fragment definitions nothing can be unused: nothing to record.
            if context.fragments.isEmpty { break }
            guard let target = context.fragments.number(of: spread.name.value) else { break }
            if let current { fragmentSpreads[current].append(target) } else { operationSpreads.append(target) }
        default:
            break
        }
        return true
    }

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        guard case .document = node, !definitions.isEmpty else { return }
        var used = Array(repeating: false, count: context.fragments.count)
        var toVisit = operationSpreads
        while let number = toVisit.popLast() {
            guard !used[number] else { continue }
            used[number] = true
            toVisit += fragmentSpreads[number]
        }
        for definition in definitions where !used[definition.number] {
            context.report("Fragment \"\(definition.name)\" is never used.", at: definition.start)
        }
    }
}
