/// Fragment Spread Target Defined (spec §5.5.2.1): spreads name a fragment of the document.
struct KnownFragmentNamesRule: ValidationRule {
    static let enters: VisitKinds = .fragmentSpread
    static let leaves: VisitKinds = []

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        if case .fragmentSpread(let spread) = node, context.fragments.number(of: spread.name.value) == nil {
            context.report("Unknown fragment \"\(spread.name.value)\".", at: spread.name.span.start)
        }
        return true
    }
}
