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

    /// The answer to `request`; logged and counted when its response is made.
    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        if cors.isPreflight(request) { return .now(record(request, cors.preflightResponse(request), operation: nil)) }
        switch request.path {
        case "/" where request.method == "GET":
            return .now(finish(request, pages.app, operation: nil))
        case "/graphql" where Pages.wantsExplorer(request):
            return .now(finish(request, pages.explorer, operation: nil))
        case "/graphql":
            let graphQL = responder.answer(request)
            let operation = graphQL.operationName.map(Self.logged) ?? graphQL.operationType.map(Self.anonymous)
            return graphQL.answer.map { [self] response in finish(request, response, operation: operation) }
        case "/health":
            return .now(finish(request, Self.json(["status": "ok"]), operation: nil))
        case "/ready":
            return .blocking { [self] in finish(request, ready(), operation: nil) }
        case "/metrics":
            let response = HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(metrics.render(gauges: gauges()).utf8))
            return .now(finish(request, response, operation: nil))
        default:
            return .now(finish(request, Self.json(["error": "not found"], status: 404), operation: nil))
        }
    }

    /// `response` with CORS headers, logged and counted (`operation`: a GraphQL operation's name).
    private func finish(_ request: HTTPRequest, _ response: HTTPResponse, operation: String?) -> HTTPResponse {
        var response = response
        cors.apply(to: &response, for: request)
        return record(request, response, operation: operation)
    }

    /// `response`, logged and counted.
    private func record(_ request: HTTPRequest, _ response: HTTPResponse, operation: String?) -> HTTPResponse {
        let elapsed = request.receivedAt.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.record(operation: operation, status: response.status, seconds: seconds)
        if logger.enabled(.info) {
            logger.request(
                method: request.method, path: request.path, status: response.status,
                microseconds: Int((seconds * 1_000_000).rounded()), client: request.clientAddress, operation: operation)
        }
        return response
    }

    /// An operation's name as logs and metrics show it: at most 100 characters (the contract's
    /// bound), so that a client cannot fill the log with one name.
    static func logged(_ name: String) -> String {
        name.utf8.count <= 100 ? name : String(name.prefix(100))
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
            ("gatehouse_hashing_mean_job_seconds", "Recent mean duration of a password hashing job, which admission divides the maximum wait by.", "", hashingMetrics.meanJobSeconds),
            ("gatehouse_hashing_rejected_total", "Password hashes refused because they would have waited longer than the maximum wait.", "", Double(hashingMetrics.rejected)),
        ]
    }

    static func json(_ object: JSONObject, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: JSON.object(object).serialized())
    }
}

/// Builds each request's resolver context from its headers (the contract's headers), with the
/// viewer settled before execution.
struct ContextFactory: Sendable {
    let auth: AuthService
    let trustProxy: Bool

    /// The context for `operation` of `prepared`: mutations execute on a thread that may block
    /// (their resolvers hash passwords and write); a query that may select `viewer` waits for
    /// its session, which the cache answers at once or a batched lookup later.
    func context(
        for request: HTTPRequest, _ prepared: PreparedDocument, _ operation: OperationDefinition?
    ) -> ContextReadiness<RequestContext> {
        let token = sessionToken(request)
        let authRequest = self.authRequest(request)
        guard let operation else { return .now(RequestContext(sessionToken: token, request: authRequest)) }
        guard operation.operation == .query else { return .blocking(RequestContext(sessionToken: token, request: authRequest)) }
        guard let token else { return .now(RequestContext(sessionToken: nil, request: authRequest, viewer: .noToken)) }
        guard prepared.document.mayExecute(rootField: "viewer", of: operation) else {
            return .now(RequestContext(sessionToken: token, request: authRequest))
        }
        return .later { [auth] ready in
            auth.viewer(token: token) { result in
                ready(RequestContext(sessionToken: token, request: authRequest, viewer: .init(result)))
            }
        }
    }

    /// `X-Parse-Session-Token`, else `Authorization: Bearer`; nil when neither has one.
    func sessionToken(_ request: HTTPRequest) -> String? {
        if let token = request.headers["X-Parse-Session-Token"], !token.isEmpty { return token }
        guard let authorization = request.headers["Authorization"] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let value = parts[1].trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }

    /// Who is asking: the client's address, installation and master key.
    func authRequest(_ request: HTTPRequest) -> AuthRequest {
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
        return AuthRequest(
            clientAddress: address, installationId: installationId,
            isMaster: auth.isMasterKey(request.headers["X-Parse-Master-Key"]))
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
