/// The rules of spec §5, in graphql-js's `specifiedRules` order (which fixes the
/// order of errors at one node), followed by the recommended `MaxIntrospectionDepthRule`.
/// `SpecifiedRules` holds the same rules in the same order.
var specifiedRules: [any ValidationRule.Type] {
    [
    ExecutableDefinitionsRule.self,
    UniqueOperationNamesRule.self,
    LoneAnonymousOperationRule.self,
    SingleFieldSubscriptionsRule.self,
    KnownTypeNamesRule.self,
    FragmentsOnCompositeTypesRule.self,
    VariablesAreInputTypesRule.self,
    ScalarLeafsRule.self,
    FieldsOnCorrectTypeRule.self,
    UniqueFragmentNamesRule.self,
    KnownFragmentNamesRule.self,
    NoUnusedFragmentsRule.self,
    PossibleFragmentSpreadsRule.self,
    NoFragmentCyclesRule.self,
    UniqueVariableNamesRule.self,
    NoUndefinedVariablesRule.self,
    NoUnusedVariablesRule.self,
    KnownDirectivesRule.self,
    UniqueDirectivesPerLocationRule.self,
    KnownArgumentNamesRule.self,
    UniqueArgumentNamesRule.self,
    ValuesOfCorrectTypeRule.self,
    ProvidedRequiredArgumentsRule.self,
    VariablesInAllowedPositionRule.self,
    OverlappingFieldsCanBeMergedRule.self,
    UniqueInputFieldNamesRule.self,
    MaxIntrospectionDepthRule.self,
    ]
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
    let context = ValidationContext(schema: schema, document: document, source: source, maxErrors: maxErrors)
    var walker = TypedWalker(visitor: SpecifiedRules(context: context))
    walker.walk(document)
    return walker.visitor.state.context.errors
}

/// Validates with a chosen list of rules (used by the tests of each rule).
func validate(
    schema: GraphQLSchema, document: Document, source: Source, rules: [any ValidationRule.Type], maxErrors: Int = 100
) -> [GraphQLError] {
    let context = ValidationContext(schema: schema, document: document, source: source, maxErrors: maxErrors)
    var walker = TypedWalker(visitor: RuleDispatcher(context: context, rules: rules))
    walker.walk(document)
    return walker.visitor.state.context.errors
}
