/// Fragment Name Uniqueness (spec §5.5.1.1): fragment names are unique in a document.
struct UniqueFragmentNamesRule: ValidationRule {
    static var enters: VisitKinds { .fragmentDefinition }
    static var leaves: VisitKinds { [] }
    private var known: [String: Name] = [:]

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
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
