/// Fragment Spread Type Existence and Variables Are Input Types (spec §5.5.1.2,
/// §5.8.2): every named type in a type condition or variable type exists in the
/// schema (or is defined by the document itself).
struct KnownTypeNamesRule: ValidationRule {
    static let enters: VisitKinds = [.document, .namedType]
    static let leaves: VisitKinds = []
    private var definedTypes: Set<String> = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .document(let document):
            for case .type(let type) in document.definitions { definedTypes.insert(type.name.value) }
        case .namedType(let name):
            if context.typeInfo.namedType(name.value) == nil, !definedTypes.contains(name.value) {
                let names = context.schema.types.map(\.name) + definedTypes.sorted()
                context.report(
                    "Unknown type \"\(name.value)\"." + didYouMean(Suggestions.list(name.value, names)),
                    at: name.span.start)
            }
        default: break
        }
        return true
    }
}
