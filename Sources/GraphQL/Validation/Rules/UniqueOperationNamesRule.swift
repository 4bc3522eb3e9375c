/// Operation Name Uniqueness (spec §5.2.1.1): each named operation has a unique name.
final class UniqueOperationNamesRule: ValidationRule {
    static let enters: VisitKinds = .operation
    static let leaves: VisitKinds = []
    private let context: ValidationContext
    private var known: [String: Name] = [:]
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        guard case .operation(let operation) = node, let name = operation.name else { return true }
        if let first = known[name.value] {
            context.report(
                "There can be only one operation named \"\(name.value)\".", at: [first.span.start, name.span.start])
        } else {
            known[name.value] = name
        }
        return true
    }
}
