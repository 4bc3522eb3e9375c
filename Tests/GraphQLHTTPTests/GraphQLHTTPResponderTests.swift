import Dispatch
import GraphQL
import GraphQLHTTP
import HTTPServer
import JSON
import Synchronization
import Testing

/// Responder-level tests: every status code and media-type case of GraphQL over HTTP.
@Suite struct GraphQLHTTPResponderTests {
    static let responder: GraphQLHTTPResponder<String> = {
        let schema = try! GraphQLSchema.build(sdl: """
            type Query { hello(name: String): String! n(v: Int!): Int }
            type Mutation { bump: Int }
            """)
        var resolvers = Resolvers<String>()
        resolvers.field("Query.hello") { _, args, context, _ in
            if case .string(let name)? = args["name"] { return .string("hello \(name)") }
            return .string("hello \(context)")
        }
        resolvers.field("Query.n") { _, args, _, _ in ResolvedValue(args["v"] ?? .null) }
        resolvers.field("Mutation.bump") { _, _, _, _ in .int(1) }
        let service = GraphQLService(executable: try! ExecutableSchema(schema: schema, resolvers: resolvers))
        return GraphQLHTTPResponder(
            service: service, configuration: .init(appId: nil, maxDocumentSize: 200),
            context: { request, _, _ in .now(request.clientAddress) })
    }()

    static func post(_ body: String, contentType: String? = "application/json", accept: String? = nil, appId: String? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        if let accept { headers.add(name: "Accept", value: accept) }
        if let appId { headers.add(name: "X-Parse-Application-Id", value: appId) }
        return HTTPRequest(method: "POST", path: "/graphql", headers: headers, body: Array(body.utf8), clientAddress: "10.0.0.1")
    }

    static func get(_ query: String, accept: String? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = [:]
        if let accept { headers.add(name: "Accept", value: accept) }
        return HTTPRequest(method: "GET", path: "/graphql", rawQuery: query, headers: headers)
    }

    func body(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func postExecutesWithContext() {
        let outcome = Self.responder.respond(to: Self.post(#"{"query":"{ hello }"}"#))
        #expect(outcome.response.status == 200)
        #expect(outcome.response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(outcome.response.headers["Cache-Control"] == "no-store")
        #expect(body(outcome.response) == #"{"data":{"hello":"hello 10.0.0.1"}}"#)
        #expect(outcome.operationType == .query)
    }

    @Test func getWithVariablesAndOperationName() {
        let outcome = Self.responder.respond(
            to: Self.get("query=query%20Q(%24n%3AString)%7Bhello(name%3A%24n)%7D&variables=%7B%22n%22%3A%22x%22%7D&operationName=Q",
                         accept: "application/graphql-response+json"))
        #expect(outcome.response.status == 200)
        #expect(outcome.response.headers["Content-Type"] == "application/graphql-response+json; charset=utf-8")
        #expect(body(outcome.response) == #"{"data":{"hello":"hello x"}}"#)
        #expect(outcome.operationName == "Q")
    }

    /// The answer names an operation only by a name in the document, never by a client's
    /// `operationName` that names none (it would reach logs and metrics verbatim).
    @Test func theOperationNameComesFromTheDocument() {
        let named = Self.responder.respond(to: Self.post(#"{"query":"query Q { hello } query R { hello }","operationName":"R"}"#))
        #expect(named.operationName == "R" && named.operationType == .query)
        let only = Self.responder.respond(to: Self.post(#"{"query":"query Q { hello }"}"#))
        #expect(only.operationName == "Q")
        for body in [
            #"{"query":"{ hello }","operationName":"Made\u0301Up"}"#, #"{"query":"query Q { hello }","operationName":"R"}"#,
            #"{"query":"{ hello","operationName":"R"}"#,
        ] {
            let outcome = Self.responder.respond(to: Self.post(body))
            #expect(outcome.operationName == nil, "\(body)")
        }
    }

    @Test(arguments: [
        // (accept, expected media type, status for a syntax error)
        (nil as String?, "application/json", 200),
        ("application/json", "application/json", 200),
        ("*/*", "application/json", 200),
        ("application/graphql-response+json", "application/graphql-response+json", 400),
        ("application/json;q=0.9, application/graphql-response+json", "application/graphql-response+json", 400),
        ("application/graphql-response+json;q=0.5, application/json", "application/json", 200),
        ("application/graphql-response+json, application/json", "application/graphql-response+json", 400),
    ])
    func requestErrorStatusDependsOnMediaType(accept: String?, mediaType: String, status: Int) {
        let outcome = Self.responder.respond(to: Self.post(#"{"query":"{ hello"}"#, accept: accept))
        #expect(outcome.response.status == status)
        #expect(outcome.response.headers["Content-Type"] == mediaType + "; charset=utf-8")
        #expect(body(outcome.response) == #"{"errors":[{"message":"Syntax Error: Expected Name, found <EOF>.","locations":[{"line":1,"column":8}]}]}"#)
    }

    @Test(arguments: [
        ("not json", "The request body is not valid JSON"),
        ("[1]", "The request body must be a JSON object."),
        ("{}", "The \\\"query\\\" parameter is required."),
        (#"{"query":1}"#, "The \\\"query\\\" parameter must be a string."),
        (#"{"query":"{hello}","variables":[]}"#, "The \\\"variables\\\" parameter must be an object or null."),
        (#"{"query":"{hello}","operationName":2}"#, "The \\\"operationName\\\" parameter must be a string or null."),
        (#"{"query":"{hello}","extensions":"x"}"#, "The \\\"extensions\\\" parameter must be an object or null."),
    ])
    func malformedRequestsAre400(body requestBody: String, message: String) {
        for accept in ["application/json", "application/graphql-response+json"] {
            let outcome = Self.responder.respond(to: Self.post(requestBody, accept: accept))
            #expect(outcome.response.status == 400)
            #expect(body(outcome.response).contains(message))
        }
    }

    @Test func nullVariablesAndOperationNameAreAbsent() {
        let outcome = Self.responder.respond(to: Self.post(#"{"query":"{ hello }","variables":null,"operationName":null,"extensions":null}"#))
        #expect(outcome.response.status == 200)
    }

    @Test func variableErrorsAreRequestErrors() {
        let request = #"{"query":"query($v:Int!){ n(v:$v) }","variables":{"v":"x"}}"#
        let json = Self.responder.respond(to: Self.post(request))
        #expect(json.response.status == 200)
        #expect(body(json.response).contains(#"Variable \"$v\" got invalid value \"x\"; Int cannot represent non-integer value: \"x\""#))
        let strict = Self.responder.respond(to: Self.post(request, accept: "application/graphql-response+json"))
        #expect(strict.response.status == 400)
    }

    /// Every GraphQL response, request errors included, tells caches not to keep it.
    @Test(arguments: [#"{"query":"{ hello }"}"#, #"{"query":"{ nope }"}"#, "not json"])
    func responsesAreNotStored(_ body: String) {
        #expect(Self.responder.respond(to: Self.post(body)).response.headers["Cache-Control"] == "no-store")
    }

    @Test func mutationOverGetIs405() {
        let outcome = Self.responder.respond(to: Self.get("query=mutation%7Bbump%7D"))
        #expect(outcome.response.status == 405)
        #expect(outcome.response.headers["Allow"] == "POST")
        let post = Self.responder.respond(to: Self.post(#"{"query":"mutation{bump}"}"#))
        #expect(body(post.response) == #"{"data":{"bump":1}}"#)
    }

    @Test func otherMethodsAre405() {
        let outcome = Self.responder.respond(to: HTTPRequest(method: "PUT", path: "/graphql"))
        #expect(outcome.response.status == 405)
        #expect(outcome.response.headers["Allow"] == "GET, POST")
    }

    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "application/graphql"])
    func unsupportedContentTypesAre415(contentType: String) {
        #expect(Self.responder.respond(to: Self.post(#"{"query":"{hello}"}"#, contentType: contentType)).response.status == 415)
    }

    @Test func missingContentTypeIs415() {
        #expect(Self.responder.respond(to: Self.post(#"{"query":"{hello}"}"#, contentType: nil)).response.status == 415)
    }

    @Test func charsetUTF8IsAccepted() {
        #expect(Self.responder.respond(to: Self.post(#"{"query":"{hello}"}"#, contentType: "application/json; charset=UTF-8")).response.status == 200)
    }

    @Test(arguments: ["text/html", "application/xml", "application/json;q=0"])
    func unacceptableAcceptIs406(accept: String) {
        #expect(Self.responder.respond(to: Self.post(#"{"query":"{hello}"}"#, accept: accept)).response.status == 406)
    }

    @Test func documentSizeLimitIs413() {
        let big = "{ " + String(repeating: "hello ", count: 40) + "}"
        #expect(Self.responder.respond(to: Self.post(#"{"query":"\#(big)"}"#)).response.status == 413)
    }

    @Test func appIdIsChecked() {
        let schema = try! GraphQLSchema.build(sdl: "type Query { a: Int }")
        var resolvers = Resolvers<Void>()
        resolvers.field("Query.a") { _, _, _, _ in .int(1) }
        let responder = GraphQLHTTPResponder(
            service: GraphQLService(executable: try! ExecutableSchema(schema: schema, resolvers: resolvers)),
            configuration: .init(appId: "app"), context: { _, _, _ in .now(()) })
        for appId in [nil, "", "wrong"] as [String?] {
            let response = responder.respond(to: Self.post(#"{"query":"{a}"}"#, appId: appId)).response
            #expect(response.status == 403)
            #expect(response.headers["Cache-Control"] == "no-store")
            #expect(body(response) == #"{"error":"unauthorized"}"#)
        }
        #expect(responder.respond(to: Self.post(#"{"query":"{a}"}"#, appId: "app")).response.status == 200)
    }

    @Test func corsPreflightAndOrigins() {
        let policy = CORSPolicy(allowedOrigins: ["https://app.example"])
        var headers: HTTPHeaders = ["Origin": "https://app.example", "Access-Control-Request-Method": "POST"]
        let preflight = HTTPRequest(method: "OPTIONS", path: "/graphql", headers: headers)
        #expect(policy.isPreflight(preflight))
        let response = policy.preflightResponse(preflight)
        #expect(response.status == 204)
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(response.headers["Access-Control-Allow-Headers"]?.contains("X-Parse-Session-Token") == true)
        headers = ["Origin": "https://evil.example", "Access-Control-Request-Method": "POST"]
        #expect(policy.preflightResponse(HTTPRequest(method: "OPTIONS", path: "/graphql", headers: headers)).headers["Access-Control-Allow-Origin"] == nil)
        var ordinary = HTTPResponse(status: 200)
        CORSPolicy(allowedOrigins: ["*"]).apply(to: &ordinary, for: HTTPRequest(method: "POST", path: "/graphql", headers: ["Origin": "https://x"]))
        #expect(ordinary.headers["Access-Control-Allow-Origin"] == "*")
    }
}

extension GraphQLHTTPResponder {
    /// The answer to `request` run to its response on this thread, as the server's threads would.
    func respond(to request: HTTPRequest) -> (response: HTTPResponse, operationName: String?, operationType: OperationType?) {
        let answer = answer(request)
        return (answer.answer.responseWaitingHere(), answer.operationName, answer.operationType)
    }
}

extension HTTPAnswer {
    /// The response, made on this thread or waited for here.
    func responseWaitingHere() -> HTTPResponse {
        switch self {
        case .now(let response): return response
        case .blocking(let work): return work()
        case .later(let start):
            let reply = Mutex<HTTPResponse?>(nil)
            let done = DispatchSemaphore(value: 0)
            start { response in
                reply.withLock { $0 = response }
                done.signal()
            }
            done.wait()
            return reply.withLock { $0! }
        }
    }
}
