/// Directives Are Unique per Location (spec §5.7.3): a non-repeatable directive is
/// used at most once on each node.
struct UniqueDirectivesPerLocationRule: ValidationRule {
    static let enters: VisitKinds = [.operation, .variableDefinition, .field, .fragmentSpread, .inlineFragment, .fragmentDefinition]
    static let leaves: VisitKinds = []
    /// The non-repeatable directives, built at the first node with two directives.
    private var unique: Set<String>? = nil

    private static func unique(_ context: ValidationContext) -> Set<String> {
        var unique: Set<String> = []
        for directive in context.schema.directives where !directive.isRepeatable { unique.insert(directive.name) }
        for case .directive(let definition) in context.document.definitions {
            if definition.isRepeatable { unique.remove(definition.name.value) } else { unique.insert(definition.name.value) }
        }
        return unique
    }

    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool {
        if field.directives.count >= 2 { check(field.directives, &context) }
        return true
    }

    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool {
        let directives: [Directive]
        switch node {
        case .operation(let operation): directives = operation.directives
        case .variableDefinition(let definition): directives = definition.directives
        case .field(let field): directives = field.directives
        case .fragmentSpread(let spread): directives = spread.directives
        case .inlineFragment(let fragment): directives = fragment.directives
        case .fragmentDefinition(let fragment): directives = fragment.directives
        default: return true
        }
        if directives.count >= 2 { check(directives, &context) }  // else nothing to repeat
        return true
    }

    private mutating func check(_ directives: [Directive], _ context: inout ValidationContext) {
        if unique == nil { unique = Self.unique(context) }
        let unique = self.unique!
        var seen: [String: Directive] = [:]
        for directive in directives where unique.contains(directive.name.value) {
            let name = directive.name.value
            if let first = seen[name] {
                context.report(
                    "The directive \"@\(name)\" can only be used once at this location.",
                    at: [first.span.start, directive.span.start])
            } else {
                seen[name] = directive
            }
        }
    }
}
