/// The rules of spec §5, in graphql-js's `specifiedRules` order (which fixes the
/// order of errors at one node), followed by the recommended `MaxIntrospectionDepthRule`.
/// Adding a rule is adding its line here.
@inline(__always)
func specifiedRules() -> some ValidationRules {
    NoRules()
        .then(ExecutableDefinitionsRule.self)
        .then(UniqueOperationNamesRule.self)
        .then(LoneAnonymousOperationRule.self)
        .then(SingleFieldSubscriptionsRule.self)
        .then(KnownTypeNamesRule.self)
        .then(FragmentsOnCompositeTypesRule.self)
        .then(VariablesAreInputTypesRule.self)
        .then(ScalarLeafsRule.self)
        .then(FieldsOnCorrectTypeRule.self)
        .then(UniqueFragmentNamesRule.self)
        .then(KnownFragmentNamesRule.self)
        .then(NoUnusedFragmentsRule.self)
        .then(PossibleFragmentSpreadsRule.self)
        .then(NoFragmentCyclesRule.self)
        .then(UniqueVariableNamesRule.self)
        .then(NoUndefinedVariablesRule.self)
        .then(NoUnusedVariablesRule.self)
        .then(KnownDirectivesRule.self)
        .then(UniqueDirectivesPerLocationRule.self)
        .then(KnownArgumentNamesRule.self)
        .then(UniqueArgumentNamesRule.self)
        .then(ValuesOfCorrectTypeRule.self)
        .then(ProvidedRequiredArgumentsRule.self)
        .then(VariablesInAllowedPositionRule.self)
        .then(OverlappingFieldsCanBeMergedRule.self)
        .then(UniqueInputFieldNamesRule.self)
        .then(MaxIntrospectionDepthRule.self)
}

/// Validates an executable document against a schema (spec §5 Validation).
///
/// All rules run in one walk with type information, so errors come in the order
/// graphql-js reports them. After `maxErrors` errors, validation stops with a final
/// `Too many validation errors, error limit reached. Validation aborted.` error.
/// An empty result means the document is valid.
///
/// - Parameters:
///   - source: the document's source, for the line and column of each error.
public func validate(schema: GraphQLSchema, document: Document, source: Source, maxErrors: Int = 100) -> [GraphQLError] {
    validate(schema: schema, document: document, source: source, rules: specifiedRules(), maxErrors: maxErrors)
}

/// Validates with a chosen list of rules: `validate(schema:document:source:maxErrors:)`
/// passes `specifiedRules()`, the tests of one rule a list of that rule alone. The
/// list is consumed (moved into the dispatcher, not copied).
func validate(
    schema: GraphQLSchema, document: Document, source: Source, rules: consuming some ValidationRules, maxErrors: Int = 100
) -> [GraphQLError] {
    let context = ValidationContext(schema: schema, document: document, source: source, maxErrors: maxErrors)
    var walker = TypedWalker(visitor: RuleDispatcher(context: context, rules: rules))
    walker.walk(document)
    return walker.visitor.state.context.errors
}
