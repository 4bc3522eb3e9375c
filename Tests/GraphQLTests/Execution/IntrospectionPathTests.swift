import JSON
import Testing

import GraphQL

/// Introspection completes from the schema's precomputed model unless a resolver is bound
/// to an introspection type; then every field resolves the general way. Both must answer
/// alike, for the selection features that reach introspection types too.
struct IntrospectionPathTests {
    static let sdl = """
        "A thing."
        interface Node { id: ID! }
        type Item implements Node { id: ID! label(upper: Boolean = false): String old: Int @deprecated(reason: "gone") }
        union Found = Item
        enum Color { RED GREEN @deprecated BLUE }
        input Filter { color: Color = RED ids: [ID!]! = ["a"] legacy: String @deprecated }
        type Query { items(filter: Filter, limit: Int = 10): [Item!]! node(id: ID!): Node found: Found }
        """

    static func executable(general: Bool) throws -> ExecutableSchema<Void> {
        let schema = try GraphQLSchema.build(sdl: sdl)
        var resolvers = Resolvers<Void>()
        resolvers.field("Query.items") { _, _, _, _ in .list([]) }
        resolvers.field("Query.node") { _, _, _, _ in .null }
        resolvers.field("Query.found") { _, _, _, _ in .null }
        resolvers.resolveFromJSON("Item")
        // The schema has no description: binding its resolver to null changes no answer
        // but sends every introspection field down the general path.
        if general { resolvers.field("__Schema.description") { _, _, _, _ in .null } }
        return try ExecutableSchema(schema: schema, resolvers: resolvers)
    }

    static func run(_ executable: ExecutableSchema<Void>, _ query: String, _ variables: JSONObject) throws -> JSON {
        let source = Source(query)
        let document = try parse(source)
        return executable.execute(document: document, source: source, variables: variables, context: ()).json
    }

    static let cases: [(String, JSONObject)] = [
        ("{ __schema { types { name kind fields(includeDeprecated: true) { name args { name defaultValue } } } } }", [:]),
        ("query Q($d: Boolean) { __type(name: \"Color\") { enumValues(includeDeprecated: $d) { name isDeprecated deprecationReason } } }", ["d": true]),
        ("query Q($d: Boolean) { __type(name: \"Color\") { enumValues(includeDeprecated: $d) { name } } }", [:]),
        ("query Q($d: Boolean) { __type(name: \"Item\") { fields(includeDeprecated: $d) { name } } }", ["d": .null]),
        ("{ t: __type(name: \"Item\") { n: name name k: kind ...F ... on __Type { interfaces { name } } } } fragment F on __Type { name fields { type { kind ofType { name kind } } } }", [:]),
        ("query Q($s: Boolean!) { __type(name: \"Filter\") { inputFields(includeDeprecated: true) { name @skip(if: $s) defaultValue type { kind ofType { kind ofType { kind ofType { name } } } } } isOneOf } }", ["s": true]),
        ("query Q($s: Boolean!) { __type(name: \"Filter\") { inputFields { name @include(if: $s) defaultValue } } }", ["s": true]),
        ("{ __type(name: \"Node\") { possibleTypes { name __typename } __typename } __schema { __typename queryType { name } mutationType { name } directives { name locations isRepeatable args(includeDeprecated: true) { name __typename } } } }", [:]),
        ("{ __type(name: \"Nope\") { name } a: __type(name: \"Found\") { possibleTypes { name } specifiedByURL } }", [:]),
        ("{ __type(name: \"Item\") { fields { name } fields { description type { name } } } }", [:]),
        // The same fragment under several fields, and a fragment spreading itself under
        // `ofType` (no validation here): plans shared by the fields they collect.
        ("{ __type(name: \"Item\") { fields { type { ...R } args { type { ...R } } } interfaces { ...R } } } fragment R on __Type { kind name ofType { ...R } }", [:]),
        // More plans than are searched linearly.
        ("{ __schema { " + (1...20).map { "t\($0): types { n\($0): name }" }.joined(separator: " ") + " } }", [:]),
    ]

    @Test(arguments: 0..<cases.count)
    func modelAgreesWithGeneralPath(_ index: Int) throws {
        let (query, variables) = Self.cases[index]
        let model = try Self.run(Self.executable(general: false), query, variables)
        let general = try Self.run(Self.executable(general: true), query, variables)
        #expect(model == general)
    }

    /// An argument that does not coerce (a document that skipped validation) is reported
    /// with its path, as by the general path.
    @Test func uncoercibleArgumentIsAFieldError() throws {
        let query = "{ __type(name: \"Item\") { name fields(includeDeprecated: 3) { name } } }"
        let model = try Self.run(Self.executable(general: false), query, [:])
        let general = try Self.run(Self.executable(general: true), query, [:])
        #expect(model == general)
        #expect(model.serializedString().contains("\"path\":[\"__type\",\"fields\"]"))
    }
}
