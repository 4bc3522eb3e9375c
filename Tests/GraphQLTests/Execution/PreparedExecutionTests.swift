import JSON
import Testing

import GraphQL

/// A prepared document's executions share selection plans and, for introspection-only
/// operations, the result: repeated and interleaved executions must answer exactly as
/// unprepared ones do.
struct PreparedExecutionTests {
    static let sdl = """
        type Query { hello(name: String = "you"): String, items: [Item] }
        type Item { id: ID, label: String }
        """

    static func service(bindIntrospection: Bool = false) throws -> GraphQLService<Void> {
        let schema = try GraphQLSchema.build(sdl: sdl)
        var resolvers = Resolvers<Void>()
        resolvers.field("Query.hello") { _, arguments, _, _ in .string("hello \(arguments["name"]?.stringValue ?? "")") }
        resolvers.field("Query.items") { _, _, _, _ in
            .json(.array([.object(["id": "1", "label": "a"]), .object(["id": "2", "label": "b"])]))
        }
        resolvers.resolveFromJSON("Item")
        if bindIntrospection {
            resolvers.field("__Type.name") { _, _, _, _ in .string("bound") }
        }
        return GraphQLService(executable: try ExecutableSchema(schema: schema, resolvers: resolvers))
    }

    static func unprepared(_ service: GraphQLService<Void>, _ query: String, _ variables: JSONObject = [:]) throws -> JSON {
        let source = Source(query)
        let document = try parse(source)
        return service.executable.execute(document: document, source: source, variables: variables, context: ()).json
    }

    static func prepared(_ service: GraphQLService<Void>, _ query: String, _ variables: JSONObject = [:]) throws -> JSON {
        let prepared = try service.prepare(query).get()
        return service.execute(prepared, operationName: nil, variables: variables, context: ()).json
    }

    @Test func repeatedExecutionsAgreeWithUnprepared() throws {
        let service = try Self.service()
        let queries: [(String, JSONObject)] = [
            ("{ hello items { id label } __typename }", [:]),
            ("query Q($skip: Boolean!) { hello items @skip(if: $skip) { id } }", ["skip": true]),
            ("query Q($skip: Boolean!) { hello items @skip(if: $skip) { id } }", ["skip": false]),
            ("{ __schema { queryType { name } types { name } } __type(name: \"Item\") { fields { name } } }", [:]),
            ("query Q($n: String!) { __type(name: $n) { name } }", ["n": "Item"]),
            ("query Q($n: String!) { __type(name: $n) { name } }", ["n": "Query"]),
        ]
        for _ in 0..<3 {
            for (query, variables) in queries {
                #expect(try Self.prepared(service, query, variables) == Self.unprepared(service, query, variables))
            }
        }
    }

    @Test func introspectionWithBoundResolversIsNotKept() throws {
        let service = try Self.service(bindIntrospection: true)
        let query = "{ __type(name: \"Item\") { name } }"
        let expected: JSON = .object(["data": .object(["__type": .object(["name": "bound"])])])
        #expect(try Self.prepared(service, query) == expected)
        #expect(try Self.prepared(service, query) == expected)
    }
}
