import Auth
import AuthGraphQL
import Foundation
import GraphQL
import GraphQLHTTP
import HTTPServer
import JSON
import Postgres
import Sodium

/// The HTTP surface: `/` and the explorer (``Pages``), `/graphql`, `/health`, `/ready`, `/metrics`, CORS preflights,
/// one structured log line and one metrics sample per request.
final class Router: HTTPHandler {
    let responder: GraphQLHTTPResponder<RequestContext>
    let cors: CORSPolicy
    let logger: Logger
    let metrics: Metrics
    let pool: Pool
    let hashing: PasswordHashingPool
    let pages: Pages

    init(
        responder: GraphQLHTTPResponder<RequestContext>, cors: CORSPolicy, logger: Logger, metrics: Metrics, pool: Pool,
        hashing: PasswordHashingPool, pages: Pages = Pages()
    ) {
        self.responder = responder
        self.cors = cors
        self.logger = logger
        self.metrics = metrics
        self.pool = pool
        self.hashing = hashing
        self.pages = pages
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard case .response(let response) = route(request, mode: .mayBlock) else {
            preconditionFailure("a request that may block is always answered")
        }
        return response
    }

    /// On an HTTP event thread: everything but `/ready`, mutations (handed to a thread
    /// that may block) and viewers that miss the session cache (which wait for a batched
    /// lookup and come back).
    func respondWithoutBlocking(to request: HTTPRequest, awaited: (any Sendable)?) -> NonBlockingResponse {
        route(request, mode: .eventThread(awaited: awaited))
    }

    /// The response, logged and counted; or, on an event thread, what the request needs
    /// first (nothing is logged then).
    private func route(_ request: HTTPRequest, mode: GraphQLHTTPResponder<RequestContext>.ExecutionMode) -> NonBlockingResponse {
        let start = request.receivedAt
        var operationName: String? = nil
        var response: HTTPResponse
        if cors.isPreflight(request) {
            response = cors.preflightResponse(request)
        } else {
            switch request.path {
            case "/" where request.method == "GET":
                response = pages.app
            case "/graphql" where Pages.wantsExplorer(request):
                response = pages.explorer
            case "/graphql":
                let outcome: GraphQLHTTPResponder<RequestContext>.Outcome
                switch mode {
                case .mayBlock:
                    outcome = responder.respond(to: request)
                case .eventThread(let awaited):
                    switch responder.respondWithoutBlocking(to: request, awaited: awaited) {
                    case .answered(let answered): outcome = answered
                    case .deferred(let next): return next
                    }
                }
                response = outcome.response
                operationName = outcome.operationName ?? outcome.operationType.map(Self.anonymous)
            case "/health":
                response = Self.json(["status": "ok"])
            case "/ready":
                guard mode.mayBlock else { return .needsBlocking }
                response = ready()
            case "/metrics":
                response = HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                    body: Array(metrics.render(gauges: gauges()).utf8))
            default:
                response = Self.json(["error": "not found"], status: 404)
            }
            cors.apply(to: &response, for: request)
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.record(operation: request.path == "/graphql" ? operationName : nil, status: response.status, seconds: seconds)
        if logger.enabled(.info) {
            logger.request(
                method: request.method, path: request.path, status: response.status,
                microseconds: Int((seconds * 1_000_000).rounded()), client: request.clientAddress, operation: operationName)
        }
        return .response(response)
    }

    /// How logs and metrics name an operation without a name (a literal: no string built per request).
    private static func anonymous(_ type: OperationType) -> String {
        switch type {
        case .query: "anonymous query"
        case .mutation: "anonymous mutation"
        case .subscription: "anonymous subscription"
        }
    }

    /// `GET /ready`: 200 when a pooled connection answers, else 503.
    private func ready() -> HTTPResponse {
        do {
            _ = try pool.withConnection { connection in try connection.query("SELECT 1") }
            return Self.json(["status": "ready"])
        } catch {
            return Self.json(["status": "unavailable", "reason": "database unavailable"], status: 503)
        }
    }

    private func gauges() -> [(name: String, help: String, labels: String, value: Double)] {
        let stats = pool.stats
        let hashingMetrics = hashing.metrics
        return [
            ("gatehouse_db_pool_connections", "PostgreSQL connections of the pool by state.", "state=\"in_use\"", Double(stats.inUse)),
            ("gatehouse_db_pool_connections", "PostgreSQL connections of the pool by state.", "state=\"idle\"", Double(stats.idle)),
            ("gatehouse_db_pool_connections", "PostgreSQL connections of the pool by state.", "state=\"connecting\"", Double(stats.connecting)),
            ("gatehouse_db_pool_waiting", "Requests waiting for a PostgreSQL connection.", "", Double(stats.waiting)),
            ("gatehouse_db_pool_capacity", "Size of the PostgreSQL connection pool.", "", Double(stats.capacity)),
            ("gatehouse_hashing_queue_depth", "Password hashes waiting for a worker.", "", Double(hashingMetrics.queued)),
            ("gatehouse_hashing_busy_workers", "Password hashing workers at work.", "", Double(hashingMetrics.busyWorkers)),
            ("gatehouse_hashing_rejected_total", "Password hashes refused because the queue was full.", "", Double(hashingMetrics.rejected)),
        ]
    }

    static func json(_ object: JSONObject, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: JSON.object(object).serialized())
    }
}

/// Builds each request's resolver context from its headers (the contract's headers).
struct ContextFactory: Sendable {
    let auth: AuthService
    let trustProxy: Bool

    func context(for request: HTTPRequest, mode: GraphQLHTTPResponder<RequestContext>.ExecutionMode = .mayBlock) -> RequestContext {
        var token = request.headers["X-Parse-Session-Token"].flatMap { $0.isEmpty ? nil : $0 }
        if token == nil, let authorization = request.headers["Authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                token = value.isEmpty ? nil : value
            }
        }
        var address = request.clientAddress
        // The trusted proxy appends the address it saw to whatever the client sent, so
        // only the last entry (of all X-Forwarded-For fields, RFC 9110 §5.3) is not the
        // client's own claim; the first would let a client pick its rate-limit bucket.
        if trustProxy,
            let last = request.headers.values(for: "X-Forwarded-For").joined(separator: ",").split(separator: ",").last?
                .trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            address = last
        }
        let installationId = request.headers["X-Parse-Installation-Id"].flatMap { $0.isEmpty ? nil : $0 }
        return RequestContext(
            sessionToken: token,
            request: AuthRequest(
                clientAddress: address, installationId: installationId,
                isMaster: auth.isMasterKey(request.headers["X-Parse-Master-Key"])),
            mayBlock: mode.mayBlock, viewerLookup: mode.awaited as? AuthService.ViewerLookup)
    }

    /// Before a query's first execution on an event thread, when it may execute `viewer`:
    /// the viewer from the session cache, handed to the resolver; or, when the cache does not
    /// hold it, its lookup, so that the query executes once, after it (rather than once to find
    /// that out, as `deferral` would, and again).
    static func prefetch(auth: AuthService) -> @Sendable (RequestContext, Document, OperationDefinition) -> NonBlockingResponse? {
        { context, document, operation in
            guard context.viewerLookup == nil, context.sessionToken != nil,
                document.mayExecute(rootField: "viewer", of: operation)
            else { return nil }
            switch auth.viewerSource(token: context.sessionToken) {
            case .cache(let grant)?:
                context.prefetchedViewer = grant
                return nil
            case .database(let uncached)?:
                return .waiting { done in auth.startViewerLookup(uncached) { done($0) } }
            case nil:
                return nil
            }
        }
    }

    /// After an execution on an event thread: what the request needs before it can be
    /// answered (nil: the result stands). A viewer lookup runs batched, off this thread.
    static func deferral(auth: AuthService) -> @Sendable (RequestContext) -> NonBlockingResponse? {
        { context in
            switch context.need {
            case nil: return nil
            case .blocking: return .needsBlocking
            case .viewerLookup(let token):
                return .waiting { done in auth.startViewerLookup(token: token) { done($0) } }
            }
        }
    }

    /// After execution: when every root field was refused for a rate limit (or the
    /// database was down), the HTTP status says so, with `Retry-After`.
    static func finish(_ context: RequestContext, _ result: ExecutionResult, _ response: inout HTTPResponse) {
        let refusals = context.recordedRefusals
        guard !refusals.isEmpty else { return }
        if case .object(let data)? = result.data, data.values.contains(where: { $0 != .null }) { return }
        var limited: Int? = nil
        var unavailable: Int? = nil
        for refusal in refusals {
            switch refusal {
            case .rateLimited(let seconds): limited = max(limited ?? 0, seconds)
            case .unavailable(let seconds): unavailable = max(unavailable ?? 0, seconds)
            }
        }
        if let limited {
            response.status = 429
            response.headers.replaceOrAdd(name: "Retry-After", value: String(limited))
        } else if let unavailable {
            response.status = 503
            response.headers.replaceOrAdd(name: "Retry-After", value: String(unavailable))
        }
    }
}
