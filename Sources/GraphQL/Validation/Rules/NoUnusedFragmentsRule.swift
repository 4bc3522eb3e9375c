/// Fragments Must Be Used (spec §5.5.1.4): every fragment is spread by some
/// operation, directly or through other fragments.
///
/// The spreads of each definition are recorded as the walk passes them, so that on
/// leaving the document the fragments reachable from the operations are found without
/// walking the document again.
struct NoUnusedFragmentsRule: ValidationRule {
    static var enters: VisitKinds { [.operation, .fragmentDefinition, .fragmentSpread] }
    static var leaves: VisitKinds { .document }
    private var fragments: [FragmentDefinition] = []
    /// The fragment names spread anywhere in an operation.
    private var operationSpreads: [String] = []
    /// Per fragment name, the names its (last) definition spreads, as `context.fragments`
    /// keeps the last of equally named definitions.
    private var fragmentSpreads: [String: [String]] = [:]
    /// The fragment being walked; nil in an operation.
    private var current: String? = nil

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation:
            current = nil
        case .fragmentDefinition(let fragment):
            fragments.append(fragment)
            current = fragment.name.value
            fragmentSpreads[fragment.name.value] = []
        case .fragmentSpread(let spread):
            // Without fragment definitions nothing can be unused: nothing to record.
            if context.fragments.isEmpty { break }
            if let current { fragmentSpreads[current, default: []].append(spread.name.value) } else {
                operationSpreads.append(spread.name.value)
            }
        default:
            break
        }
        return true
    }

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        guard case .document = node, !fragments.isEmpty else { return }
        var used: Set<String> = []
        var toVisit = operationSpreads
        while let name = toVisit.popLast() {
            // Unknown fragments (KnownFragmentNamesRule's) lead nowhere.
            guard !used.contains(name), let spreads = fragmentSpreads[name] else { continue }
            used.insert(name)
            toVisit += spreads
        }
        for fragment in fragments where !used.contains(fragment.name.value) {
            context.report("Fragment \"\(fragment.name.value)\" is never used.", at: fragment.span.start)
        }
    }
}
