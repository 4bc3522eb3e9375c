/// Limits introspection queries (graphql-js's recommended `MaxIntrospectionDepthRule`,
/// not a spec rule): `__schema` or `__type` may nest the list fields `fields`,
/// `interfaces`, `possibleTypes` and `inputFields` at most two deep.
struct MaxIntrospectionDepthRule: ValidationRule {
    static let enters: VisitKinds = .field
    static let leaves: VisitKinds = []
    private static let maxListDepth = 3
    private static func isListField(_ name: String) -> Bool {
        // The length rules out most names before any string comparison.
        switch name.utf8.count {
        case 6: name == "fields"
        case 10: name == "interfaces"
        case 11: name == "inputFields"
        case 13: name == "possibleTypes"
        default: false
        }
    }
    /// The numbers of the fragments on the current path (a spread back into one is not
    /// followed; fragment cycles are `NoFragmentCyclesRule`'s).
    private var path: [Int] = []
    /// Whether a spread was cut off because its fragment was on the path.
    private var pruned = false
    /// Per fragment number, the depths (bit `depth`) at which it was found not to exceed the
    /// limit with nothing cut off: that answer holds whatever the path, since the path
    /// can only cut off more. The standard introspection query spreads `TypeRef` from
    /// many places; without this, each spread would be explored again.
    private var withinLimit: [UInt8] = []

    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool {
        let name = field.name.value
        guard let set = field.selectionSet, name.utf8.count == 8 ? name == "__schema" : name.utf8.count == 6 && name == "__type"
        else { return true }
        if withinLimit.isEmpty { withinLimit = Array(repeating: 0, count: context.fragments.count) }
        guard exceedsDepth(set, 0, context.fragments) else { return true }
        context.report("Maximum introspection depth exceeded", at: field.span.start)
        return false
    }

    private mutating func exceedsDepth(_ set: SelectionSet, _ depth: Int, _ fragments: FragmentTable) -> Bool {
        // By index: iterating copies each selection (retaining all it holds).
        for index in set.selections.indices {
            switch set.selections[index] {
            case .field(let field):
                var depth = depth
                if Self.isListField(field.name.value) {
                    depth += 1
                    if depth >= Self.maxListDepth { return true }
                }
                if let inner = field.selectionSet, exceedsDepth(inner, depth, fragments) { return true }
            case .inlineFragment(let fragment):
                if exceedsDepth(fragment.selectionSet, depth, fragments) { return true }
            case .fragmentSpread(let spread):
                guard let number = fragments.number(of: spread.name.value) else { continue }
                if path.contains(number) {
                    pruned = true
                    continue
                }
                let bit = UInt8(1) << UInt8(depth)
                if withinLimit[number] & bit != 0 { continue }
                let prunedBefore = pruned
                pruned = false
                path.append(number)
                let exceeds = exceedsDepth(fragments.selectionSet(number), depth, fragments)
                path.removeLast()
                if exceeds { return true }
                if !pruned { withinLimit[number] |= bit }
                pruned = pruned || prunedBefore
            }
        }
        return false
    }
}
