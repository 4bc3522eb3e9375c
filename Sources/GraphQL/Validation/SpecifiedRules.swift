/// The specified rules held inline and called directly, in `specifiedRules` order:
/// one validation allocates no rule, and at each kind of node only the rules that
/// handle it are called (the kind tests fold away once `call` is inlined).
struct SpecifiedRules: TypedVisitor {
    var state: DispatchState
    private var executableDefinitions = RuleSlot<ExecutableDefinitionsRule>()
    private var uniqueOperationNames = RuleSlot<UniqueOperationNamesRule>()
    private var loneAnonymousOperation = RuleSlot<LoneAnonymousOperationRule>()
    private var singleFieldSubscriptions = RuleSlot<SingleFieldSubscriptionsRule>()
    private var knownTypeNames = RuleSlot<KnownTypeNamesRule>()
    private var fragmentsOnCompositeTypes = RuleSlot<FragmentsOnCompositeTypesRule>()
    private var variablesAreInputTypes = RuleSlot<VariablesAreInputTypesRule>()
    private var scalarLeafs = RuleSlot<ScalarLeafsRule>()
    private var fieldsOnCorrectType = RuleSlot<FieldsOnCorrectTypeRule>()
    private var uniqueFragmentNames = RuleSlot<UniqueFragmentNamesRule>()
    private var knownFragmentNames = RuleSlot<KnownFragmentNamesRule>()
    private var noUnusedFragments = RuleSlot<NoUnusedFragmentsRule>()
    private var possibleFragmentSpreads = RuleSlot<PossibleFragmentSpreadsRule>()
    private var noFragmentCycles = RuleSlot<NoFragmentCyclesRule>()
    private var uniqueVariableNames = RuleSlot<UniqueVariableNamesRule>()
    private var noUndefinedVariables = RuleSlot<NoUndefinedVariablesRule>()
    private var noUnusedVariables = RuleSlot<NoUnusedVariablesRule>()
    private var knownDirectives = RuleSlot<KnownDirectivesRule>()
    private var uniqueDirectivesPerLocation = RuleSlot<UniqueDirectivesPerLocationRule>()
    private var knownArgumentNames = RuleSlot<KnownArgumentNamesRule>()
    private var uniqueArgumentNames = RuleSlot<UniqueArgumentNamesRule>()
    private var valuesOfCorrectType = RuleSlot<ValuesOfCorrectTypeRule>()
    private var providedRequiredArguments = RuleSlot<ProvidedRequiredArgumentsRule>()
    private var variablesInAllowedPosition = RuleSlot<VariablesInAllowedPositionRule>()
    private var overlappingFieldsCanBeMerged = RuleSlot<OverlappingFieldsCanBeMergedRule>()
    private var uniqueInputFieldNames = RuleSlot<UniqueInputFieldNamesRule>()
    private var maxIntrospectionDepth = RuleSlot<MaxIntrospectionDepthRule>()

    init(context: ValidationContext) { self.state = DispatchState(context: context) }

    var isStopped: Bool { state.context.isAborted }
    mutating func enterTypeInfo(_ node: VisitNode) { state.context.typeInfo.enter(node) }
    mutating func leaveTypeInfo(_ node: VisitNode) { state.context.typeInfo.leave(node) }
    mutating func enterFieldTypeInfo(_ field: Field) { state.context.typeInfo.enterField(field) }
    mutating func leaveFieldTypeInfo(_ field: Field) { state.context.typeInfo.leaveField() }

    mutating func enterField(_ field: Field) -> Bool {
        state.depth += 1  // all `DispatchState.entering` does for a field
        enterAllField(field)
        return !state.context.isAborted
    }

    mutating func leaveField(_ field: Field) {
        leaveAllField(field)
        state.depth -= 1
    }

    mutating func enter(_ node: VisitNode) -> Bool {
        state.entering(node)
        switch node {
        case .document: enterAll(.document, node)
        case .operation: enterAll(.operation, node)
        case .variableDefinition: enterAll(.variableDefinition, node)
        case .selectionSet: enterAll(.selectionSet, node)
        case .field(let field): enterAllField(field)
        case .fragmentSpread: enterAll(.fragmentSpread, node)
        case .inlineFragment: enterAll(.inlineFragment, node)
        case .fragmentDefinition: enterAll(.fragmentDefinition, node)
        case .directive: enterAll(.directive, node)
        case .argument: enterAll(.argument, node)
        case .value: enterAll(.value, node)
        case .objectField: enterAll(.objectField, node)
        case .namedType: enterAll(.namedType, node)
        }
        return !state.context.isAborted
    }

    mutating func leave(_ node: VisitNode) {
        state.leaving(node)
        switch node {
        case .document: leaveAll(.document, node)
        case .operation: leaveAll(.operation, node)
        case .variableDefinition: leaveAll(.variableDefinition, node)
        case .selectionSet: leaveAll(.selectionSet, node)
        case .field(let field): leaveAllField(field)
        case .fragmentSpread: leaveAll(.fragmentSpread, node)
        case .inlineFragment: leaveAll(.inlineFragment, node)
        case .fragmentDefinition: leaveAll(.fragmentDefinition, node)
        case .directive: leaveAll(.directive, node)
        case .argument: leaveAll(.argument, node)
        case .value: leaveAll(.value, node)
        case .objectField: leaveAll(.objectField, node)
        case .namedType: leaveAll(.namedType, node)
        }
        state.depth -= 1
    }

    @inline(__always)
    private mutating func enterAllField(_ field: Field) {
        executableDefinitions.enterField(field, &state)
        uniqueOperationNames.enterField(field, &state)
        loneAnonymousOperation.enterField(field, &state)
        singleFieldSubscriptions.enterField(field, &state)
        knownTypeNames.enterField(field, &state)
        fragmentsOnCompositeTypes.enterField(field, &state)
        variablesAreInputTypes.enterField(field, &state)
        scalarLeafs.enterField(field, &state)
        fieldsOnCorrectType.enterField(field, &state)
        uniqueFragmentNames.enterField(field, &state)
        knownFragmentNames.enterField(field, &state)
        noUnusedFragments.enterField(field, &state)
        possibleFragmentSpreads.enterField(field, &state)
        noFragmentCycles.enterField(field, &state)
        uniqueVariableNames.enterField(field, &state)
        noUndefinedVariables.enterField(field, &state)
        noUnusedVariables.enterField(field, &state)
        knownDirectives.enterField(field, &state)
        uniqueDirectivesPerLocation.enterField(field, &state)
        knownArgumentNames.enterField(field, &state)
        uniqueArgumentNames.enterField(field, &state)
        valuesOfCorrectType.enterField(field, &state)
        providedRequiredArguments.enterField(field, &state)
        variablesInAllowedPosition.enterField(field, &state)
        overlappingFieldsCanBeMerged.enterField(field, &state)
        uniqueInputFieldNames.enterField(field, &state)
        maxIntrospectionDepth.enterField(field, &state)
    }

    @inline(__always)
    private mutating func leaveAllField(_ field: Field) {
        executableDefinitions.leaveField(field, &state)
        uniqueOperationNames.leaveField(field, &state)
        loneAnonymousOperation.leaveField(field, &state)
        singleFieldSubscriptions.leaveField(field, &state)
        knownTypeNames.leaveField(field, &state)
        fragmentsOnCompositeTypes.leaveField(field, &state)
        variablesAreInputTypes.leaveField(field, &state)
        scalarLeafs.leaveField(field, &state)
        fieldsOnCorrectType.leaveField(field, &state)
        uniqueFragmentNames.leaveField(field, &state)
        knownFragmentNames.leaveField(field, &state)
        noUnusedFragments.leaveField(field, &state)
        possibleFragmentSpreads.leaveField(field, &state)
        noFragmentCycles.leaveField(field, &state)
        uniqueVariableNames.leaveField(field, &state)
        noUndefinedVariables.leaveField(field, &state)
        noUnusedVariables.leaveField(field, &state)
        knownDirectives.leaveField(field, &state)
        uniqueDirectivesPerLocation.leaveField(field, &state)
        knownArgumentNames.leaveField(field, &state)
        uniqueArgumentNames.leaveField(field, &state)
        valuesOfCorrectType.leaveField(field, &state)
        providedRequiredArguments.leaveField(field, &state)
        variablesInAllowedPosition.leaveField(field, &state)
        overlappingFieldsCanBeMerged.leaveField(field, &state)
        uniqueInputFieldNames.leaveField(field, &state)
        maxIntrospectionDepth.leaveField(field, &state)
    }

    @inline(__always)
    private mutating func enterAll(_ kind: VisitKinds, _ node: VisitNode) {
        executableDefinitions.enter(kind, node, &state)
        uniqueOperationNames.enter(kind, node, &state)
        loneAnonymousOperation.enter(kind, node, &state)
        singleFieldSubscriptions.enter(kind, node, &state)
        knownTypeNames.enter(kind, node, &state)
        fragmentsOnCompositeTypes.enter(kind, node, &state)
        variablesAreInputTypes.enter(kind, node, &state)
        scalarLeafs.enter(kind, node, &state)
        fieldsOnCorrectType.enter(kind, node, &state)
        uniqueFragmentNames.enter(kind, node, &state)
        knownFragmentNames.enter(kind, node, &state)
        noUnusedFragments.enter(kind, node, &state)
        possibleFragmentSpreads.enter(kind, node, &state)
        noFragmentCycles.enter(kind, node, &state)
        uniqueVariableNames.enter(kind, node, &state)
        noUndefinedVariables.enter(kind, node, &state)
        noUnusedVariables.enter(kind, node, &state)
        knownDirectives.enter(kind, node, &state)
        uniqueDirectivesPerLocation.enter(kind, node, &state)
        knownArgumentNames.enter(kind, node, &state)
        uniqueArgumentNames.enter(kind, node, &state)
        valuesOfCorrectType.enter(kind, node, &state)
        providedRequiredArguments.enter(kind, node, &state)
        variablesInAllowedPosition.enter(kind, node, &state)
        overlappingFieldsCanBeMerged.enter(kind, node, &state)
        uniqueInputFieldNames.enter(kind, node, &state)
        maxIntrospectionDepth.enter(kind, node, &state)
    }

    @inline(__always)
    private mutating func leaveAll(_ kind: VisitKinds, _ node: VisitNode) {
        executableDefinitions.leave(kind, node, &state)
        uniqueOperationNames.leave(kind, node, &state)
        loneAnonymousOperation.leave(kind, node, &state)
        singleFieldSubscriptions.leave(kind, node, &state)
        knownTypeNames.leave(kind, node, &state)
        fragmentsOnCompositeTypes.leave(kind, node, &state)
        variablesAreInputTypes.leave(kind, node, &state)
        scalarLeafs.leave(kind, node, &state)
        fieldsOnCorrectType.leave(kind, node, &state)
        uniqueFragmentNames.leave(kind, node, &state)
        knownFragmentNames.leave(kind, node, &state)
        noUnusedFragments.leave(kind, node, &state)
        possibleFragmentSpreads.leave(kind, node, &state)
        noFragmentCycles.leave(kind, node, &state)
        uniqueVariableNames.leave(kind, node, &state)
        noUndefinedVariables.leave(kind, node, &state)
        noUnusedVariables.leave(kind, node, &state)
        knownDirectives.leave(kind, node, &state)
        uniqueDirectivesPerLocation.leave(kind, node, &state)
        knownArgumentNames.leave(kind, node, &state)
        uniqueArgumentNames.leave(kind, node, &state)
        valuesOfCorrectType.leave(kind, node, &state)
        providedRequiredArguments.leave(kind, node, &state)
        variablesInAllowedPosition.leave(kind, node, &state)
        overlappingFieldsCanBeMerged.leave(kind, node, &state)
        uniqueInputFieldNames.leave(kind, node, &state)
        maxIntrospectionDepth.leave(kind, node, &state)
    }
}
