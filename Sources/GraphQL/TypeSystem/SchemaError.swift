/// Why a schema could not be built: every problem found, each with its location in
/// the SDL source, in graphql-js's words.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    public let sourceName: String
    public let errors: [GraphQLError]

    public init(sourceName: String, errors: [GraphQLError]) {
        self.sourceName = sourceName
        self.errors = errors
    }

    /// One line per problem: `schema.graphql:12:3: Unknown type "Usr". Did you mean "User"?`
    public var description: String {
        errors.map { error in
            let location = error.locations.first.map { "\(sourceName):\($0.line):\($0.column): " } ?? "\(sourceName): "
            return location + error.message
        }.joined(separator: "\n")
    }
}
