import JSON

/// The result of executing a request (spec §7.1): `data` absent when the request
/// failed before execution, `errors` absent when empty.
public struct ExecutionResult: Sendable {
    /// `nil`: no `data` entry; `.null`: `"data": null`.
    public var data: JSON?
    public var errors: [GraphQLError]

    public init(data: JSON?, errors: [GraphQLError] = []) {
        self.data = data
        self.errors = errors
    }

    /// The response map: `errors` first when present, then `data`, as graphql-js writes them.
    public var json: JSON {
        var object = JSONObject()
        if !errors.isEmpty { object.appendUnchecked("errors", .array(errors.map(\.json))) }
        if let data { object.appendUnchecked("data", data) }
        return .object(object)
    }

    /// Appends `json` serialized, without building the response map first (once per request).
    public func write(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        if !errors.isEmpty {
            output.append(contentsOf: #""errors":"#.utf8)
            JSONWriter.write(.array(errors.map(\.json)), to: &output)
            if data != nil { output.append(UInt8(ascii: ",")) }
        }
        if let data {
            output.append(contentsOf: #""data":"#.utf8)
            JSONWriter.write(data, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}

extension GraphQLError {
    /// The error as a response entry (spec §7.1.2): message, locations, path, extensions.
    public var json: JSON {
        var object = JSONObject()
        object.appendUnchecked("message", .string(message))
        if !locations.isEmpty {
            object.appendUnchecked(
                "locations",
                .array(locations.map { .object(["line": .int($0.line), "column": .int($0.column)]) }))
        }
        if let path {
            object.appendUnchecked(
                "path",
                .array(path.map {
                    switch $0 {
                    case .key(let key): .string(key)
                    case .index(let index): .int(index)
                    }
                }))
        }
        if let extensions, !extensions.isEmpty { object.appendUnchecked("extensions", .object(extensions)) }
        return .object(object)
    }
}
