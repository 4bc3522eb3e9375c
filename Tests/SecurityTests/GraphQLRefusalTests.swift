import Foundation
import GatehouseServer
import Testing
import ServerTestSupport
import TestSupport

/// The contract's "Responses": every refusal of a request to `/graphql` is a GraphQL response
/// (`{"errors":[{"message":…}]}`, a GraphQL media type, `Cache-Control: no-store`), the 413 for a
/// body over the limit included; only the 403 for a wrong app id keeps Parse's body.
@Suite struct GraphQLRefusalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let request: String
        let status: Int
        let message: String
        var contentType = "application/json; charset=utf-8"
        var testDescription: String { name }
    }

    static let json = "Content-Type: application/json\r\n"

    static let cases = [
        Case(
            name: "413 declared body over the limit",
            request: "POST /graphql HTTP/1.1\r\nHost: x\r\n\(json)Content-Length: 300000\r\n\r\n",
            status: 413, message: "The request body is larger than the limit of 262144 bytes."),
        Case(
            name: "413 under graphql-response+json",
            request: "POST /graphql HTTP/1.1\r\nHost: x\r\n\(json)Accept: application/graphql-response+json\r\nContent-Length: 300000\r\n\r\n",
            status: 413, message: "The request body is larger than the limit of 262144 bytes.",
            contentType: "application/graphql-response+json; charset=utf-8"),
        Case(
            name: "413 chunked body over the limit",
            request: "POST /graphql HTTP/1.1\r\nHost: x\r\n\(json)Transfer-Encoding: chunked\r\n\r\n"
                + String(repeating: "10000\r\n" + String(repeating: "x", count: 65536) + "\r\n", count: 5) + "0\r\n\r\n",
            status: 413, message: "The request body is larger than the limit of 262144 bytes."),
        Case(
            name: "413 document over the limit",
            request: post(#"{"query":"{ health \#(String(repeating: "health ", count: 12_000))}"}"#),
            status: 413, message: "The GraphQL document is larger than the limit of 65536 bytes."),
        Case(
            name: "405 method", request: "PUT /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
            status: 405, message: "Only GET and POST are supported at this endpoint."),
        Case(
            name: "405 mutation over GET",
            request: "GET /graphql?query=mutation%20%7B%20logOut(input%3A%7B%7D)%20%7B%20ok%20%7D%20%7D HTTP/1.1\r\nHost: x\r\n\r\n",
            status: 405, message: "Can only perform a mutation operation from a POST request."),
        Case(
            name: "406 Accept", request: post(#"{"query":"{ health }"}"#, headers: "Accept: image/png\r\n"),
            status: 406, message: "The Accept header allows neither application/graphql-response+json nor application/json."),
        Case(
            name: "415 media type",
            request: "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}",
            status: 415, message: "Unsupported Content-Type \"text/plain\"; use application/json with UTF-8."),
        Case(
            name: "415 no media type", request: "POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
            status: 415, message: "POST requests must have Content-Type application/json."),
        Case(name: "400 bad JSON", request: post("{"), status: 400, message: ""),
        Case(name: "400 no query", request: post("{}"), status: 400, message: ""),
    ]

    static func post(_ body: String, headers: String = "") -> String {
        "POST /graphql HTTP/1.1\r\nHost: x\r\n\(json)\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    @Test(arguments: cases)
    func refusalIsGraphQLShaped(_ item: Case) throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let connection = try HTTPConnection(port: server.server.port)
        try connection.send(item.request)
        let response = try connection.readResponse()
        #expect(response.status == item.status, "\(response.text.prefix(300))")
        #expect(response.header("Content-Type") == item.contentType)
        #expect(response.header("Cache-Control") == "no-store")
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let errors = try #require(body?["errors"] as? [[String: Any]], "\(response.text.prefix(300))")
        #expect(body?.count == 1, "no data")
        let message = try #require(errors.first?["message"] as? String)
        if item.message.isEmpty { #expect(!message.isEmpty) } else { #expect(message == item.message) }
    }

    /// The 413 is logged and counted like every answer, and elsewhere keeps HTTPServer's body.
    @Test func bodyTooLargeIsCountedAndOtherPathsKeepTheirBody() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let tooLarge = "Content-Length: 300000\r\n\r\n"
        let graphQL = try HTTPConnection(port: server.server.port)
        try graphQL.send("POST /graphql HTTP/1.1\r\nHost: x\r\n\(Self.json)\(tooLarge)")
        #expect(try graphQL.readResponse().status == 413)
        let other = try HTTPConnection(port: server.server.port)
        try other.send("POST /health HTTP/1.1\r\nHost: x\r\n\(tooLarge)")
        let response = try other.readResponse()
        #expect(response.status == 413)
        #expect(response.text == #"{"error":"request body too large"}"#)
        let metrics = try HTTPConnection.get("/metrics", port: server.server.port).text
        #expect(metrics.contains(#"gatehouse_requests_total{operation="none",status="413"} 2"#), "\(metrics)")
        // Lines the log buffer dropped (LogWriterTests drives the count).
        #expect(metrics.contains("# TYPE gatehouse_log_lines_dropped_total counter\ngatehouse_log_lines_dropped_total "))
    }

    /// A wrong app id keeps Parse's exact body; a path below /graphql is not the endpoint.
    @Test func wrongAppIdAndOtherPaths() throws {
        let server = try InProcessServer { $0.appId = "app" }
        defer { server.stop() }
        let connection = try HTTPConnection(port: server.server.port)
        try connection.send(Self.post(#"{"query":"{ health }"}"#, headers: "X-Parse-Application-Id: wrong\r\n"))
        let refused = try connection.readResponse()
        #expect(refused.status == 403)
        #expect(refused.text == #"{"error":"unauthorized"}"#)
        let below = try HTTPConnection.get("/graphql/x", port: server.server.port)
        #expect(below.status == 404)
    }
}
