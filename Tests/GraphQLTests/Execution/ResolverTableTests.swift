import Testing

@testable import GraphQL

/// `ResolverTable` erases the context type of an executable's resolvers: each resolver
/// must still get the request's own context, by field position, and its errors must be
/// reported with their paths as before.
struct ResolverTableTests {
    static let sdl = """
        type Query { greeting: String, user: User, failing: String, users: [User!] }
        type User { name: String!, tag: String }
        """

    /// A context the resolvers read.
    final class Counter: Sendable {
        let name: String
        init(name: String) { self.name = name }
    }

    static func resolvers() -> Resolvers<Counter> {
        var resolvers = Resolvers<Counter>()
        resolvers.field("Query.greeting") { _, _, context, _ in .string("hello \(context.name)") }
        resolvers.field("Query.user") { _, _, _, _ in .json(.object(["name": "ada"])) }
        resolvers.field("Query.failing") { _, _, _, info in
            throw GraphQLError("failed at \(info.path.count) levels")
        }
        resolvers.field("Query.users") { _, _, _, _ in .list([.json(.object(["name": "a"])), .json(.object([:]))]) }
        resolvers.resolveFromJSON("User")
        resolvers.field("User.tag") { _, _, context, info in .string("\(context.name):\(info.parentType.name).\(info.fieldName)") }
        return resolvers
    }

    @Test func tablesFieldsByPositionAndCallsWithTheCallersContext() throws {
        let schema = try GraphQLSchema.build(sdl: Self.sdl)
        var byName: [String: [String: Resolvers<Counter>.Binding]] = [:]
        for (coordinate, binding) in Self.resolvers().fields {
            let parts = coordinate.split(separator: ".").map(String.init)
            byName[parts[0], default: [:]][parts[1]] = binding
        }
        let table = ResolverTable(schema: schema, resolvers: byName)
        #expect(!table.bindsIntrospectionTypes)
        guard case .object(let queryType)? = schema.type("Query"), case .object(let userType)? = schema.type("User") else {
            Issue.record("no Query or User type")
            return
        }
        #expect(table.resolvers(of: queryType)?.map { $0 != nil } == [true, true, true, true])
        // `User.name` reads JSON: no resolver at its position.
        #expect(table.resolvers(of: userType)?.map { $0 != nil } == [false, true])
        let executable = try ExecutableSchema(schema: schema, resolvers: Self.resolvers())
        let query = "{ greeting user { name tag } }"
        let result = executable.execute(document: try parse(Source(query)), source: Source(query), context: Counter(name: "bob"))
        #expect(result.data == .object(["greeting": "hello bob", "user": .object(["name": "ada", "tag": "bob:User.tag"])]))
    }

    @Test func errorsKeepTheirPathsAndLocations() throws {
        let schema = try GraphQLSchema.build(sdl: Self.sdl)
        let service = GraphQLService(executable: try ExecutableSchema(schema: schema, resolvers: Self.resolvers()))
        let query = "{ failing user { tag } users { name } }"
        let prepared = try service.prepare(query).get()
        // Twice: the second execution runs on the plans the first one built.
        for _ in 0..<2 {
            let result = service.execute(prepared, operationName: nil, variables: [:], context: Counter(name: "eve"))
            #expect(result.data == .object([
                "failing": .null, "user": .object(["tag": "eve:User.tag"]), "users": .null,
            ]))
            #expect(result.errors.map(\.message) == [
                "failed at 1 levels", "Cannot return null for non-nullable field User.name.",
            ])
            #expect(result.errors.map(\.path) == [[.key("failing")], [.key("users"), .index(1), .key("name")]])
            #expect(result.errors.map(\.locations) == [
                [SourceLocation(line: 1, column: 3)], [SourceLocation(line: 1, column: 32)],
            ])
        }
    }

    @Test func resolveInfoDescribesTheField() throws {
        let schema = try GraphQLSchema.build(sdl: "type Query { a(n: Int): Int }")
        var resolvers = Resolvers<Void>()
        resolvers.field("Query.a") { _, _, _, info in
            #expect(info.fieldName == "a")
            #expect(info.parentType.name == "Query")
            #expect(info.returnType == .named("Int"))
            #expect(info.path == [.key("alias")])
            #expect(info.fieldNodes.map(\.responseKey) == ["alias"])
            #expect(info.operation.name?.value == "Q")
            #expect(info.variables == ["n": .int(2)])
            #expect(info.schema === schema)
            return .int(1)
        }
        let executable = try ExecutableSchema(schema: schema, resolvers: resolvers)
        let query = "query Q($n: Int) { alias: a(n: $n) }"
        let result = executable.execute(
            document: try parse(Source(query)), source: Source(query), variables: ["n": .int(2)], context: ())
        #expect(result.data == .object(["alias": .int(1)]))
    }
}
