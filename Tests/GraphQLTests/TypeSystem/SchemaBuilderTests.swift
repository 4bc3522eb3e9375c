import JSON
import Testing

@testable import GraphQL

@Suite struct SchemaBuilderTests {
    /// buildASTSchema's order, which introspection's `__schema.directives` shows: the SDL's
    /// directives in document order (a built-in one it redefines among them), then the
    /// built-in ones it did not redefine. graphql-core 3.2.8 gives these lists.
    @Test(arguments: [
        ("type Query { a: Int }", ["include", "skip", "deprecated", "specifiedBy", "oneOf"]),
        ("directive @b on FIELD directive @a on QUERY type Query { a: Int }",
         ["b", "a", "include", "skip", "deprecated", "specifiedBy", "oneOf"]),
        ("directive @b on FIELD directive @skip(if: Boolean!) on FIELD directive @a on FIELD type Query { a: Int }",
         ["b", "skip", "a", "include", "deprecated", "specifiedBy", "oneOf"]),
    ])
    func directivesInGraphQLJSOrder(_ sdl: String, _ expected: [String]) throws {
        let schema = try GraphQLSchema.build(sdl: sdl)
        #expect(schema.directives.map(\.name) == expected)
        var resolvers = Resolvers<Void>()
        resolvers.field("Query.a") { _, _, _, _ in .null }
        let executable = try ExecutableSchema(schema: schema, resolvers: resolvers)
        let query = "{ __schema { directives { name } } }"
        let result = executable.execute(document: try parse(Source(query)), source: Source(query), context: ())
        #expect(result.errors.isEmpty)
        let names = result.data?["__schema"]?["directives"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == expected)
    }

    /// SDL that graphql-js builds (ignoring the part, or failing later or in other words)
    /// and the engine rejects at once (Deviations.md, "Schema building").
    @Test(arguments: [
        ("type Query { a: Int } query { a }",
         [#"sdl:1:23: A schema document may contain only type system definitions; found an operation."#]),
        ("type Query { a: Int } fragment F on Query { a }",
         [#"sdl:1:23: A schema document may contain only type system definitions; found a fragment."#]),
        ("type Query { a: Int } type __Schema { a: Int }", [
            #"sdl:1:28: Name "__Schema" must not begin with "__", which is reserved by GraphQL introspection."#,
            #"sdl:1:28: Type "__Schema" is built in and cannot be redefined."#,
        ]),
        (#"type Query { a: Int } extend scalar String @specifiedBy(url: "x")"#,
         [#"sdl:1:37: Type "String" is built in and cannot be extended."#]),
        ("type Query { a: Int } extend type __Type { b: Int }",
         [#"sdl:1:35: Type "__Type" is built in and cannot be extended."#]),
    ])
    func rejectedWhereGraphQLJSBuilds(_ sdl: String, _ expected: [String]) {
        do {
            _ = try GraphQLSchema.build(sdl: sdl, sourceName: "sdl")
            Issue.record("built")
        } catch {
            #expect(error.description.split(separator: "\n").map(String.init) == expected)
        }
    }

    /// A built-in scalar's redefinition is ignored, as graphql-js ignores it: the built-in wins.
    @Test func redefinedBuiltInScalarIsIgnored() throws {
        let schema = try GraphQLSchema.build(sdl: "type Query { a: String } type String { b: Int }")
        guard case .scalar? = schema.type("String") else {
            Issue.record("String is not the built-in scalar")
            return
        }
    }
}
