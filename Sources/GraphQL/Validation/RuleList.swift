/// An ordered list of validation rules as a type (`NoRules.Then<A>.Then<B>` is
/// `RuleList<RuleList<NoRules, A>, B>`), so that a dispatcher specialised for it
/// holds the rules inline, calls each directly, and calls at each kind of node only
/// the rules that handle it.
protocol ValidationRules {
    /// Every rule created empty.
    init()
    /// Calls each rule, in order, on entering a node of kind `kind`.
    mutating func enter(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState)
    mutating func leave(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState)
    mutating func enterField(_ field: Field, _ state: inout DispatchState)
    mutating func leaveField(_ field: Field, _ state: inout DispatchState)
}

extension ValidationRules {
    /// This list followed by `Rule`.
    typealias Then<Rule: ValidationRule> = RuleList<Self, Rule>
}

/// The empty list of rules, which every list starts from.
struct NoRules: ValidationRules {
    init() {}
    @inline(__always) func enter(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState) {}
    @inline(__always) func leave(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState) {}
    @inline(__always) func enterField(_ field: Field, _ state: inout DispatchState) {}
    @inline(__always) func leaveField(_ field: Field, _ state: inout DispatchState) {}
}

/// The rules of `Earlier`, then `Rule`, held inline. Each call goes to the earlier
/// rules first, then to this one unless it does not handle that kind of node or is
/// skipping: `Rule.enters` and `Rule.leaves` are constants, so once a call with a
/// constant kind is inlined the test folds away.
struct RuleList<Earlier: ValidationRules, Rule: ValidationRule>: ValidationRules {
    var earlier = Earlier()
    var rule = Rule()
    /// While the rule skips the children of a node (its `enter` returned false), that
    /// node's depth; otherwise 0.
    var skipDepth = 0

    init() {}

    @inline(__always)
    mutating func enter(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState) {
        earlier.enter(kind, node, &state)
        guard Rule.enters.contains(kind), skipDepth == 0 else { return }
        if !rule.enter(node, &state.context) { skipDepth = state.depth }
    }

    @inline(__always)
    mutating func enterField(_ field: Field, _ state: inout DispatchState) {
        earlier.enterField(field, &state)
        guard Rule.enters.contains(.field), skipDepth == 0 else { return }
        if !rule.enterField(field, &state.context) { skipDepth = state.depth }
    }

    @inline(__always)
    mutating func leaveField(_ field: Field, _ state: inout DispatchState) {
        earlier.leaveField(field, &state)
        guard Rule.enters.contains(.field) || Rule.leaves.contains(.field) else { return }
        if skipDepth != 0 {
            if skipDepth == state.depth { skipDepth = 0 }
        } else if Rule.leaves.contains(.field), !state.context.isAborted {
            rule.leaveField(field, &state.context)
        }
    }

    @inline(__always)
    mutating func leave(_ kind: VisitKinds, _ node: VisitNode, _ state: inout DispatchState) {
        earlier.leave(kind, node, &state)
        guard Rule.enters.contains(kind) || Rule.leaves.contains(kind) else { return }
        if skipDepth != 0 {
            if skipDepth == state.depth { skipDepth = 0 }
        } else if Rule.leaves.contains(kind), !state.context.isAborted {
            rule.leave(node, &state.context)
        }
    }
}
