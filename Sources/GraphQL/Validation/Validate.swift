/// The rules of spec §5, in graphql-js's `specifiedRules` order (which fixes the
/// order of errors at one node), followed by the recommended `MaxIntrospectionDepthRule`.
/// Adding a rule is adding its line here.
typealias SpecifiedRules = NoRules
    .Then<ExecutableDefinitionsRule>
    .Then<UniqueOperationNamesRule>
    .Then<LoneAnonymousOperationRule>
    .Then<SingleFieldSubscriptionsRule>
    .Then<KnownTypeNamesRule>
    .Then<FragmentsOnCompositeTypesRule>
    .Then<VariablesAreInputTypesRule>
    .Then<ScalarLeafsRule>
    .Then<FieldsOnCorrectTypeRule>
    .Then<UniqueFragmentNamesRule>
    .Then<KnownFragmentNamesRule>
    .Then<NoUnusedFragmentsRule>
    .Then<PossibleFragmentSpreadsRule>
    .Then<NoFragmentCyclesRule>
    .Then<UniqueVariableNamesRule>
    .Then<NoUndefinedVariablesRule>
    .Then<NoUnusedVariablesRule>
    .Then<KnownDirectivesRule>
    .Then<UniqueDirectivesPerLocationRule>
    .Then<KnownArgumentNamesRule>
    .Then<UniqueArgumentNamesRule>
    .Then<ValuesOfCorrectTypeRule>
    .Then<ProvidedRequiredArgumentsRule>
    .Then<VariablesInAllowedPositionRule>
    .Then<OverlappingFieldsCanBeMergedRule>
    .Then<UniqueInputFieldNamesRule>
    .Then<MaxIntrospectionDepthRule>

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
    validate(schema: schema, document: document, source: source, rules: SpecifiedRules.self, maxErrors: maxErrors)
}

/// Validates with a chosen list of rules: `validate(schema:document:source:maxErrors:)`
/// passes `SpecifiedRules`, the tests of one rule a list of that rule alone.
func validate<Rules: ValidationRules>(
    schema: GraphQLSchema, document: Document, source: Source, rules: Rules.Type, maxErrors: Int = 100
) -> [GraphQLError] {
    let context = ValidationContext(schema: schema, document: document, source: source, maxErrors: maxErrors)
    var walker = TypedWalker(visitor: RuleDispatcher<Rules>(context: context))
    walker.walk(document)
    return walker.visitor.state.context.errors
}
