/// Fragment Spread Target Defined (spec §5.5.2.1): spreads name a fragment of the document.
final class KnownFragmentNamesRule: ValidationRule {
    static let enters: VisitKinds = .fragmentSpread
    static let leaves: VisitKinds = []
    private let context: ValidationContext
    init(context: ValidationContext) { self.context = context }

    func enter(_ node: VisitNode) -> Bool {
        if case .fragmentSpread(let spread) = node, context.fragments[spread.name.value] == nil {
            context.report("Unknown fragment \"\(spread.name.value)\".", at: spread.name.span.start)
        }
        return true
    }
}
