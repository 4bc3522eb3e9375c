@testable import GraphQL
import Testing

/// Documents built in code carry empty synthetic spans; the per-node caches must not
/// confuse their selection sets and operations (all spans look alike).
struct SyntheticDocumentTests {
    static func field(_ name: String, alias: String? = nil, _ selections: [Selection]? = nil) -> Selection {
        .field(Field(alias: alias.map { Name($0) }, name: Name(name), selectionSet: selections.map { SelectionSet(selections: $0) }))
    }

    @Test func conflictsInBuiltDocumentsAreFound() {
        // { dog { x: name } cat { x: name } dog { x: nickname } }
        let document = Document(definitions: [
            .operation(OperationDefinition(operation: .query, selectionSet: SelectionSet(selections: [
                Self.field("dog", [Self.field("name", alias: "x")]),
                Self.field("cat", [Self.field("name", alias: "x")]),
                Self.field("dog", [Self.field("nickname", alias: "x")]),
            ])))
        ])
        let errors = validate(schema: ValidationHarness.schema, document: document, source: Source(""))
        #expect(errors.map(\.message) == [
            "Fields \"dog\" conflict because subfields \"x\" conflict because \"name\" and \"nickname\" are different fields. Use different aliases on the fields to fetch both if this was intentional."
        ])
    }

    @Test func variablesOfBuiltOperationsAreKeptApart() {
        let usesA = OperationDefinition(
            operation: .query, name: Name("A"),
            variableDefinitions: [VariableDefinition(variable: Name("a"), type: .nonNull(.named(Name("Boolean")), span: .synthetic))],
            selectionSet: SelectionSet(selections: [
                .field(Field(name: Name("dog"), directives: [
                    Directive(name: Name("include"), arguments: [Argument(name: Name("if"), value: Value(.variable("a")))])
                ], selectionSet: SelectionSet(selections: [Self.field("name")])))
            ]))
        let unusedB = OperationDefinition(
            operation: .query, name: Name("B"),
            variableDefinitions: [VariableDefinition(variable: Name("b"), type: .named(Name("Boolean")))],
            selectionSet: SelectionSet(selections: [Self.field("__typename")]))
        let errors = validate(
            schema: ValidationHarness.schema, document: Document(definitions: [.operation(usesA), .operation(unusedB)]),
            source: Source(""))
        #expect(errors.map(\.message) == ["Variable \"$b\" is never used in operation \"B\"."])
    }
}
