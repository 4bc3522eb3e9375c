import HTTPServer
import JSON

/// The parameters of a GraphQL-over-HTTP request (GraphQL over HTTP §Request Parameters).
public struct GraphQLRequest: Sendable, Hashable {
    public var query: String
    public var operationName: String?
    public var variables: JSONObject
    public var extensions: JSONObject

    public init(query: String, operationName: String? = nil, variables: JSONObject = [:], extensions: JSONObject = [:]) {
        self.query = query
        self.operationName = operationName
        self.variables = variables
        self.extensions = extensions
    }

    /// Why a request's parameters are not well-formed (answered with 400).
    struct Malformed: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// From a POST body (`application/json`).
    static func decode(body: [UInt8], maxDepth: Int) throws(Malformed) -> GraphQLRequest {
        // Read member by member: the body's object itself is never built.
        var query: JSON? = nil, operationName: JSON? = nil, variables: JSON? = nil, extensions: JSON? = nil
        let isObject: Bool
        do {
            isObject = try JSONParser(maxDepth: maxDepth).parseObjectMembers(body) { key, value in
                switch key {
                case "query": query = value
                case "operationName": operationName = value
                case "variables": variables = value
                case "extensions": extensions = value
                default: break
                }
            }
        } catch {
            throw Malformed("The request body is not valid JSON: \(error.message)")
        }
        guard isObject else { throw Malformed("The request body must be a JSON object.") }
        return try from(query: query, operationName: operationName, variables: variables, extensions: extensions)
    }

    /// From GET query parameters, where `variables` and `extensions` are JSON text.
    static func decode(queryItems: [HTTPRequest.QueryItem], maxDepth: Int) throws(Malformed) -> GraphQLRequest {
        func value(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }
        func json(_ name: String) throws(Malformed) -> JSON? {
            guard let text = value(name), !text.isEmpty else { return nil }
            do {
                return try JSONParser(maxDepth: maxDepth).parse(text)
            } catch {
                throw Malformed("The \"\(name)\" parameter is not valid JSON: \(error.message)")
            }
        }
        let operationName = value("operationName").flatMap { $0.isEmpty ? nil : JSON.string($0) }
        return try from(
            query: value("query").map(JSON.string), operationName: operationName, variables: try json("variables"),
            extensions: try json("extensions"))
    }

    private static func from(query: JSON?, operationName: JSON?, variables: JSON?, extensions: JSON?) throws(Malformed) -> GraphQLRequest {
        guard let query else { throw Malformed("The \"query\" parameter is required.") }
        guard case .string(let text) = query else { throw Malformed("The \"query\" parameter must be a string.") }
        var request = GraphQLRequest(query: text)
        switch operationName {
        case nil, .null?: break
        case .string(let name)?: request.operationName = name
        default: throw Malformed("The \"operationName\" parameter must be a string or null.")
        }
        switch variables {
        case nil, .null?: break
        case .object(let object)?: request.variables = object
        default: throw Malformed("The \"variables\" parameter must be an object or null.")
        }
        switch extensions {
        case nil, .null?: break
        case .object(let object)?: request.extensions = object
        default: throw Malformed("The \"extensions\" parameter must be an object or null.")
        }
        return request
    }
}
