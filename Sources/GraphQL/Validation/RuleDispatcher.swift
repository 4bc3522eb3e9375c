/// Calls a list of rules at every node of the walk, in the list's order, keeping the
/// type information and the `DispatchState`. Specialised for a list, one validation
/// allocates no rule, and at each kind of node only the rules that handle it are
/// called: each `case` below passes its kind as a constant.
struct RuleDispatcher<Rules: ValidationRules>: TypedVisitor {
    var state: DispatchState
    private var rules = Rules()

    init(context: ValidationContext) { self.state = DispatchState(context: context) }

    var isStopped: Bool { state.context.isAborted }
    mutating func enterTypeInfo(_ node: VisitNode) { state.context.typeInfo.enter(node) }
    mutating func leaveTypeInfo(_ node: VisitNode) { state.context.typeInfo.leave(node) }
    mutating func enterFieldTypeInfo(_ field: Field) { state.context.typeInfo.enterField(field) }
    mutating func leaveFieldTypeInfo(_ field: Field) { state.context.typeInfo.leaveField() }

    mutating func enterField(_ field: Field) -> Bool {
        state.depth += 1  // all `DispatchState.entering` does for a field
        rules.enterField(field, &state)
        return !state.context.isAborted
    }

    mutating func leaveField(_ field: Field) {
        rules.leaveField(field, &state)
        state.depth -= 1
    }

    mutating func enter(_ node: VisitNode) -> Bool {
        state.entering(node)
        switch node {
        case .document: rules.enter(.document, node, &state)
        case .operation: rules.enter(.operation, node, &state)
        case .variableDefinition: rules.enter(.variableDefinition, node, &state)
        case .selectionSet: rules.enter(.selectionSet, node, &state)
        case .field(let field): rules.enterField(field, &state)
        case .fragmentSpread: rules.enter(.fragmentSpread, node, &state)
        case .inlineFragment: rules.enter(.inlineFragment, node, &state)
        case .fragmentDefinition: rules.enter(.fragmentDefinition, node, &state)
        case .directive: rules.enter(.directive, node, &state)
        case .argument: rules.enter(.argument, node, &state)
        case .value: rules.enter(.value, node, &state)
        case .objectField: rules.enter(.objectField, node, &state)
        case .namedType: rules.enter(.namedType, node, &state)
        }
        return !state.context.isAborted
    }

    mutating func leave(_ node: VisitNode) {
        state.leaving(node)
        switch node {
        case .document: rules.leave(.document, node, &state)
        case .operation: rules.leave(.operation, node, &state)
        case .variableDefinition: rules.leave(.variableDefinition, node, &state)
        case .selectionSet: rules.leave(.selectionSet, node, &state)
        case .field(let field): rules.leaveField(field, &state)
        case .fragmentSpread: rules.leave(.fragmentSpread, node, &state)
        case .inlineFragment: rules.leave(.inlineFragment, node, &state)
        case .fragmentDefinition: rules.leave(.fragmentDefinition, node, &state)
        case .directive: rules.leave(.directive, node, &state)
        case .argument: rules.leave(.argument, node, &state)
        case .value: rules.leave(.value, node, &state)
        case .objectField: rules.leave(.objectField, node, &state)
        case .namedType: rules.leave(.namedType, node, &state)
        }
        state.depth -= 1
    }
}

/// What the dispatcher does besides calling rules: it keeps the type information
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
