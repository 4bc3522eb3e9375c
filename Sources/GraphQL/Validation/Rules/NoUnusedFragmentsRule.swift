/// Fragments Must Be Used (spec §5.5.1.4): every fragment is spread by some
/// operation, directly or through other fragments.
final class NoUnusedFragmentsRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .fragmentDefinition]
    static let leaves: VisitKinds = .document
    private let context: ValidationContext
    private var operations: [OperationDefinition] = []
    private var fragments: [FragmentDefinition] = []
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
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

    func leave(_ node: VisitNode) {
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
