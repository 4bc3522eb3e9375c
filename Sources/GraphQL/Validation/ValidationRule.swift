/// One validation rule of spec §5: a value created empty for each validation and
/// called at every node of the single walk (graphql-js's parallel visitor), reporting
/// errors to the shared context. Rules are structs, so a validation allocates none of
/// them: the specified rules live inline in one `SpecifiedRules` value.
protocol ValidationRule {
    init()
    /// The kinds of node whose `enter` does anything (the dispatcher calls no other).
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
    static var enters: VisitKinds { [] }
    static var leaves: VisitKinds { [] }
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

/// What every dispatcher does besides calling rules: it keeps the type information
/// and collects the variable usages of the operation being walked, as
/// `VariableUsageCollector` would find them (outside variable definitions), handing
/// them to the context on leaving the operation so its rules need no second walk.
struct DispatchState {
    var context: ValidationContext
    /// The depth of the node being visited (the document is 1).
    var depth = 0
    private var usages: [VariableUsage] = []
    private var inOperation = false
    private var inVariableDefinition = false

    init(context: ValidationContext) { self.context = context }

    mutating func entering(_ node: VisitNode) {
        depth += 1
        switch node {
        case .operation:
            usages = []
            inOperation = true
        case .variableDefinition:
            inVariableDefinition = true
        case .value(let value):
            if inOperation, !inVariableDefinition, case .variable(let name) = value.kind {
                let typeInfo = context.typeInfo
                usages.append(VariableUsage(name: name, node: value, type: typeInfo.inputType, defaultValue: typeInfo.defaultValue))
            }
        default:
            break
        }
    }

    /// Called before the rules leave `node`.
    mutating func leaving(_ node: VisitNode) {
        switch node {
        case .operation(let operation):
            inOperation = false
            context.walkedOperation(operation, usages: usages)
            usages = []
        case .variableDefinition:
            inVariableDefinition = false
        default:
            break
        }
    }
}

/// A rule and, while it skips the children of a node (its `enter` returned false),
/// that node's depth.
struct RuleSlot<Rule: ValidationRule> {
    var rule = Rule()
    var skipDepth = 0

    /// Calls the rule on entering a node of kind `kind`, unless it does not enter such
    /// nodes or is skipping. Inlined with a constant kind, the test folds away.
    @inline(__always)
    mutating func enter(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState) {
        guard Rule.enters.contains(kind), skipDepth == 0 else { return }
        if !rule.enter(node, &state.context) { skipDepth = state.depth }
    }

    @inline(__always)
    mutating func enterField(_ field: Field, _ state: inout DispatchState) {
        guard Rule.enters.contains(.field), skipDepth == 0 else { return }
        if !rule.enterField(field, &state.context) { skipDepth = state.depth }
    }

    @inline(__always)
    mutating func leaveField(_ field: Field, _ state: inout DispatchState) {
        guard Rule.enters.contains(.field) || Rule.leaves.contains(.field) else { return }
        if skipDepth != 0 {
            if skipDepth == state.depth { skipDepth = 0 }
        } else if Rule.leaves.contains(.field), !state.context.isAborted {
            rule.leaveField(field, &state.context)
        }
    }

    @inline(__always)
    mutating func leave(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState) {
        guard Rule.enters.contains(kind) || Rule.leaves.contains(kind) else { return }
        if skipDepth != 0 {
            if skipDepth == state.depth { skipDepth = 0 }
        } else if Rule.leaves.contains(kind), !state.context.isAborted {
            rule.leave(node, &state.context)
        }
    }
}

/// Calls every rule of a list given at run time at each node, in order, honouring each
/// rule's own skips (used by the tests of single rules).
struct RuleDispatcher: TypedVisitor {
    var state: DispatchState
    private var rules: [any ValidationRule]
    private var skippingAt: [Int?]
    private let tables: RuleTables

    init(context: ValidationContext, rules: [any ValidationRule.Type]) {
        self.state = DispatchState(context: context)
        self.rules = rules.map { $0.init() }
        self.skippingAt = Array(repeating: nil, count: rules.count)
        self.tables = RuleTables(rules)
    }

    var isStopped: Bool { state.context.isAborted }
    mutating func enterTypeInfo(_ node: VisitNode) { state.context.typeInfo.enter(node) }
    mutating func leaveTypeInfo(_ node: VisitNode) { state.context.typeInfo.leave(node) }

    mutating func enter(_ node: VisitNode) -> Bool {
        state.entering(node)
        let field: Field?
        if case .field(let node) = node { field = node } else { field = nil }
        for index in tables.entering[node.kindIndex] where skippingAt[index] == nil {
            if state.context.isAborted { return false }
            let enters = if let field { rules[index].enterField(field, &state.context) } else { rules[index].enter(node, &state.context) }
            if !enters { skippingAt[index] = state.depth }
        }
        return true
    }

    mutating func leave(_ node: VisitNode) {
        state.leaving(node)
        let field: Field?
        if case .field(let node) = node { field = node } else { field = nil }
        for (index, leaves) in tables.leaving[node.kindIndex] {
            if state.context.isAborted { break }
            if let skipDepth = skippingAt[index] {
                if skipDepth == state.depth { skippingAt[index] = nil }
            } else if leaves {
                if let field { rules[index].leaveField(field, &state.context) } else { rules[index].leave(node, &state.context) }
            }
        }
        state.depth -= 1
    }
}

extension VisitNode {
    /// The position of this node's kind in `VisitKinds`.
    fileprivate var kindIndex: Int { kind.rawValue.trailingZeroBitCount }
}

/// Which rules of a rule list to call at each kind of node, from their `enters` and
/// `leaves`.
private struct RuleTables {
    /// Per node kind, the rules to call on entering it, in order.
    let entering: [[Int]]
    /// Per node kind, the rules to consider on leaving it: those that leave it, and
    /// those that enter it (which may have skipped it and must stop skipping).
    let leaving: [[(index: Int, leaves: Bool)]]

    init(_ rules: [any ValidationRule.Type]) {
        var entering = Array(repeating: [Int](), count: VisitKinds.count)
        var leaving = Array(repeating: [(index: Int, leaves: Bool)](), count: VisitKinds.count)
        for (index, rule) in rules.enumerated() {
            let enters = rule.enters
            let leaves = rule.leaves
            for kind in 0..<VisitKinds.count {
                let bit = VisitKinds(rawValue: 1 << kind)
                if enters.contains(bit) { entering[kind].append(index) }
                if enters.contains(bit) || leaves.contains(bit) {
                    leaving[kind].append((index, leaves.contains(bit)))
                }
            }
        }
        self.entering = entering
        self.leaving = leaving
    }
}
