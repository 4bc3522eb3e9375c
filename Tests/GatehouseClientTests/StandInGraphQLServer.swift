import Foundation
import HTTPServer
import Synchronization

/// A stand-in for a Gatehouse server on a loopback port, for client tests: answers every
/// `/graphql` request with `reply(operationName)` (the word after `query`/`mutation`, e.g.
/// `LogInWith`) as JSON, and keeps each request's `variables.input`. Other paths get `page`.
///
/// The SDK's question for the fields an app declares on `User` (`UserFieldNames`) is answered
/// here, from ``declare(_:)`` (none at first), and counted in ``userFieldQuestions`` rather than
/// kept with the inputs.
final class StandInGraphQLServer: Sendable {
    struct Handler: HTTPHandler {
        let page: HTTPResponse
        let reply: @Sendable (String) -> String
        let inputs: Inputs

        func answer(_ request: HTTPRequest) -> HTTPAnswer {
            guard request.path == "/graphql" else { return .now(page) }
            let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
            let query = body["query"] as? String ?? ""
            let operation = query.split(separator: " ").dropFirst().first.map { String($0.prefix { $0.isLetter }) } ?? ""
            if operation == "UserFieldNames" { return .now(Self.json(inputs.userFieldsAnswer())) }
            let input = (body["variables"] as? [String: Any])?["input"] ?? [:]
            let text = (try? JSONSerialization.data(withJSONObject: input, options: [.sortedKeys, .withoutEscapingSlashes]))
                .map { String(decoding: $0, as: UTF8.self) } ?? ""
            inputs.list.withLock { $0.append(text) }
            return .now(Self.json(reply(operation)))
        }

        static func json(_ text: String) -> HTTPResponse {
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(text.utf8))
        }
    }
    final class Inputs: Sendable {
        let list = Mutex<[String]>([])
        let declared = Mutex<[String]>([])
        let userFieldQuestions = Mutex(0)

        /// `__type(name: "User")`: two built-in fields and the declared ones, all `String`.
        func userFieldsAnswer() -> String {
            userFieldQuestions.withLock { $0 += 1 }
            let fields = [#"{"name": "id", "type": {"kind": "NON_NULL", "ofType": {"kind": "SCALAR"}}}"#,
                #"{"name": "ACL", "type": {"kind": "NON_NULL", "ofType": {"kind": "OBJECT"}}}"#]
                + declared.withLock { $0 }.map { #"{"name": "\#($0)", "type": {"kind": "SCALAR", "ofType": null}}"# }
            return #"{"data": {"__type": {"fields": ["# + fields.joined(separator: ", ") + "]}}}"
        }
    }

    private let server: HTTPServer
    private let log = Inputs()

    init(page: HTTPResponse = HTTPResponse(status: 404), reply: @escaping @Sendable (String) -> String) throws {
        server = HTTPServer(configuration: .init(workerThreads: 1), handler: Handler(page: page, reply: reply, inputs: log))
        try server.start()
    }

    /// `http://127.0.0.1:<port>`.
    var origin: String { "http://127.0.0.1:\(server.boundPort ?? 0)" }
    /// The GraphQL endpoint.
    var url: URL { URL(string: origin + "/graphql")! }
    /// The `variables.input` of every GraphQL request so far, in order, as JSON with sorted keys.
    var inputs: [String] { log.list.withLock { $0 } }
    /// How many times a client asked which fields the app declares on `User`.
    var userFieldQuestions: Int { log.userFieldQuestions.withLock { $0 } }

    /// Makes `names` the fields the app declares on `User`, from the next question on.
    func declare(_ names: [String]) { log.declared.withLock { $0 = names } }

    func stop() { _ = server.stop() }

    /// A GraphQL error response.
    static func error(code: Int, message: String) -> String {
        #"{"errors": [{"message": "\#(message)", "extensions": {"code": \#(code)}}], "data": null}"#
    }
}
