/// Fragment Name Uniqueness (spec §5.5.1.1): fragment names are unique in a document.
final class UniqueFragmentNamesRule: ValidationRule {
    static let enters: VisitKinds = .fragmentDefinition
    static let leaves: VisitKinds = []
    private let context: ValidationContext
    private var known: [String: Name] = [:]
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        guard case .fragmentDefinition(let fragment) = node else { return true }
        let name = fragment.name
        if let first = known[name.value] {
            context.report(
                "There can be only one fragment named \"\(name.value)\".", at: [first.span.start, name.span.start])
        } else {
            known[name.value] = name
        }
        return true
    }
}
