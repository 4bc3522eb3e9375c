@testable import GraphQL
import Testing

/// `validate(schema:document:source:)` calls the specified rules through
/// `SpecifiedRules` (held inline, called per node kind) while the rule tests call them
/// through `RuleDispatcher` (a list of rules given at run time): both must report the
/// same errors, in the same order, for every document of the rule tests.
struct SpecifiedRulesTests {
    static let documents: [String] = {
        let cases: [[ValidationCase]] = [
            ExecutableDefinitionsRuleTests.cases, FieldsOnCorrectTypeRuleTests.cases,
            FragmentsOnCompositeTypesRuleTests.cases, KnownArgumentNamesRuleTests.cases,
            KnownDirectivesRuleTests.cases, KnownFragmentNamesRuleTests.cases, KnownTypeNamesRuleTests.cases,
            LoneAnonymousOperationRuleTests.cases, MaxIntrospectionDepthRuleTests.cases,
            NoFragmentCyclesRuleTests.cases, NoUndefinedVariablesRuleTests.cases, NoUnusedFragmentsRuleTests.cases,
            NoUnusedVariablesRuleTests.cases, OverlappingFieldsCanBeMergedRuleTests.cases,
            PossibleFragmentSpreadsRuleTests.cases, ProvidedRequiredArgumentsRuleTests.cases,
            ScalarLeafsRuleTests.cases, SingleFieldSubscriptionsRuleTests.cases, UniqueArgumentNamesRuleTests.cases,
            UniqueDirectivesPerLocationRuleTests.cases, UniqueFragmentNamesRuleTests.cases,
            UniqueInputFieldNamesRuleTests.cases, UniqueOperationNamesRuleTests.cases,
            UniqueVariableNamesRuleTests.cases, ValuesOfCorrectTypeRuleTests.cases,
            VariablesAreInputTypesRuleTests.cases, VariablesInAllowedPositionRuleTests.cases, ValidateTests.cases,
        ]
        return cases.flatMap { $0.map(\.document) }
    }()

    @Test func specifiedRulesAgreeWithTheRuleList() {
        for document in Self.documents {
            let source = Source(document)
            guard let parsed = try? parse(source) else { continue }
            for maxErrors in [100, 2] {
                let direct = validate(schema: ValidationHarness.schema, document: parsed, source: source, maxErrors: maxErrors)
                let listed = validate(
                    schema: ValidationHarness.schema, document: parsed, source: source, rules: specifiedRules,
                    maxErrors: maxErrors)
                #expect(direct.map(\.description) == listed.map(\.description), "\(document)")
            }
        }
    }

    /// A document without a `$` in its text uses no variable, and its usage walks are
    /// skipped; a document built in code has no text to look at and is walked.
    @Test func variableUsagesOfBuiltDocumentsAreStillFound() {
        let operation = OperationDefinition(
            operation: .query,
            selectionSet: SelectionSet(selections: [
                .field(Field(name: Name("dog"), directives: [
                    Directive(name: Name("include"), arguments: [Argument(name: Name("if"), value: Value(.variable("missing")))])
                ], selectionSet: SelectionSet(selections: [.field(Field(name: Name("name")))])))
            ]))
        let errors = validate(
            schema: ValidationHarness.schema, document: Document(definitions: [.operation(operation)]),
            source: Source("{ dog { name } }"))
        #expect(errors.map(\.message) == ["Variable \"$missing\" is not defined."])
    }
}
