/// One validation rule of spec §5: it is created for each validation and called at
/// every node of the single walk (graphql-js's parallel visitor), reporting errors to
/// the shared context.
protocol ValidationRule: AnyObject {
    init(context: ValidationContext)
    /// The kinds of node whose `enter` does anything (the dispatcher calls no other).
    static var enters: VisitKinds { get }
    /// The kinds of node whose `leave` does anything.
    static var leaves: VisitKinds { get }
    /// Called on entering a node; returning false skips the node's children for this rule.
    func enter(_ node: VisitNode) -> Bool
    func leave(_ node: VisitNode)
}

extension ValidationRule {
    static var enters: VisitKinds { .all }
    static var leaves: VisitKinds { [] }
    func enter(_ node: VisitNode) -> Bool { true }
    func leave(_ node: VisitNode) {}
}

/// A set of `VisitNode` kinds.
struct VisitKinds: OptionSet {
    let rawValue: UInt16
    static let document = VisitKinds(rawValue: 1 << 0)
    static let operation = VisitKinds(rawValue: 1 << 1)
    static let variableDefinition = VisitKinds(rawValue: 1 << 2)
    static let selectionSet = VisitKinds(rawValue: 1 << 3)
    static let field = VisitKinds(rawValue: 1 << 4)
    static let fragmentSpread = VisitKinds(rawValue: 1 << 5)
    static let inlineFragment = VisitKinds(rawValue: 1 << 6)
    static let fragmentDefinition = VisitKinds(rawValue: 1 << 7)
    static let directive = VisitKinds(rawValue: 1 << 8)
    static let argument = VisitKinds(rawValue: 1 << 9)
    static let value = VisitKinds(rawValue: 1 << 10)
    static let objectField = VisitKinds(rawValue: 1 << 11)
    static let namedType = VisitKinds(rawValue: 1 << 12)
    static let all = VisitKinds(rawValue: (1 << 13) - 1)
    static let count = 13
}

extension VisitNode {
    /// The position of this node's kind in `VisitKinds`.
    var kindIndex: Int {
        switch self {
        case .document: 0
        case .operation: 1
        case .variableDefinition: 2
        case .selectionSet: 3
        case .field: 4
        case .fragmentSpread: 5
        case .inlineFragment: 6
        case .fragmentDefinition: 7
        case .directive: 8
        case .argument: 9
        case .value: 10
        case .objectField: 11
        case .namedType: 12
        }
    }
}

/// Calls every rule at each node, in order, honouring each rule's own skips. Rules
/// are called only at the kinds of node they declare (`enters`, `leaves`); at others
/// their `enter` would return true and their `leave` do nothing.
final class RuleDispatcher: TypedVisitor {
    let context: ValidationContext
    let rules: [any ValidationRule]
    private var skippingAt: [Int?]
    private var depth = 0
    private let tables: RuleTables

    init(context: ValidationContext, rules: [any ValidationRule], tables: RuleTables) {
        self.context = context
        self.rules = rules
        self.skippingAt = Array(repeating: nil, count: rules.count)
        self.tables = tables
    }

    var isStopped: Bool { context.isAborted }

    /// The variable usages of the operation being walked, as `VariableUsageCollector`
    /// would find them (outside variable definitions), handed to the context on leaving
    /// the operation so its rules need no second walk.
    private var usages: [VariableUsage] = []
    private var inOperation = false
    private var inVariableDefinition = false

    private func record(_ node: VisitNode, _ typeInfo: TypeInfo) {
        switch node {
        case .operation:
            usages = []
            inOperation = true
        case .variableDefinition:
            inVariableDefinition = true
        case .value(let value):
            if inOperation, !inVariableDefinition, case .variable(let name) = value.kind {
                usages.append(VariableUsage(name: name, node: value, type: typeInfo.inputType, defaultValue: typeInfo.defaultValue))
            }
        default:
            break
        }
    }

    func enter(_ node: VisitNode, _ typeInfo: TypeInfo) -> Bool {
        depth += 1
        record(node, typeInfo)
        for index in tables.entering[node.kindIndex] where skippingAt[index] == nil {
            if context.isAborted { return false }
            if !rules[index].enter(node) { skippingAt[index] = depth }
        }
        return true
    }

    func leave(_ node: VisitNode, _ typeInfo: TypeInfo) {
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
        for (index, leaves) in tables.leaving[node.kindIndex] {
            if context.isAborted { break }
            if let skipDepth = skippingAt[index] {
                if skipDepth == depth { skippingAt[index] = nil }
            } else if leaves {
                rules[index].leave(node)
            }
        }
        depth -= 1
    }
}

/// Which rules of a rule list to call at each kind of node, from their `enters` and
/// `leaves`.
struct RuleTables: Sendable {
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

    /// The tables of `specifiedRules`, computed once.
    static let specified = RuleTables(specifiedRules)
}
