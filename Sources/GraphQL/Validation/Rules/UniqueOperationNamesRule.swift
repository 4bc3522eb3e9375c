/// Operation Name Uniqueness (spec §5.2.1.1): each named operation has a unique name.
struct UniqueOperationNamesRule: ValidationRule {
    static let enters: VisitKinds = .operation
    static let leaves: VisitKinds = []
    private var known: [String: Name] = [:]
    /// Whether the document has a second operation (else no name can repeat and no
    /// dictionary is built).
    private var hasSeveral: Bool? = nil

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        guard case .operation(let operation) = node, let name = operation.name else { return true }
        if hasSeveral == nil {
            var count = 0
            for case .operation in context.document.definitions { count += 1 }
            hasSeveral = count > 1
        }
        guard hasSeveral == true else { return true }
        if let first = known[name.value] {
            context.report(
                "There can be only one operation named \"\(name.value)\".", at: [first.span.start, name.span.start])
        } else {
            known[name.value] = name
        }
        return true
    }
}
