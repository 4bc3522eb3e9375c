/// Leaf Field Selections (spec §5.3.3): fields of scalar or enum type have no
/// selection set; fields of composite type must have one.
struct ScalarLeafsRule: ValidationRule {
    static let enters: VisitKinds = .field
    static let leaves: VisitKinds = []

    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool {
        guard let isLeaf = context.typeInfo.namedTypeIsLeaf else { return true }
        // The common case, checked before anything is copied: a leaf without a selection
        // or a composite with one.
        if isLeaf == (field.selectionSet == nil) { return true }
        guard let type = context.typeInfo.type else { return true }
        let name = field.name.value
        if isLeaf {
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
