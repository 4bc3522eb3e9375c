/// Limits introspection queries (graphql-js's recommended `MaxIntrospectionDepthRule`,
/// not a spec rule): `__schema` or `__type` may nest the list fields `fields`,
/// `interfaces`, `possibleTypes` and `inputFields` at most two deep.
final class MaxIntrospectionDepthRule: ValidationRule {
    static let enters: VisitKinds = .field
    static let leaves: VisitKinds = []
    private static let maxListDepth = 3
    private static func isListField(_ name: String) -> Bool {
        switch name {
        case "fields", "interfaces", "possibleTypes", "inputFields": true
        default: false
        }
    }
    private let context: ValidationContext
    private var visitedFragments: Set<String> = []
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        guard case .field(let field) = node, field.name.value == "__schema" || field.name.value == "__type",
            let set = field.selectionSet, exceedsDepth(set, 0)
        else { return true }
        context.report("Maximum introspection depth exceeded", at: field.span.start)
        return false
    }

    private func exceedsDepth(_ set: SelectionSet, _ depth: Int) -> Bool {
        for selection in set.selections {
            switch selection {
            case .field(let field):
                var depth = depth
                if Self.isListField(field.name.value) {
                    depth += 1
                    if depth >= Self.maxListDepth { return true }
                }
                if let inner = field.selectionSet, exceedsDepth(inner, depth) { return true }
            case .inlineFragment(let fragment):
                if exceedsDepth(fragment.selectionSet, depth) { return true }
            case .fragmentSpread(let spread):
                let name = spread.name.value
                guard !visitedFragments.contains(name), let fragment = context.fragments[name] else { continue }
                visitedFragments.insert(name)
                defer { visitedFragments.remove(name) }
                if exceedsDepth(fragment.selectionSet, depth) { return true }
            }
        }
        return false
    }
}
