/// One validation rule of spec §5: a value created empty for each validation and
/// called at every node of the single walk (graphql-js's parallel visitor), reporting
/// errors to the shared context. Rules are structs, so a validation allocates none of
/// them: a `RuleList` holds them inline.
protocol ValidationRule {
    init()
    /// The kinds of node whose `enter` does anything (the dispatcher calls no other).
    /// Rules declare it and `leaves` as `static let`: a constant the dispatcher's tests
    /// fold away, where a computed `[.a, .b]` may build an array at every node.
    static var enters: VisitKinds { get }
    /// The kinds of node whose `leave` does anything.
    static var leaves: VisitKinds { get }
    /// Called on entering a node; returning false skips the node's children for this rule.
    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool
    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext)
    /// Called on entering a field instead of `enter`: fields are the most numerous
    /// nodes, and a field passed as it is need not be copied out of a `VisitNode` by
    /// every rule. The default forwards to `enter`.
    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool
    /// Called on leaving a field instead of `leave`; the default forwards to `leave`.
    mutating func leaveField(_ field: Field, _ context: inout ValidationContext)
}

extension ValidationRule {
    static var enters: VisitKinds { VisitKinds() }
    static var leaves: VisitKinds { VisitKinds() }
    mutating func enter(_ node: VisitNode, _ context: inout ValidationContext) -> Bool { true }
    mutating func leave(_ node: VisitNode, _ context: inout ValidationContext) {}
    mutating func enterField(_ field: Field, _ context: inout ValidationContext) -> Bool {
        enter(.field(field), &context)
    }
    mutating func leaveField(_ field: Field, _ context: inout ValidationContext) { leave(.field(field), &context) }
}

/// A set of `VisitNode` kinds.
struct VisitKinds: OptionSet {
    let rawValue: UInt16
    static var document: VisitKinds { VisitKinds(rawValue: 1 << 0) }
    static var operation: VisitKinds { VisitKinds(rawValue: 1 << 1) }
    static var variableDefinition: VisitKinds { VisitKinds(rawValue: 1 << 2) }
    static var selectionSet: VisitKinds { VisitKinds(rawValue: 1 << 3) }
    static var field: VisitKinds { VisitKinds(rawValue: 1 << 4) }
    static var fragmentSpread: VisitKinds { VisitKinds(rawValue: 1 << 5) }
    static var inlineFragment: VisitKinds { VisitKinds(rawValue: 1 << 6) }
    static var fragmentDefinition: VisitKinds { VisitKinds(rawValue: 1 << 7) }
    static var directive: VisitKinds { VisitKinds(rawValue: 1 << 8) }
    static var argument: VisitKinds { VisitKinds(rawValue: 1 << 9) }
    static var value: VisitKinds { VisitKinds(rawValue: 1 << 10) }
    static var objectField: VisitKinds { VisitKinds(rawValue: 1 << 11) }
    static var namedType: VisitKinds { VisitKinds(rawValue: 1 << 12) }
    static var all: VisitKinds { VisitKinds(rawValue: (1 << 13) - 1) }
    static var count: Int { 13 }
}

extension VisitNode {
    /// This node's kind.
    var kind: VisitKinds {
        switch self {
        case .document: .document
        case .operation: .operation
        case .variableDefinition: .variableDefinition
        case .selectionSet: .selectionSet
        case .field: .field
        case .fragmentSpread: .fragmentSpread
        case .inlineFragment: .inlineFragment
        case .fragmentDefinition: .fragmentDefinition
        case .directive: .directive
        case .argument: .argument
        case .value: .value
        case .objectField: .objectField
        case .namedType: .namedType
        }
    }
}
