/// Fragments Must Be Used (spec §5.5.1.4): every fragment is spread by some
/// operation, directly or through other fragments.
struct NoUnusedFragmentsRule: ValidationRule {
    static var enters: VisitKinds { [.operation, .fragmentDefinition] }
    static var leaves: VisitKinds { .document }
    private var operations: [OperationDefinition] = []
    private var fragments: [FragmentDefinition] = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .operation(let operation):
            operations.append(operation)
            return false
        case .fragmentDefinition(let fragment):
            fragments.append(fragment)
            return false
        default:
            return true
        }
    }

    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {
        guard case .document = node else { return }
        var used: Set<String> = []
        for operation in operations {
            for fragment in context.recursivelyReferencedFragments(operation) { used.insert(fragment.name.value) }
        }
        for fragment in fragments where !used.contains(fragment.name.value) {
            context.report("Fragment \"\(fragment.name.value)\" is never used.", at: fragment.span.start)
        }
    }
}
