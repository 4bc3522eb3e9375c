import Testing

@testable import GraphQL

// Printer output in graphql-js's layout. The expected texts come from
// graphql-core 3.2.8's print_ast / print_block_string (graphql-js 16).

enum PrinterTable {
    static let blockStrings: [(String, String)] = [
        ("", "\"\"\"\"\"\""),
        ("simple", "\"\"\"simple\"\"\""),
        (" leading space", "\"\"\" leading space\"\"\""),
        ("\tleading tab", "\"\"\"\tleading tab\"\"\""),
        ("trailing space ", "\"\"\"trailing space \"\"\""),
        ("trailing quote\"", "\"\"\"\ntrailing quote\"\n\"\"\""),
        ("trailing backslash\\", "\"\"\"\ntrailing backslash\\\n\"\"\""),
        ("trailing triple \"\"\"", "\"\"\"\ntrailing triple \\\"\"\"\n\"\"\""),
        ("contains \"\"\" in the middle", "\"\"\"contains \\\"\"\" in the middle\"\"\""),
        ("\"\"\"", "\"\"\"\n\\\"\"\"\n\"\"\""),
        ("two\nlines", "\"\"\"\ntwo\nlines\n\"\"\""),
        ("  indented\nfirst", "\"\"\"\n  indented\nfirst\n\"\"\""),
        ("first\n  indented rest", "\"\"\"\nfirst\n  indented rest\n\"\"\""),
        ("first\n\n  blank line", "\"\"\"\nfirst\n\n  blank line\n\"\"\""),
        ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "\"\"\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"\"\""),
        ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "\"\"\"\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n\"\"\""),
        ("ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé", "\"\"\"\nééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n\"\"\""),
        ("line one\n line two\n\tline three", "\"\"\"\nline one\n line two\n\tline three\n\"\"\""),
        ("\"quoted\"", "\"\"\"\n\"quoted\"\n\"\"\""),
        ("no newline", "\"\"\"no newline\"\"\""),
        ("\\ back \\", "\"\"\"\n\\ back \\\n\"\"\""),
        ("multi\nline\nends with quote\"", "\"\"\"\nmulti\nline\nends with quote\"\n\"\"\""),
        (" \n  a", "\"\"\"\n \n  a\n\"\"\""),
        ("a", "\"\"\"a\"\"\""),
    ]

    static let strings: [(String, String)] = [
        ("", "\"\""),
        ("plain", "\"plain\""),
        ("quote \" and backslash \\", "\"quote \\\" and backslash \\\\\""),
        ("\u{8}\u{C}\n\r\t", "\"\\b\\f\\n\\r\\t\""),
        ("\u{0}\u{1}\u{7}\u{B}\u{E}\u{1F}", "\"\\u0000\\u0001\\u0007\\u000B\\u000E\\u001F\""),
        ("\u{7F}\u{80}\u{9F}\u{A0}", "\"\\u007F\\u0080\\u009F\u{A0}\""),
        ("é😀", "\"é😀\""),
        ("/ slash", "\"/ slash\""),
        ("\u{2028}\u{FEFF}", "\"\u{2028}\u{FEFF}\""),
    ]
}

@Suite struct PrinterTests {
    /// Our print of each kitchen sink equals graphql-core's print_ast, byte for byte
    /// (the `.printed.graphql` files were written by graphql-core).
    @Test(arguments: ["kitchen-sink", "schema-kitchen-sink"])
    func kitchenSinkMatchesGraphQLJS(_ name: String) throws {
        let document = try parse(Source(try fixture(name + ".graphql")), options: .trusted)
        #expect(print(document) == (try fixture(name + ".printed.graphql")))
    }

    /// graphql-core cannot print the draft's descriptions; this golden file was
    /// checked by hand and parses back to the same tree.
    @Test func draftDescriptionsPrint() throws {
        let document = try parse(Source(try fixture("draft-descriptions.graphql")))
        #expect(print(document) == (try fixture("draft-descriptions.printed.graphql")))
    }

    @Test(arguments: PrinterTable.blockStrings)
    func blockStrings(_ value: String, _ expected: String) {
        #expect(print(Value(.string(value, block: true))) == expected)
    }

    /// Every printed block string whose value a block string can hold reads back as
    /// the same value.
    @Test(arguments: PrinterTable.blockStrings.map(\.0).filter { BlockString.isPrintable($0) })
    func blockStringsReadBack(_ value: String) throws {
        let printed = print(Value(.string(value, block: true)))
        #expect(try parseValue(Source(printed)).kind == .string(value, block: true))
    }

    @Test(arguments: PrinterTable.strings)
    func strings(_ value: String, _ expected: String) throws {
        #expect(print(Value(.string(value, block: false))) == expected)
        #expect(try parseValue(Source(expected)).kind == .string(value, block: false))
    }

    @Test func codeBuiltTree() {
        let field = Field(
            alias: Name("me"), name: Name("viewer"),
            arguments: [Argument(name: Name("id"), value: Value(.variable("id")))],
            directives: [Directive(name: Name("include"), arguments: [Argument(name: Name("if"), value: Value(.boolean(true)))])],
            selectionSet: SelectionSet(selections: [.field(Field(name: Name("id"))), .fragmentSpread(FragmentSpread(name: Name("F")))]))
        let operation = OperationDefinition(
            operation: .query, name: Name("Q"),
            variableDefinitions: [VariableDefinition(variable: Name("id"), type: .nonNull(.named(Name("ID")), span: .synthetic))],
            selectionSet: SelectionSet(selections: [.field(field)]))
        let document = Document(definitions: [.operation(operation)])
        #expect(print(document) == """
            query Q($id: ID!) {
              me: viewer(id: $id) @include(if: true) {
                id
                ...F
              }
            }
            """)
    }

    @Test func argumentsWrapPastEightyColumns() throws {
        let eighty = "{ f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1, bbbbbbbbbbbbbbbbbbbbbbbbbbbb: 22) }"
        let printed = print(try parse(eighty))
        #expect(printed == "{\n  f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1, bbbbbbbbbbbbbbbbbbbbbbbbbbbb: 22)\n}")
        let eightyOne = print(try parse(eighty.replacing("22", with: "333")))
        #expect(eightyOne == "{\n  f(\n    aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1\n    bbbbbbbbbbbbbbbbbbbbbbbbbbbb: 333\n  )\n}")
        // Columns are counted in Unicode scalars, as graphql-core does.
        let wide = print(try parse("{ f(a: \"" + String(repeating: "é", count: 72) + "\") }"))
        #expect(!wide.contains("(\n"))
    }
}
