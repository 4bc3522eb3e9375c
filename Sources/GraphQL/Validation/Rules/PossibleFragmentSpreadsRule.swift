/// Fragment Spread Is Possible (spec §5.5.2.3): a fragment's type condition and the
/// parent type share at least one possible object type.
final class PossibleFragmentSpreadsRule: ValidationRule {
    static let enters: VisitKinds = [.inlineFragment, .fragmentSpread]
    static let leaves: VisitKinds = []
    private let context: ValidationContext
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        let typeInfo = context.typeInfo
        switch node {
        case .inlineFragment(let fragment):
            guard let fragmentType = typeInfo.named(typeInfo.type), fragmentType.isComposite,
                let parentType = typeInfo.parentType, parentType.isComposite,
                !context.schema.typesOverlap(fragmentType, parentType)
            else { break }
            context.report(
                "Fragment cannot be spread here as objects of type \"\(parentType.name)\" can never be of type \"\(fragmentType.name)\".",
                at: fragment.span.start)
        case .fragmentSpread(let spread):
            guard let fragment = context.fragments[spread.name.value],
                let fragmentType = context.schema.type(fragment.typeCondition.value), fragmentType.isComposite,
                let parentType = typeInfo.parentType, parentType.isComposite,
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
