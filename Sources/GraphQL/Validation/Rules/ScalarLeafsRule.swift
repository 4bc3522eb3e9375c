/// Leaf Field Selections (spec §5.3.3): fields of scalar or enum type have no
/// selection set; fields of composite type must have one.
final class ScalarLeafsRule: ValidationRule {
    static let enters: VisitKinds = .field
    static let leaves: VisitKinds = []
    private let context: ValidationContext
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        guard case .field(let field) = node, let type = context.typeInfo.type,
            let named = context.typeInfo.named(type)
        else { return true }
        let name = field.name.value
        if named.isLeaf {
            if let selectionSet = field.selectionSet {
                context.report(
                    "Field \"\(name)\" must not have a selection since type \"\(type)\" has no subfields.",
                    at: selectionSet.span.start)
            }
        } else if field.selectionSet == nil {
            context.report(
                "Field \"\(name)\" of type \"\(type)\" must have a selection of subfields. Did you mean \"\(name) { ... }\"?",
                at: field.span.start)
        }
        return true
    }
}
