/// Limits introspection queries (graphql-js's recommended `MaxIntrospectionDepthRule`,
/// not a spec rule): `__schema` or `__type` may nest the list fields `fields`,
/// `interfaces`, `possibleTypes` and `inputFields` at most two deep.
struct MaxIntrospectionDepthRule: ValidationRule {
    static var enters: VisitKinds { .field }
    static var leaves: VisitKinds { [] }
    private static let maxListDepth = 3
    private static func isListField(_ name: String) -> Bool {
        // The first letter rules out most names before any string comparison.
        switch name.utf8.first {
        case UInt8(ascii: "f"), UInt8(ascii: "i"), UInt8(ascii: "p"): break
        default: return false
        }
        switch name {
        case "fields", "interfaces", "possibleTypes", "inputFields": return true
        default: return false
        }
    }
    /// The fragments on the current path (a spread back into one is not followed;
    /// fragment cycles are `NoFragmentCyclesRule`'s).
    private var path: [String] = []
    /// Whether a spread was cut off because its fragment was on the path.
    private var pruned = false
    /// Per fragment, the depths (bit `depth`) at which it was found not to exceed the
    /// limit with nothing cut off: that answer holds whatever the path, since the path
    /// can only cut off more. The standard introspection query spreads `TypeRef` from
    /// many places; without this, each spread would be explored again.
    private var withinLimit: [String: UInt8] = [:]

    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool {
        guard field.name.value.utf8.first == UInt8(ascii: "_"),
            field.name.value == "__schema" || field.name.value == "__type",
            let set = field.selectionSet, exceedsDepth(set, 0, context)
        else { return true }
        context.report("Maximum introspection depth exceeded", at: field.span.start)
        return false
    }

    private mutating func exceedsDepth(_ set: SelectionSet, _ depth: Int, _ context: ValidationContext) -> Bool {
        for selection in set.selections {
            switch selection {
            case .field(let field):
                var depth = depth
                if Self.isListField(field.name.value) {
                    depth += 1
                    if depth >= Self.maxListDepth { return true }
                }
                if let inner = field.selectionSet, exceedsDepth(inner, depth, context) { return true }
            case .inlineFragment(let fragment):
                if exceedsDepth(fragment.selectionSet, depth, context) { return true }
            case .fragmentSpread(let spread):
                let name = spread.name.value
                if path.contains(name) {
                    pruned = true
                    continue
                }
                guard let fragment = context.fragments[name] else { continue }
                let bit = UInt8(1) << UInt8(depth)
                if let known = withinLimit[name], known & bit != 0 { continue }
                let prunedBefore = pruned
                pruned = false
                path.append(name)
                let exceeds = exceedsDepth(fragment.selectionSet, depth, context)
                path.removeLast()
                if exceeds { return true }
                if !pruned { withinLimit[name, default: 0] |= bit }
                pruned = pruned || prunedBefore
            }
        }
        return false
    }
}
