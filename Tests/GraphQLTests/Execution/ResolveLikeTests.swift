import GraphQL
import JSON
import Testing

/// `Resolvers.resolve(_:like:parent:)`: a type that repeats another type's fields is resolved by
/// that type's resolvers, on the parent it maps to, where they run; its own bindings win.
@Suite struct ResolveLikeTests {
    struct Grant: Sendable {
        let name: String
        let token: String
    }

    static let sdl = """
        type Query { user: User me: Me }
        type User { name: String shout: String tag: String }
        type Me { name: String shout: String tag: String token: String }
        """

    static let executable: ExecutableSchema<Void> = {
        var r = Resolvers<Void>()
        r.field("Query.user", runs: .pure) { _, _, _, _ in .value("ada") }
        r.field("Query.me", runs: .pure) { _, _, _, _ in .value(Grant(name: "bob", token: "t")) }
        r.field("User.name", on: String.self, runs: .pure) { name, _, _, info in .string("\(name) as \(info.parentType.name)") }
        r.field("User.shout", on: String.self) { name, _, _, _ in .string(name.uppercased()) }  // blocking
        r.field("User.tag", runs: .pure) { _, _, _, _ in .string("user") }
        r.field("Me.tag", runs: .pure) { _, _, _, _ in .string("me") }
        r.field("Me.token", \Grant.token)
        r.resolve("Me", like: "User") { source in
            guard case .value(let grant as Grant) = source else { throw GraphQLError("not a grant") }
            return .value(grant.name)
        }
        return try! ExecutableSchema(schema: try! GraphQLSchema.build(sdl: sdl), resolvers: r)
    }()

    @Test func sharesTheOtherTypesResolversOnTheMappedParent() throws {
        let query = "{ user { name shout tag } me { name shout tag token } }"
        let result = Self.executable.execute(document: try parse(Source(query)), source: Source(query), context: ())
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.data == .object([
            "user": .object(["name": "ada as User", "shout": "ADA", "tag": "user"]),
            "me": .object(["name": "bob as Me", "shout": "BOB", "tag": "me", "token": "t"]),
        ]))
    }

    @Test(arguments: [
        ("{ me { name tag token } }", ResolverPlacement.pure),
        ("{ me { shout } }", .blocking),
    ])
    func keepsTheirPlacements(query: String, expected: ResolverPlacement) throws {
        let document = try parse(Source(query))
        let operation = try #require(document.definitions.compactMap { if case .operation(let o) = $0 { o } else { nil } }.first)
        #expect(Self.executable.placement(of: operation, in: document) == expected)
    }

    @Test func fieldsNeitherTypeResolvesAndUnknownTypesAreRejected() throws {
        let schema = try GraphQLSchema.build(sdl: "type Query { user: User me: Me } type User { name: String } type Me { name: String extra: Int }")
        var r = Resolvers<Void>()
        r.field("Query.user") { _, _, _, _ in .null }
        r.field("Query.me") { _, _, _, _ in .null }
        r.field("User.name") { _, _, _, _ in .null }
        r.resolve("Me", like: "User") { $0 }
        r.resolve("User", like: "Nobody") { $0 }
        let error = #expect(throws: SchemaError.self) { try ExecutableSchema(schema: schema, resolvers: r) }
        #expect(Set(error?.errors.map(\.message) ?? []) == [
            #"No resolver for field "Me.extra": bind one, or one to "User.extra" (Me resolves like User)."#,
            "Type User is declared to resolve like Nobody, but the schema has no object type Nobody.",
        ])
    }
}
