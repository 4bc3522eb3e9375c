import GraphQL
import JSON
import Testing

@Suite struct ExecutionTests {
    @Test func fieldsInRequestOrderWithAliasesAndTypename() throws {
        let result = try StarSchema.run(#"{ b: character(id: "1") { name __typename id } a: __typename }"#)
        #expect(result.errors.isEmpty)
        #expect(result.data == .object(["b": .object(["name": "Luke", "__typename": "Person", "id": "1"]), "a": "Query"]))
    }

    @Test func abstractTypesResolveByBoundSwiftType() throws {
        let result = try StarSchema.run("""
            { search { __typename ... on Person { age } ... on Droid { function } }
              hero { ...F } }
            fragment F on Character { id ... on Droid { name } }
            """)
        #expect(result.errors.isEmpty)
        #expect(result.data == .object([
            "search": .array([.object(["__typename": "Person", "age": 19]), .null, .object(["__typename": "Droid", "function": "astromech"])]),
            "hero": .object(["id": "3", "name": "R2"]),
        ]))
    }

    @Test func resolverErrorsBecomeFieldErrorsWithPathAndLocation() throws {
        let result = try StarSchema.run("{ ok: __typename\n  failing }")
        #expect(result.data == .object(["ok": "Query", "failing": .null]))
        #expect(result.errors == [GraphQLError("boom", locations: [SourceLocation(line: 2, column: 3)], path: [.key("failing")])])
    }

    @Test func nonNullErrorsPropagateToTheNearestNullableParent() throws {
        let result = try StarSchema.run("{ character(id: \"1\") { friends { ... on Person { nonNullName } } } }")
        #expect(result.data == .object(["character": .null]))
        #expect(result.errors.map(\.message) == ["Cannot return null for non-nullable field Person.nonNullName."])
        #expect(result.errors.first?.path == [.key("character"), .key("friends"), .index(0), .key("nonNullName")])
    }

    @Test func nonNullRootFieldNullsData() throws {
        let result = try StarSchema.run("{ failingNonNull }")
        #expect(result.data == .null)
        #expect(result.errors.map(\.message) == ["nope"])
        #expect(result.errors.first?.extensions == ["code": .int(7)])
    }

    @Test func nullableListItemsAndResultCoercionErrors() throws {
        let result = try StarSchema.run("{ numbers badInt }")
        #expect(result.data == .object(["numbers": .null, "badInt": .null]))
        #expect(result.errors.map(\.message) == [
            "Cannot return null for non-nullable field Query.numbers.",
            "Int cannot represent non-integer value: 1.5",
        ])
        #expect(result.errors.first?.path == [.key("numbers"), .index(1)])
    }

    @Test func jsonBackedObjects() throws {
        let result = try StarSchema.run("{ point { y x } }")
        #expect(result.data == .object(["point": .object(["y": 2, "x": 1])]))
    }

    @Test func argumentsDefaultsAndInputObjects() throws {
        let result = try StarSchema.run(#"{ echo(filter: {ids: [1, "2"]}, list: 5, float: 2) }"#)
        #expect(result.errors.isEmpty)
        #expect(result.data == .object(["echo": .string(#"{ filter: { episode: "JEDI", ids: ["1", "2"], limit: 10 }, n: 3, list: [5], float: 2 }"#)]))
    }

    @Test func variablesAreCoercedWithDefaults() throws {
        let result = try StarSchema.run(
            "query ($f: Filter, $n: Int = 7, $e: Episode) { echo(filter: $f, n: $n) hero(episode: $e) { id } }",
            variables: ["f": .object(["episode": "EMPIRE", "ids": "9"]), "e": "EMPIRE"])
        #expect(result.errors.isEmpty)
        #expect(result.data == .object([
            "echo": .string(#"{ filter: { episode: "EMPIRE", ids: ["9"], limit: 10 }, n: 7 }"#),
            "hero": .object(["id": "1"]),
        ]))
    }

    @Test(arguments: [
        ("query ($id: ID!) { character(id: $id) { id } }", JSONObject(),
         #"Variable "$id" of required type "ID!" was not provided."#),
        ("query ($id: ID!) { character(id: $id) { id } }", ["id": JSON.null],
         #"Variable "$id" of non-null type "ID!" must not be null."#),
        ("query ($n: Int) { echo(n: $n) }", ["n": JSON.string("x")],
         #"Variable "$n" got invalid value "x"; Int cannot represent non-integer value: "x""#),
        ("query ($f: Filter) { echo(filter: $f) }", ["f": JSON.object(["limit": .null])],
         #"Variable "$f" got invalid value null at "f.limit"; Expected non-nullable type "Int!" not to be null."#),
        ("query ($f: Filter) { echo(filter: $f) }", ["f": JSON.object(["bogus": 1])],
         #"Variable "$f" got invalid value { bogus: 1 }; Field "bogus" is not defined by type "Filter"."#),
        ("query ($f: Filter) { echo(filter: $f) }", ["f": JSON.object(["episode": "JEDY"])],
         #"Variable "$f" got invalid value "JEDY" at "f.episode"; Value "JEDY" does not exist in "Episode" enum. Did you mean the enum value "JEDI"?"#),
        ("query ($p: Pick) { echo(pick: $p) }", ["p": JSON.object(["id": "1", "name": "x"])],
         #"Variable "$p" got invalid value { id: "1", name: "x" }; Exactly one key must be specified for OneOf type "Pick"."#),
        ("query ($l: [Int]) { echo(list: $l) }", ["l": JSON.array([1, "x"])],
         #"Variable "$l" got invalid value "x" at "l[1]"; Int cannot represent non-integer value: "x""#),
    ] as [(String, JSONObject, String)])
    func variableErrorsStopExecution(query: String, variables: JSONObject, message: String) throws {
        let result = try StarSchema.run(query, variables: variables)
        #expect(result.data == nil)
        #expect(result.errors.map(\.message) == [message])
        #expect(result.errors.first?.locations == [SourceLocation(line: 1, column: 8)])
    }

    /// As graphql-js: 50 variable errors, then "Too many errors" in place of the 51st, even
    /// within one variable (each unknown field is an error that quotes the whole value).
    @Test(arguments: [(49, 49, false), (50, 50, false), (51, 51, true), (5000, 51, true)])
    func variableErrorsStopAtFifty(unknownFields: Int, reported: Int, limited: Bool) throws {
        var filter = JSONObject()
        for i in 0..<unknownFields { filter["k\(i)"] = .int(i) }
        let result = try StarSchema.run("query ($f: Filter) { echo(filter: $f) }", variables: ["f": .object(filter)])
        #expect(result.data == nil)
        #expect(result.errors.count == reported)
        let last = "Too many errors processing variables, error limit reached. Execution aborted."
        #expect((result.errors.last?.message == last) == limited)
        #expect(result.errors.first?.message.hasSuffix(#"Field "k0" is not defined by type "Filter"."#) == true)
    }

    @Test func argumentErrorsAreFieldErrors() throws {
        let result = try StarSchema.run("query ($id: ID) { character(id: $id) { id } }")
        #expect(result.data == .object(["character": .null]))
        #expect(result.errors.map(\.message) == [
            #"Argument "id" of required type "ID!" was provided the variable "$id" which was not provided a runtime value."#
        ])
    }

    @Test func skipAndInclude() throws {
        let result = try StarSchema.run(
            "query ($t: Boolean!) { a: __typename @skip(if: $t) b: __typename @include(if: $t) ... @skip(if: true) { c: __typename } }",
            variables: ["t": true])
        #expect(result.data == .object(["b": "Query"]))
    }

    @Test(arguments: [
        ("query A { a: __typename } query B { b: __typename }", nil, "Must provide operation name if query contains multiple operations."),
        ("query A { a: __typename }", "C", #"Unknown operation named "C"."#),
        ("fragment F on Query { a: __typename }", nil, "Must provide an operation."),
    ] as [(String, String?, String)])
    func operationSelectionErrors(query: String, operationName: String?, message: String) throws {
        let result = try StarSchema.run(query, operationName: operationName)
        #expect(result.data == nil)
        #expect(result.errors.map(\.message) == [message])
    }

    @Test func operationNameSelects() throws {
        let result = try StarSchema.run("query A { a: __typename } query B { b: __typename }", operationName: "B")
        #expect(result.data == .object(["b": "Query"]))
    }

    @Test func unboundFieldsAndUnknownCoordinatesAreRejected() throws {
        let schema = try GraphQLSchema.build(sdl: "type Query { a: Int b: Int }")
        var resolvers = Resolvers<Void>()
        resolvers.field("Query.a") { _, _, _, _ in .int(1) }
        resolvers.field("Query.c") { _, _, _, _ in .int(1) }
        let error = #expect(throws: SchemaError.self) { try ExecutableSchema(schema: schema, resolvers: resolvers) }
        #expect(Set(error?.errors.map(\.message) ?? []) == [
            #"No resolver for field "Query.b": bind one, or declare Query as resolved from JSON."#,
            #"A resolver is bound to "Query.c", but type Query has no field "c"."#,
        ])
    }

    @Test func introspectionOfTypesAndDefaults() throws {
        let result = try StarSchema.run("""
            { __type(name: "Filter") { kind name inputFields { name defaultValue type { kind name ofType { kind name } } } }
              character: __type(name: "Character") { possibleTypes { name } fields { name } }
              missing: __type(name: "Nope") { name }
              __schema { queryType { name } mutationType { name } subscriptionType { name } } }
            """)
        #expect(result.errors.isEmpty)
        let expected: JSON = .object([
            "__type": .object([
                "kind": "INPUT_OBJECT", "name": "Filter",
                "inputFields": .array([
                    .object(["name": "episode", "defaultValue": "JEDI", "type": .object(["kind": "ENUM", "name": "Episode", "ofType": .null])]),
                    .object(["name": "ids", "defaultValue": .null, "type": .object(["kind": "LIST", "name": .null, "ofType": .object(["kind": "NON_NULL", "name": .null])])]),
                    .object(["name": "limit", "defaultValue": "10", "type": .object(["kind": "NON_NULL", "name": .null, "ofType": .object(["kind": "SCALAR", "name": "Int"])])]),
                ]),
            ]),
            "character": .object(["possibleTypes": .array([.object(["name": "Person"]), .object(["name": "Droid"])]),
                                  "fields": .array([.object(["name": "id"]), .object(["name": "name"])])]),
            "missing": .null,
            "__schema": .object(["queryType": .object(["name": "Query"]), "mutationType": .object(["name": "Mutation"]), "subscriptionType": .null]),
        ])
        #expect(result.data == expected)
    }

    /// An enum's result is the name of one of its values (spec §3.9 Result Coercion), from a
    /// string or a JSON string, nullable or not, alone, in a list or read from a JSON parent;
    /// anything else is a field error with graphql-js's message.
    @Test func enumResultsAreTheirValuesNames() throws {
        let schema = try GraphQLSchema.build(sdl: """
            enum Plan { FREE PRO }
            type Account { plan: Plan, fromJSON: Plan, unset: Plan, unknown: Plan, number: Plan, plans: [Plan], required: Plan! }
            type Stored { plan: Plan, other: Plan }
            type Query { account: Account, broken: Account, stored: Stored }
            """)
        var r = Resolvers<Void>()
        let values: [String: ResolvedValue] = [
            "plan": .string("PRO"), "fromJSON": .json(.string("FREE")), "unset": .null, "unknown": .string("GOLD"),
            "number": .int(1), "plans": .list([.string("FREE"), .string("gold"), .null]), "required": .string("PRO"),
        ]
        for (name, value) in values { r.field("Account.\(name)") { _, _, _, _ in value } }
        r.field("Query.account") { _, _, _, _ in .value(0) }
        r.field("Query.broken") { _, _, _, _ in .value(1) }
        r.wrap("Account.required") { resolver in
            { source, arguments, context, info in
                if case .value(let index as Int) = source, index == 1 { return .null }
                return try resolver(source, arguments, context, info)
            }
        }
        r.field("Query.stored") { _, _, _, _ in .json(.object(["plan": "FREE", "other": "PLATINUM"])) }
        r.resolveFromJSON("Stored")
        let executable = try ExecutableSchema(schema: schema, resolvers: r)
        let query = "{ account { plan fromJSON unset unknown number plans required } broken { plan required } stored { plan other } }"
        let result = executable.execute(document: try parse(Source(query)), source: Source(query), context: ())
        #expect(result.data == .object([
            "account": .object([
                "plan": "PRO", "fromJSON": "FREE", "unset": .null, "unknown": .null, "number": .null,
                "plans": .array(["FREE", .null, .null]), "required": "PRO",
            ]),
            "broken": .null,
            "stored": .object(["plan": "FREE", "other": .null]),
        ]))
        #expect(result.errors.map(\.message) == [
            #"Enum "Plan" cannot represent value: "GOLD""#,
            #"Enum "Plan" cannot represent value: 1"#,
            #"Enum "Plan" cannot represent value: "gold""#,
            "Cannot return null for non-nullable field Account.required.",
            #"Enum "Plan" cannot represent value: "PLATINUM""#,
        ])
        #expect(result.errors.map(\.path) == [
            [.key("account"), .key("unknown")], [.key("account"), .key("number")], [.key("account"), .key("plans"), .index(1)],
            [.key("broken"), .key("required")], [.key("stored"), .key("other")],
        ])
    }
}
