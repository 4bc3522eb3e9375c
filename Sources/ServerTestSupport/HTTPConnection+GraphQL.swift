import JSON
import TestSupport

extension RawResponse {
    /// The body as JSON (our own parser keeps key order).
    public func json() throws -> JSON { try JSONParser().parse(body) }
}

extension HTTPConnection {
    /// POSTs a GraphQL request to /graphql.
    public func graphQL(
        _ query: String, variables: JSONObject = [:], operationName: String? = nil, headers: [(String, String)] = []
    ) throws(HTTPClientError) -> RawResponse {
        var object: JSONObject = ["query": .string(query)]
        if !variables.isEmpty { object["variables"] = .object(variables) }
        if let operationName { object["operationName"] = .string(operationName) }
        return try request(
            "POST", "/graphql", headers: [("Content-Type", "application/json")] + headers, body: JSON.object(object).serialized())
    }
}

extension JSON {
    /// Follows a path of object keys.
    public func at(_ keys: String...) -> JSON? {
        var value: JSON? = self
        for key in keys { value = value?[key] }
        return value
    }
}
