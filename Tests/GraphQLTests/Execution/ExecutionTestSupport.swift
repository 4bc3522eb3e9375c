import GraphQL
import JSON

/// A small schema exercising every kind of type, with resolvers over Swift values.
enum StarSchema {
    struct Person: Sendable {
        let id: String
        let name: String?
        let friends: [String]
        let age: Int?
    }

    struct Droid: Sendable {
        let id: String
        let name: String
        let function: String
    }

    static let people: [String: Person] = [
        "1": Person(id: "1", name: "Luke", friends: ["2", "3"], age: 19),
        "2": Person(id: "2", name: nil, friends: [], age: nil),
    ]
    static let droids: [String: Droid] = ["3": Droid(id: "3", name: "R2", function: "astromech")]

    static let sdl = """
        interface Character { id: ID! name: String }
        type Person implements Character { id: ID! name: String friends: [Character!]! age: Int nonNullName: String! }
        type Droid implements Character { id: ID! name: String function: String }
        union Search = Person | Droid
        enum Episode { NEWHOPE EMPIRE JEDI }
        input Filter { episode: Episode = JEDI ids: [ID!] limit: Int! = 10 }
        input Pick @oneOf { id: ID name: String }
        type Point { x: Int y: Int }
        type Query {
          character(id: ID!): Character
          search(text: String): [Search]
          hero(episode: Episode): Character
          echo(filter: Filter, pick: Pick, n: Int = 3, list: [Int], float: Float): String
          nonNullHero: Person!
          failing: String
          failingNonNull: String!
          point: Point
          badInt: Int
          numbers: [Int!]
        }
        type Mutation { rename(id: ID!, name: String!): Person }
        """

    struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }

    @Sendable static func character(_ id: String) -> ResolvedValue {
        if let person = people[id] { return .value(person) }
        if let droid = droids[id] { return .value(droid) }
        return .null
    }

    static func executable() throws -> ExecutableSchema<Void> {
        let schema = try GraphQLSchema.build(sdl: sdl)
        var r = Resolvers<Void>()
        r.bind(Person.self, to: "Person")
        r.bind(Droid.self, to: "Droid")
        r.resolveFromJSON("Point")
        r.field("Query.character") { _, args, _, _ in
            guard case .string(let id)? = args["id"] else { return .null }
            return character(id)
        }
        r.field("Query.search") { _, _, _, _ in .list([character("1"), .null, character("3")]) }
        r.field("Query.hero") { _, args, _, _ in
            args["episode"] == .string("EMPIRE") ? character("1") : character("3")
        }
        r.field("Query.echo") { _, args, _, _ in
            var copy = args
            copy["__typename"] = nil
            return .string(JSON.object(copy).inspected)
        }
        r.field("Query.nonNullHero") { _, _, _, _ in character("2") }
        r.field("Query.failing") { _, _, _, _ in throw Boom() }
        r.field("Query.failingNonNull") { _, _, _, _ in throw GraphQLError("nope", extensions: ["code": .int(7)]) }
        r.field("Query.point") { _, _, _, _ in .json(.object(["x": .int(1), "y": .int(2)])) }
        r.field("Query.badInt") { _, _, _, _ in .double(1.5) }
        r.field("Query.numbers") { _, _, _, _ in .list([.int(1), .null, .int(3)]) }
        r.field("Mutation.rename", on: Void.self) { _, _, _, _ in .null }
        r.field("Person.id", on: Person.self) { p, _, _, _ in .string(p.id) }
        r.field("Person.name", on: Person.self) { p, _, _, _ in p.name.map(ResolvedValue.string) ?? .null }
        r.field("Person.friends", on: Person.self) { p, _, _, _ in .list(p.friends.map(character)) }
        r.field("Person.age", on: Person.self) { p, _, _, _ in p.age.map(ResolvedValue.int) ?? .null }
        r.field("Person.nonNullName", on: Person.self) { p, _, _, _ in p.name.map(ResolvedValue.string) ?? .null }
        r.field("Droid.id", on: Droid.self) { d, _, _, _ in .string(d.id) }
        r.field("Droid.name", on: Droid.self) { d, _, _, _ in .string(d.name) }
        r.field("Droid.function", on: Droid.self) { d, _, _, _ in .string(d.function) }
        return try ExecutableSchema(schema: schema, resolvers: r)
    }

    static func run(_ query: String, variables: JSONObject = [:], operationName: String? = nil) throws -> ExecutionResult {
        let source = Source(query)
        let document = try parse(source)
        return try executable().execute(
            document: document, source: source, operationName: operationName, variables: variables, context: ())
    }
}
