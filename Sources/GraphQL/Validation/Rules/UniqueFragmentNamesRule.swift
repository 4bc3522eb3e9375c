/// Fragment Name Uniqueness (spec §5.5.1.1): fragment names are unique in a document.
struct UniqueFragmentNamesRule: ValidationRule {
    static let enters: VisitKinds = .fragmentDefinition
    static let leaves: VisitKinds = []
    /// Per fragment number, where its first definition's name starts (-1: not seen yet).
    private var firstStarts: [Int] = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        guard case .fragmentDefinition(let fragment) = node,
            let number = context.fragments.number(of: fragment.name.value)
        else { return true }
        if firstStarts.isEmpty { firstStarts = Array(repeating: -1, count: context.fragments.count) }
        let name = fragment.name
        if firstStarts[number] >= 0 {
            context.report(
                "There can be only one fragment named \"\(name.value)\".", at: [firstStarts[number], name.span.start])
        } else {
            firstStarts[number] = name.span.start
        }
        return true
    }
}
