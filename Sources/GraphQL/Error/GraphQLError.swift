import JSON

/// The one error shape of the engine, for syntax, validation and execution errors
/// (spec §7.1.2 Errors): a message, the source locations it concerns, the response
/// path of a field error, and optional extensions such as an error code.
public struct GraphQLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var locations: [SourceLocation]
    public var path: [PathElement]?
    public var extensions: JSONObject?

    public init(
        _ message: String,
        locations: [SourceLocation] = [],
        path: [PathElement]? = nil,
        extensions: JSONObject? = nil
    ) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
    }

    /// A syntax error at a byte offset of `source`: `Syntax Error: <description>`.
    public static func syntax(_ source: Source, at offset: Int, _ description: String) -> GraphQLError {
        GraphQLError("Syntax Error: " + description, locations: [source.location(of: offset)])
    }

    public var description: String {
        var text = message
        if !locations.isEmpty {
            text += " (" + locations.map(\.description).joined(separator: ", ") + ")"
        }
        return text
    }
}

/// One step of a response path: an object key or a list index.
public enum PathElement: Sendable, Hashable, CustomStringConvertible {
    case key(String)
    case index(Int)

    public var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): String(index)
        }
    }
}
