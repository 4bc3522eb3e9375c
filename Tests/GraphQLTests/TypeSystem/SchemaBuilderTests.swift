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
}
