/// Fragment Spread Is Possible (spec §5.5.2.3): a fragment's type condition and the
/// parent type share at least one possible object type.
struct PossibleFragmentSpreadsRule: ValidationRule {
    static let enters: VisitKinds = [.inlineFragment, .fragmentSpread]
    static let leaves: VisitKinds = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        switch node {
        case .inlineFragment(let fragment):
            guard let fragmentType = context.typeInfo.namedType, fragmentType.isComposite,
                let parentType = context.typeInfo.parentType, parentType.isComposite,
                !context.schema.typesOverlap(fragmentType, parentType)
            else { break }
            context.report(
                "Fragment cannot be spread here as objects of type \"\(parentType.name)\" can never be of type \"\(fragmentType.name)\".",
                at: fragment.span.start)
        case .fragmentSpread(let spread):
            guard let parentType = context.typeInfo.parentType, parentType.isComposite,
                let fragment = context.fragments.number(of: spread.name.value),
                let fragmentType = context.typeInfo.namedType(context.fragments.typeCondition(fragment)),
                fragmentType.isComposite,
                !context.schema.typesOverlap(fragmentType, parentType)
            else { break }
            context.report(
                "Fragment \"\(spread.name.value)\" cannot be spread here as objects of type \"\(parentType.name)\" can never be of type \"\(fragmentType.name)\".",
                at: spread.span.start)
        default: break
        }
        return true
    }
}
