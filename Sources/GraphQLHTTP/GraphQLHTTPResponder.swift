import GraphQL
import HTTPServer

/// The settings of a ``GraphQLHTTPResponder``.
public struct GraphQLHTTPConfiguration: Sendable {
    /// When set, requests must send it in `X-Parse-Application-Id` (else 403).
    public var appId: String?
    /// The largest GraphQL document accepted, in bytes (413 above it).
    public var maxDocumentSize: Int
    /// The deepest nesting accepted in the JSON of the body and of GET parameters.
    public var maxJSONDepth: Int

    public init(appId: String? = nil, maxDocumentSize: Int = 64 * 1024, maxJSONDepth: Int = 64) {
        self.appId = appId
        self.maxDocumentSize = maxDocumentSize
        self.maxJSONDepth = maxJSONDepth
    }
}

/// The answer to a GraphQL request, and its operation for logs and metrics.
public struct GraphQLHTTPAnswer: Sendable {
    public var answer: HTTPAnswer
    /// The name of the operation that runs, when the document has one of that name: never a
    /// client's `operationName` that names no operation in the document, so that no text the
    /// client chose at will reaches logs or metrics (a name in a document is a GraphQL Name).
    public var operationName: String?
    /// The operation's type when the document was prepared.
    public var operationType: OperationType?
}

/// When the resolvers' context for a request is ready, and so where the request executes.
public enum ContextReadiness<Context: Sendable>: Sendable {
    /// Ready: execute now, on this thread.
    case now(Context)
    /// `start` calls its argument exactly once, from any thread, with the context, possibly
    /// before it returns; the request executes there and then.
    case later(_ start: @Sendable (_ ready: @escaping @Sendable (Context) -> Void) -> Void)
    /// Ready, but its resolvers may block: execute on a thread that may block.
    case blocking(Context)
}

/// Serves one GraphQL endpoint by the GraphQL-over-HTTP specification: GET (queries
/// only) and POST with `application/json`, `Accept` negotiation between
/// `application/graphql-response+json` and `application/json`, and the status code
/// each outcome gets. Also the Parse app-id check of the contract.
///
/// A request is decoded and prepared once, its context asked for once (``ContextReadiness``),
/// and it executes once, when and where the context is ready.
public struct GraphQLHTTPResponder<Context: Sendable>: Sendable {
    public typealias Configuration = GraphQLHTTPConfiguration

    public let service: GraphQLService<Context>
    public let configuration: Configuration

    private let context: @Sendable (HTTPRequest, PreparedDocument, OperationDefinition?) -> ContextReadiness<Context>
    private let finish: @Sendable (Context, ExecutionResult, inout HTTPResponse) -> Void

    /// - Parameters:
    ///   - context: the resolvers' context for a prepared request, and when it is ready; given
    ///     the operation that will execute (nil when the request names none that exists).
    ///   - finish: may adjust the response after execution (status, headers).
    public init(
        service: GraphQLService<Context>, configuration: Configuration = Configuration(),
        context: @escaping @Sendable (HTTPRequest, PreparedDocument, OperationDefinition?) -> ContextReadiness<Context>,
        finish: @escaping @Sendable (Context, ExecutionResult, inout HTTPResponse) -> Void = { _, _, _ in }
    ) {
        self.service = service
        self.configuration = configuration
        self.context = context
        self.finish = finish
    }

    /// The body the contract gives a missing or wrong app id.
    public static var unauthorized: HTTPResponse {
        HTTPResponse(
            status: 403, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
            body: Array(#"{"error":"unauthorized"}"#.utf8))
    }

    /// The answer to `request`: an error now, or its execution once its context is ready.
    public func answer(_ request: HTTPRequest) -> GraphQLHTTPAnswer {
        if let appId = configuration.appId, request.headers["X-Parse-Application-Id"] != appId {
            return GraphQLHTTPAnswer(answer: .now(Self.unauthorized))
        }
        guard request.method == "GET" || request.method == "POST" else {
            var response = errorResponse(405, "Only GET and POST are supported at this endpoint.", .json)
            response.headers.replaceOrAdd(name: "Allow", value: "GET, POST")
            return GraphQLHTTPAnswer(answer: .now(response))
        }
        guard let mediaType = GraphQLMediaType.negotiate(accept: request.headers["Accept"]) else {
            return GraphQLHTTPAnswer(answer: .now(errorResponse(406, "The Accept header allows neither application/graphql-response+json nor application/json.", .json)))
        }

        let graphQLRequest: GraphQLRequest
        do {
            if request.method == "POST" {
                guard let contentType = request.headers["Content-Type"], let media = MediaType(Substring(contentType)) else {
                    return GraphQLHTTPAnswer(answer: .now(errorResponse(415, "POST requests must have Content-Type application/json.", mediaType)))
                }
                guard media.type == "application", media.subtype == "json", media.isUTF8 else {
                    return GraphQLHTTPAnswer(answer: .now(errorResponse(415, "Unsupported Content-Type \"\(media.essence)\"; use application/json with UTF-8.", mediaType)))
                }
                graphQLRequest = try GraphQLRequest.decode(body: request.body, maxDepth: configuration.maxJSONDepth)
            } else {
                graphQLRequest = try GraphQLRequest.decode(queryItems: request.queryItems, maxDepth: configuration.maxJSONDepth)
            }
        } catch {
            return GraphQLHTTPAnswer(answer: .now(errorResponse(400, error.message, mediaType)))
        }
        if graphQLRequest.query.utf8.count > configuration.maxDocumentSize {
            let response = errorResponse(
                413, "The GraphQL document is larger than the limit of \(configuration.maxDocumentSize) bytes.", mediaType)
            return GraphQLHTTPAnswer(answer: .now(response))
        }

        let prepared: PreparedDocument
        switch service.prepare(graphQLRequest.query) {
        case .success(let document):
            prepared = document
        case .failure(let errors):
            // Request errors: 400 under graphql-response+json, 200 under json (spec §Status Codes).
            let response = resultResponse(ExecutionResult(data: nil, errors: errors.errors), mediaType)
            return GraphQLHTTPAnswer(answer: .now(response))
        }
        let operation = service.operation(of: prepared, named: graphQLRequest.operationName)
        let operationName = operation?.name?.value
        if request.method == "GET", let operation, operation.operation != .query {
            var response = errorResponse(405, "Can only perform a \(operation.operation.rawValue) operation from a POST request.", mediaType)
            response.headers.replaceOrAdd(name: "Allow", value: "POST")
            return GraphQLHTTPAnswer(answer: .now(response), operationName: operationName, operationType: operation.operation)
        }

        let answer: HTTPAnswer
        switch context(request, prepared, operation) {
        case .now(let context):
            answer = .now(execute(graphQLRequest, prepared, mediaType, context))
        case .later(let start):
            answer = .later { reply in start { context in reply(execute(graphQLRequest, prepared, mediaType, context)) } }
        case .blocking(let context):
            answer = .blocking { execute(graphQLRequest, prepared, mediaType, context) }
        }
        return GraphQLHTTPAnswer(answer: answer, operationName: operationName, operationType: operation?.operation)
    }

    /// The answer to a request whose body is over the server's limit of `limit` bytes (HTTPServer
    /// refuses it before ``answer(_:)``): 413, GraphQL-shaped like every refusal at the endpoint.
    public func bodyTooLarge(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
        let mediaType = GraphQLMediaType.negotiate(accept: request.headers["Accept"]) ?? .json
        return errorResponse(413, "The request body is larger than the limit of \(limit) bytes.", mediaType)
    }

    /// Executes a prepared request with its context: the response.
    private func execute(
        _ graphQLRequest: GraphQLRequest, _ prepared: PreparedDocument, _ mediaType: GraphQLMediaType, _ context: Context
    ) -> HTTPResponse {
        let result = service.execute(
            prepared, operationName: graphQLRequest.operationName, variables: graphQLRequest.variables, context: context)
        var response = resultResponse(result, mediaType)
        finish(context, result, &response)
        return response
    }

    /// A GraphQL response: 200, except that under graphql-response+json a response
    /// without `data` (a request error) is 400.
    private func resultResponse(_ result: ExecutionResult, _ mediaType: GraphQLMediaType) -> HTTPResponse {
        let status = (mediaType == .graphQLResponse && result.data == nil) ? 400 : 200
        var body: [UInt8] = []
        body.reserveCapacity(256)
        result.write(to: &body)
        return HTTPResponse(status: status, headers: mediaType.headers, body: body)
    }

    /// A request error with a GraphQL-shaped body: `{"errors":[{"message":...}]}`.
    private func errorResponse(_ status: Int, _ message: String, _ mediaType: GraphQLMediaType) -> HTTPResponse {
        let body = ExecutionResult(data: nil, errors: [GraphQLError(message)]).json.serialized()
        return HTTPResponse(status: status, headers: mediaType.headers, body: body)
    }
}
