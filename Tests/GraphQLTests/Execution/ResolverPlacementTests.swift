import GraphQL
import JSON
import Testing

/// Where an operation may run is the greatest placement its bindings declare, over every field
/// it may execute: through aliases, fragments, abstract types and nested selections.
@Suite struct ResolverPlacementTests {
    struct Pet: Sendable {
        let name: String
        let nickname: String?
    }

    static let sdl = """
        type Query { pure: String settled: Me slow: String pet: Pet pets: [Pet] node: Node thing: Thing json: Blob }
        type Mutation { quick: String }
        type Me { name: String friends: [String] pet: Pet }
        interface Node { id: ID }
        type Pet implements Node { id: ID name: String nickname: String owner: String }
        type Toy implements Node { id: ID maker: String }
        union Thing = Pet | Toy
        type Blob { a: String }
        """

    static let executable: ExecutableSchema<Int> = {
        let schema = try! GraphQLSchema.build(sdl: sdl)
        var r = Resolvers<Int>()
        r.field("Query.pure", runs: .pure) { _, _, _, _ in .string("p") }
        r.field("Query.settled", runs: .pureOnceSettled) { _, _, _, _ in .json(.object([:])) }
        r.field("Query.slow") { _, _, _, _ in .string("s") }  // blocking: the default
        r.field("Query.pet", runs: .pure) { _, _, _, _ in .value(Pet(name: "Rex", nickname: nil)) }
        r.field("Query.pets", runs: .pure) { _, _, _, _ in .list([]) }
        r.field("Query.node", runs: .pure) { _, _, _, _ in .null }
        r.field("Query.thing", runs: .pure) { _, _, _, _ in .null }
        r.field("Query.json", runs: .pure) { _, _, _, _ in .json(.object(["a": "x"])) }
        r.field("Mutation.quick", runs: .pure) { _, _, _, _ in .string("q") }
        r.field("Me.name", runs: .pure) { _, _, _, _ in .string("me") }
        r.field("Me.friends") { _, _, _, _ in .list([]) }
        r.field("Me.pet", runs: .pure) { _, _, _, _ in .null }
        r.field("Pet.id", runs: .pure) { _, _, _, _ in .string("1") }
        r.field("Pet.name", \Pet.name)
        r.field("Pet.nickname", \Pet.nickname)
        r.field("Pet.owner") { _, _, _, _ in .string("o") }
        r.field("Toy.id", runs: .pure) { _, _, _, _ in .string("2") }
        r.field("Toy.maker") { _, _, _, _ in .string("m") }
        r.bind(Pet.self, to: "Pet")
        r.resolveFromJSON("Blob")
        return try! ExecutableSchema(schema: schema, resolvers: r)
    }()

    static func placement(_ query: String) throws -> ResolverPlacement {
        let document = try parse(Source(query))
        let operation = try #require(document.definitions.compactMap { if case .operation(let o) = $0 { o } else { nil } }.first)
        return executable.placement(of: operation, in: document)
    }

    @Test(arguments: [
        ("{ pure }", ResolverPlacement.pure),
        ("{ __typename __schema { queryType { name } } }", .pure),
        ("{ json { a } }", .pure),
        ("{ pet { name nickname } }", .pure),
        ("{ settled { name } }", .pureOnceSettled),
        ("{ x: settled { name } pure }", .pureOnceSettled),
        ("{ settled { name friends } }", .blocking),
        ("{ settled { pet { owner } } }", .blocking),
        ("{ slow }", .blocking),
        ("{ a: slow }", .blocking),
        ("{ slow @skip(if: true) }", .blocking),
        ("{ ... on Query { slow } }", .blocking),
        ("{ ...F } fragment F on Query { pure ...G } fragment G on Query { settled { name } }", .pureOnceSettled),
        ("{ ...F } fragment F on Query { pure ...G } fragment G on Query { slow }", .blocking),
        ("{ pets { ...P } } fragment P on Pet { name owner }", .blocking),
        // Through an interface: every possible type's field counts, unless a fragment narrows it.
        ("{ node { id } }", .pure),
        ("{ node { ... on Toy { maker } } }", .blocking),
        ("{ node { ... on Pet { name } } }", .pure),
        ("{ thing { ... on Node { id } } }", .pure),
        ("{ thing { ... on Toy { maker } } }", .blocking),
        ("{ thing { ... on Pet { ... on Node { id } } } }", .pure),
        ("mutation { quick }", .pure),
        ("query A { pure } query B { slow }", .pure),
    ])
    func operationPlacement(query: String, expected: ResolverPlacement) throws {
        #expect(try Self.placement(query) == expected)
    }

    /// The prepared document remembers each operation's placement by name.
    @Test func preparedDocumentsKnowEachOperation() throws {
        let service = GraphQLService(executable: Self.executable)
        let prepared = try service.prepare("query A { pure } query B { slow } query C { settled { name } }").get()
        for (name, expected) in [("A", ResolverPlacement.pure), ("B", .blocking), ("C", .pureOnceSettled)] {
            let operation = try #require(service.operation(of: prepared, named: name))
            #expect(prepared.placement(of: operation) == expected)
        }
    }

    /// Key-path bindings read the property (optional as null) and are pure.
    @Test func keyPathBindingsReadTheProperty() throws {
        let service = GraphQLService(executable: Self.executable)
        let prepared = try service.prepare("{ pet { name nickname } }").get()
        let result = service.execute(prepared, operationName: nil, variables: [:], context: 0)
        #expect(result.errors.isEmpty)
        #expect(String(decoding: JSON.object(["data": result.data ?? .null]).serialized(), as: UTF8.self)
            == #"{"data":{"pet":{"name":"Rex","nickname":null}}}"#)
    }
}
