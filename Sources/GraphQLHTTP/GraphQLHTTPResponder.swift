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

/// What a request came to, for logs and metrics.
public struct GraphQLHTTPOutcome: Sendable {
    public var response: HTTPResponse
    /// The operation's name when the request named or had one.
    public var operationName: String?
    /// The operation's type when the document was prepared.
    public var operationType: OperationType?
}

/// Where resolvers run: on a thread that may block, or on an HTTP event thread
/// (``GraphQLHTTPResponder/respondWithoutBlocking(to:awaited:)``) with what earlier
/// `.waiting` work delivered.
public enum GraphQLExecutionMode {
    case mayBlock
    case eventThread(awaited: (any Sendable)?)

    public var mayBlock: Bool {
        if case .mayBlock = self { true } else { false }
    }

    /// What the request's earlier `.waiting` work delivered (event threads only).
    public var awaited: (any Sendable)? {
        if case .eventThread(let awaited) = self { awaited } else { nil }
    }
}

/// The outcome of ``GraphQLHTTPResponder/respondWithoutBlocking(to:awaited:)``.
public enum GraphQLHTTPNonBlockingOutcome {
    case answered(GraphQLHTTPOutcome)
    /// Not answered (and nothing changed): `.needsBlocking` or `.waiting`.
    case deferred(NonBlockingResponse)
}

/// Serves one GraphQL endpoint by the GraphQL-over-HTTP specification: GET (queries
/// only) and POST with `application/json`, `Accept` negotiation between
/// `application/graphql-response+json` and `application/json`, and the status code
/// each outcome gets. Also the Parse app-id check of the contract.
public struct GraphQLHTTPResponder<Context>: Sendable {
    // The nested types do not depend on `Context`: declared outside the generic type, they
    // need no generic metadata at run time (looked up a few times per request otherwise).
    public typealias Configuration = GraphQLHTTPConfiguration
    public typealias Outcome = GraphQLHTTPOutcome
    public typealias ExecutionMode = GraphQLExecutionMode
    public typealias NonBlockingOutcome = GraphQLHTTPNonBlockingOutcome

    public let service: GraphQLService<Context>
    public let configuration: Configuration

    private let makeContext: @Sendable (HTTPRequest, ExecutionMode) -> Context
    private let prefetch: (@Sendable (Context, Document, OperationDefinition) -> NonBlockingResponse?)?
    private let deferral: (@Sendable (Context) -> NonBlockingResponse?)?
    private let finish: @Sendable (Context, ExecutionResult, inout HTTPResponse) -> Void

    /// - Parameters:
    ///   - makeContext: builds the resolvers' context from the HTTP request; on an event
    ///     thread, resolvers must not block.
    ///   - prefetch: before the first execution of a query on an event thread: nil, or
    ///     what its resolvers are known to need (say, a lookup they would otherwise ask
    ///     for through `deferral`), so that the query executes once, after it.
    ///   - deferral: after an execution on an event thread: nil when its result stands, or
    ///     what the request needs because a resolver gave up rather than block (the result
    ///     is then discarded). nil: resolvers may always block, so no operation executes on
    ///     an event thread.
    ///   - finish: may adjust the response after execution (status, headers).
    ///
    /// A request that `.waiting` work resumes is not decoded or prepared again: it executes
    /// with the awaited value in its `ExecutionMode`.
    public init(
        service: GraphQLService<Context>, configuration: Configuration = Configuration(),
        makeContext: @escaping @Sendable (HTTPRequest, ExecutionMode) -> Context,
        prefetch: (@Sendable (Context, Document, OperationDefinition) -> NonBlockingResponse?)? = nil,
        deferral: (@Sendable (Context) -> NonBlockingResponse?)? = nil,
        finish: @escaping @Sendable (Context, ExecutionResult, inout HTTPResponse) -> Void = { _, _, _ in }
    ) {
        self.service = service
        self.configuration = configuration
        self.makeContext = makeContext
        self.prefetch = prefetch
        self.deferral = deferral
        self.finish = finish
    }

    /// The body the contract gives a missing or wrong app id.
    public static var unauthorized: HTTPResponse {
        HTTPResponse(status: 403, headers: ["Content-Type": "application/json; charset=utf-8"], body: Array(#"{"error":"unauthorized"}"#.utf8))
    }

    /// The response to `request`; resolvers may block.
    public func respond(to request: HTTPRequest) -> Outcome {
        guard case .answered(let outcome) = respond(to: request, mode: .mayBlock) else {
            preconditionFailure("a request that may block is always answered")
        }
        return outcome
    }

    /// The response to `request` made without blocking, for an event thread; or, deferred,
    /// what it needs: a thread that may block for a mutation (or subscription), or what its
    /// resolvers asked for (`deferral`). Nothing has changed when it is deferred: queries
    /// have no side effects and mutations were not started.
    public func respondWithoutBlocking(to request: HTTPRequest, awaited: (any Sendable)?) -> NonBlockingOutcome {
        respond(to: request, mode: .eventThread(awaited: awaited))
    }

    private func respond(to request: HTTPRequest, mode: ExecutionMode) -> NonBlockingOutcome {
        if let resumption = mode.awaited as? Resumption {
            return execute(resumption.admitted, request, mode: .eventThread(awaited: resumption.value))
        }
        if let appId = configuration.appId, request.headers["X-Parse-Application-Id"] != appId {
            return .answered(Outcome(response: Self.unauthorized))
        }
        guard request.method == "GET" || request.method == "POST" else {
            var response = errorResponse(405, "Only GET and POST are supported at this endpoint.", .json)
            response.headers.replaceOrAdd(name: "Allow", value: "GET, POST")
            return .answered(Outcome(response: response))
        }
        guard let mediaType = GraphQLMediaType.negotiate(accept: request.headers["Accept"]) else {
            return .answered(Outcome(response: errorResponse(406, "The Accept header allows neither application/graphql-response+json nor application/json.", .json)))
        }

        let graphQLRequest: GraphQLRequest
        do {
            if request.method == "POST" {
                guard let contentType = request.headers["Content-Type"], let media = MediaType(Substring(contentType)) else {
                    return .answered(Outcome(response: errorResponse(415, "POST requests must have Content-Type application/json.", mediaType)))
                }
                guard media.type == "application", media.subtype == "json", media.isUTF8 else {
                    return .answered(Outcome(response: errorResponse(415, "Unsupported Content-Type \"\(media.essence)\"; use application/json with UTF-8.", mediaType)))
                }
                graphQLRequest = try GraphQLRequest.decode(body: request.body, maxDepth: configuration.maxJSONDepth)
            } else {
                graphQLRequest = try GraphQLRequest.decode(queryItems: request.queryItems, maxDepth: configuration.maxJSONDepth)
            }
        } catch {
            return .answered(Outcome(response: errorResponse(400, error.message, mediaType)))
        }
        var outcome = Outcome(response: HTTPResponse(status: 200), operationName: graphQLRequest.operationName)
        if graphQLRequest.query.utf8.count > configuration.maxDocumentSize {
            outcome.response = errorResponse(
                413, "The GraphQL document is larger than the limit of \(configuration.maxDocumentSize) bytes.", mediaType)
            return .answered(outcome)
        }

        let prepared: PreparedDocument
        switch service.prepare(graphQLRequest.query) {
        case .success(let document):
            prepared = document
        case .failure(let errors):
            // Request errors: 400 under graphql-response+json, 200 under json (spec §Status Codes).
            outcome.response = resultResponse(ExecutionResult(data: nil, errors: errors.errors), mediaType)
            return .answered(outcome)
        }
        let operation = service.operation(of: prepared, named: graphQLRequest.operationName)
        outcome.operationType = operation?.operation
        if outcome.operationName == nil { outcome.operationName = operation?.name?.value }
        if request.method == "GET", let operation, operation.operation != .query {
            var response = errorResponse(405, "Can only perform a \(operation.operation.rawValue) operation from a POST request.", mediaType)
            response.headers.replaceOrAdd(name: "Allow", value: "POST")
            outcome.response = response
            return .answered(outcome)
        }
        if !mode.mayBlock, deferral == nil || (operation.map { $0.operation != .query } ?? false) {
            return .deferred(.needsBlocking)
        }
        let admitted = Admitted(
            graphQLRequest: graphQLRequest, prepared: prepared, operation: operation, mediaType: mediaType, outcome: outcome)
        return execute(admitted, request, mode: mode)
    }

    /// Executes an admitted request; on an event thread, unless `prefetch` or `deferral`
    /// says what it needs first.
    private func execute(_ admitted: Admitted, _ request: HTTPRequest, mode: ExecutionMode) -> NonBlockingOutcome {
        let onEventThread = !mode.mayBlock
        let context = makeContext(request, mode)
        if onEventThread, mode.awaited == nil, let prefetch, let operation = admitted.operation,
            let next = prefetch(context, admitted.prepared.document, operation)
        {
            return .deferred(resuming(next, admitted))
        }
        let graphQLRequest = admitted.graphQLRequest
        let result = service.execute(
            admitted.prepared, operationName: graphQLRequest.operationName, variables: graphQLRequest.variables,
            context: context)
        if onEventThread, let deferral, let next = deferral(context) { return .deferred(resuming(next, admitted)) }
        var response = resultResponse(result, admitted.mediaType)
        finish(context, result, &response)
        var outcome = admitted.outcome
        outcome.response = response
        return .answered(outcome)
    }

    /// `next`, with `.waiting` work handing back a ``Resumption`` of `admitted`.
    private func resuming(_ next: NonBlockingResponse, _ admitted: Admitted) -> NonBlockingResponse {
        guard case .waiting(let start) = next else { return next }
        return .waiting { done in start { value in done(Resumption(admitted: admitted, value: value)) } }
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

/// A request that passed every check before execution.
private struct Admitted: Sendable {
    let graphQLRequest: GraphQLRequest
    let prepared: PreparedDocument
    let operation: OperationDefinition?
    let mediaType: GraphQLMediaType
    let outcome: GraphQLHTTPOutcome
}

/// What `.waiting` work hands back: the admitted request and the awaited value.
private struct Resumption: Sendable {
    let admitted: Admitted
    let value: any Sendable
}
