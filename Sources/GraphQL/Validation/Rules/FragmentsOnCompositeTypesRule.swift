/// Fragments On Composite Types (spec §5.5.1.3): type conditions name objects,
/// interfaces or unions.
struct FragmentsOnCompositeTypesRule: ValidationRule {
    static let enters: VisitKinds = [.inlineFragment, .fragmentDefinition]
    static let leaves: VisitKinds = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .inlineFragment(let fragment):
            if let condition = fragment.typeCondition, let type = context.typeInfo.namedType(condition.value), !type.isComposite {
                context.report(
                    "Fragment cannot condition on non composite type \"\(condition.value)\".", at: condition.span.start)
            }
        case .fragmentDefinition(let fragment):
            let condition = fragment.typeCondition
            if let type = context.typeInfo.namedType(condition.value), !type.isComposite {
                context.report(
                    "Fragment \"\(fragment.name.value)\" cannot condition on non composite type \"\(condition.value)\".",
                    at: condition.span.start)
            }
        default: break
        }
        return true
    }
}
