/// One validation rule of spec §5: it is created for each validation and called at
/// every node of the single walk (graphql-js's parallel visitor), reporting errors to
/// the shared context.
protocol ValidationRule: AnyObject {
    init(context: ValidationContext)
    /// Called on entering a node; returning false skips the node's children for this rule.
    func enter(_ node: VisitNode) -> Bool
    func leave(_ node: VisitNode)
}

extension ValidationRule {
    func enter(_ node: VisitNode) -> Bool { true }
    func leave(_ node: VisitNode) {}
}

/// Calls every rule at each node, in order, honouring each rule's own skips.
final class RuleDispatcher: TypedVisitor {
    let context: ValidationContext
    let rules: [any ValidationRule]
    private var skippingAt: [Int?]
    private var depth = 0

    init(context: ValidationContext, rules: [any ValidationRule]) {
        self.context = context
        self.rules = rules
        self.skippingAt = Array(repeating: nil, count: rules.count)
    }

    var isStopped: Bool { context.isAborted }

    func enter(_ node: VisitNode, _ typeInfo: TypeInfo) -> Bool {
        depth += 1
        for index in rules.indices where skippingAt[index] == nil {
            if context.isAborted { return false }
            if !rules[index].enter(node) { skippingAt[index] = depth }
        }
        return true
    }

    func leave(_ node: VisitNode, _ typeInfo: TypeInfo) {
        for index in rules.indices {
            if context.isAborted { break }
            if let skipDepth = skippingAt[index] {
                if skipDepth == depth { skippingAt[index] = nil }
            } else {
                rules[index].leave(node)
            }
        }
        depth -= 1
    }
}
