import Auth
import AuthGraphQL
import Foundation
import GraphQL
import GraphQLHTTP
import HTTPServer
import IPNetworks
import JSON
import Postgres
import Sodium

/// The HTTP surface: `/`, the explorer, the link pages, the operators' console at `/admin` and `/favicon.ico` (``Pages``),
/// `/graphql`, `/health`, `/ready`, `/metrics`, the key set, discovery and introspection of access tokens
/// (``AccessTokenEndpoints``), the OAuth provider's endpoints (``OAuthEndpoints``), `/_dev/mailbox` (only where
/// ``DevMailbox`` is served, to requests it admits), CORS preflights, one structured
/// log line and one metrics sample per request.
final class Router: HTTPHandler {
    let responder: GraphQLHTTPResponder<RequestContext>
    let contexts: ContextFactory
    let cors: CORSPolicy
    let logger: Logger
    let metrics: Metrics
    let pool: Pool
    let hashing: PasswordHashingPool
    let connectionCounts: HTTPServer.ConnectionCounts
    let pages: Pages
    let mailSender: MailSender?
    let webhookSender: WebhookSender?
    let devMailbox: DevMailbox?
    /// The session cache and the listener that keeps it honest (none when polling), for `/metrics`.
    let sessionCache: SessionCache?
    let sessionListener: NotificationListener?
    let accessTokens: AccessTokenEndpoints
    let oauth: OAuthEndpoints

    init(
        responder: GraphQLHTTPResponder<RequestContext>, contexts: ContextFactory, cors: CORSPolicy, logger: Logger,
        metrics: Metrics, pool: Pool, hashing: PasswordHashingPool, connectionCounts: HTTPServer.ConnectionCounts = .init(),
        pages: Pages = Pages(), mailSender: MailSender? = nil, webhookSender: WebhookSender? = nil, devMailbox: DevMailbox? = nil,
        sessionCache: SessionCache? = nil, sessionListener: NotificationListener? = nil
    ) {
        self.accessTokens = AccessTokenEndpoints(auth: contexts.auth)
        self.oauth = OAuthEndpoints(auth: contexts.auth, pages: pages, authRequest: { [contexts] in contexts.authRequest($0) })
        self.responder = responder
        self.contexts = contexts
        self.cors = cors
        self.logger = logger
        self.metrics = metrics
        self.pool = pool
        self.hashing = hashing
        self.connectionCounts = connectionCounts
        self.pages = pages
        self.mailSender = mailSender
        self.webhookSender = webhookSender
        self.devMailbox = devMailbox
        self.sessionCache = sessionCache
        self.sessionListener = sessionListener
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
        case "/verify-email" where request.method == "GET", "/reset-password" where request.method == "GET":
            return .now(finish(request, pages.links.page(for: request)!, operation: nil))
        case "/verify-email" where request.method == "POST", "/reset-password" where request.method == "POST":
            return .blocking { [self] in finish(request, linkForm(request), operation: nil) }
        case "/admin" where request.method == "GET" && pages.admin != nil:
            // No CORS headers: no other origin's page may read it.
            return .now(record(request, pages.admin!, operation: nil))
        case "/favicon.ico" where request.method == "GET":
            return .now(finish(request, Pages.favicon, operation: nil))
        case AccessTokenEndpoints.keySetPath where request.method == "GET":
            return .now(finish(request, accessTokens.keySet, operation: nil))
        case AccessTokenEndpoints.discoveryPath where request.method == "GET":
            return .now(finish(request, accessTokens.discovery, operation: nil))
        case AccessTokenEndpoints.introspectionPath where request.method == "POST" && OAuthEndpoints.hasBasicCredentials(request):
            return .blocking { [self] in finish(request, oauth.introspect(request), operation: nil) }
        case AccessTokenEndpoints.introspectionPath where request.method == "POST":
            return .blocking { [self] in finish(request, accessTokens.introspect(request), operation: nil) }
        case AccessTokenEndpoints.introspectionPath:
            var response = Self.json(["error": "invalid_request", "error_description": "Use POST."], status: 405)
            response.headers.replaceOrAdd(name: "Allow", value: "POST")
            return .now(finish(request, response, operation: nil))
        case OAuthEndpoints.authorizePath where request.method == "GET":
            return .blocking { [self] in finish(request, oauth.authorizePage(request), operation: nil) }
        case OAuthEndpoints.authorizePath where request.method == "POST":
            return .blocking { [self] in finish(request, oauth.authorizeForm(request), operation: nil) }
        case OAuthEndpoints.tokenPath where request.method == "POST":
            return .blocking { [self] in finish(request, oauth.token(request), operation: nil) }
        case OAuthEndpoints.userinfoPath where request.method == "GET" || request.method == "POST":
            return .blocking { [self] in finish(request, oauth.userinfo(request), operation: nil) }
        case OAuthEndpoints.revocationPath where request.method == "POST":
            return .blocking { [self] in finish(request, oauth.revoke(request), operation: nil) }
        case OAuthEndpoints.registrationPath where contexts.auth.oauth.registrationEnabled
            && (request.method == "POST" || request.method == "GET"):
            return .blocking { [self] in finish(request, oauth.register(request), operation: nil) }
        case let path where request.method == "DELETE" && path.hasPrefix(OAuthEndpoints.registrationPath + "/"):
            return .blocking { [self] in finish(request, oauth.deleteClient(request), operation: nil) }
        case OAuthEndpoints.authorizePath, OAuthEndpoints.tokenPath, OAuthEndpoints.revocationPath, OAuthEndpoints.userinfoPath:
            var response = Self.json(["error": "invalid_request", "error_description": "Method not allowed."], status: 405)
            response.headers.replaceOrAdd(name: "Allow", value: request.path == OAuthEndpoints.authorizePath || request.path == OAuthEndpoints.userinfoPath ? "GET, POST" : "POST")
            return .now(finish(request, response, operation: nil))
        case "/health":
            return .now(finish(request, Self.json(["status": "ok"]), operation: nil))
        case "/ready":
            return .blocking { [self] in finish(request, ready(), operation: nil) }
        case "/metrics":
            let response = HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(metrics.render(gauges: gauges()).utf8))
            return .now(finish(request, response, operation: nil))
        case "/_dev/mailbox" where request.method == "GET" && devMailbox != nil && DevMailbox.admits(request):
            // No CORS headers: no other origin's page may read it.
            return .blocking { [self] in record(request, devMailbox!.page(), operation: nil) }
        default:
            return .now(finish(request, Self.json(["error": "not found"], status: 404), operation: nil))
        }
    }

    /// A body over the server's limit: at `/graphql` a GraphQL response (the contract's "Responses"),
    /// elsewhere HTTPServer's; logged and counted like any answer.
    func bodyTooLarge(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
        let response = request.path == "/graphql" ? responder.bodyTooLarge(request, limit: limit) : HTTPResponse.bodyTooLarge
        return finish(request, response, operation: nil)
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

    /// The longest operation name logs and metrics show, in UTF-8 bytes.
    static let maxLoggedNameBytes = 100

    /// An operation's name as logs and metrics show it: at most ``maxLoggedNameBytes`` bytes, cut
    /// on a scalar boundary, so that a client cannot fill the log or the labels with one name.
    static func logged(_ name: String) -> String {
        name.utf8Prefix(maxLoggedNameBytes)
    }

    /// How logs and metrics name an operation without a name (a literal: no string built per request).
    private static func anonymous(_ type: OperationType) -> String {
        switch type {
        case .query: "anonymous query"
        case .mutation: "anonymous mutation"
        case .subscription: "anonymous subscription"
        }
    }

    /// A form a link page posts without scripts: the verify button (`username`, `token`), or "send a
    /// new link" (`email`). The answer is the page again, showing the outcome.
    private func linkForm(_ request: HTTPRequest) -> HTTPResponse {
        let kind = LinkPages.Kind(path: request.path)!
        let form = request.formItems
        let value = { (name: String) in form.first { $0.name == name }?.value ?? "" }
        let auth = contexts.auth
        let authRequest = contexts.authRequest(request)
        let state: LinkPages.State
        if form.contains(where: { $0.name == "email" }) {
            do throws(AuthError) {
                switch kind {
                case .verify: try auth.accounts.sendVerificationEmail(email: value("email"), request: authRequest)
                case .reset: try auth.accounts.resetPassword(email: value("email"), request: authRequest)
                }
                state = .sent
            } catch {
                state = .sendFailed(messageKey(error))
            }
        } else if kind == .verify {
            do throws(AuthError) {
                try auth.accounts.verifyEmail(username: value("username"), token: value("token"), request: authRequest)
                state = .verified
            } catch .invalidVerificationLink, .tokenMissing, .linkUsernameMissing {
                state = .invalid
            } catch {
                state = .verifyFailed(messageKey(error))
            }
        } else {
            state = .invalid  // the reset form is the script's
        }
        return pages.links.page(
            kind, state: state, username: value("username"), token: value("token"),
            acceptLanguage: request.headers["Accept-Language"])
    }

    /// The ``PageText`` key of an error a link page's form met.
    private func messageKey(_ error: AuthError) -> String {
        switch error {
        case .rateLimited, .busy: return "error.155.unknown"
        case .emailMissing: return "error.204"
        case .invalidEmail: return "error.125"
        case .internalError(let detail):
            logger.error("internal error", ["detail": .string(detail)])
            return "error.1"
        default: return "error.1"
        }
    }

    /// `GET /ready`: 200 when a pooled connection answers and may write, else 503: a
    /// load balancer then sends no traffic to an instance whose database is down or is a
    /// standby (every transaction read-only), as during a failover.
    private func ready() -> HTTPResponse {
        do {
            let readOnly = try pool.withConnection(retry: .once) { connection in
                let readOnly = try connection.queryFirst("SELECT current_setting('transaction_read_only') = 'on'")?.decode(Bool.self, at: 0)
                // Of no use to a pool that writes: the next checkout connects afresh (and may find the new primary).
                if readOnly == true { connection.close() }
                return readOnly
            }
            if readOnly == true {
                return Self.json(["status": "unavailable", "reason": "database read-only"], status: 503)
            }
            return Self.json(["status": "ready"])
        } catch {
            return Self.json(["status": "unavailable", "reason": "database unavailable"], status: 503)
        }
    }

    private func gauges() -> [(name: String, help: String, labels: String, value: Double)] {
        let stats = pool.stats
        let hashingMetrics = hashing.metrics
        return mailGauges() + webhookGauges() + notificationGauges() + standbyGauges() + [
            ("gatehouse_db_pool_connections", "PostgreSQL connections of the pool by state.", "state=\"in_use\"", Double(stats.inUse)),
            ("gatehouse_db_pool_connections", "PostgreSQL connections of the pool by state.", "state=\"idle\"", Double(stats.idle)),
            ("gatehouse_db_pool_connections", "PostgreSQL connections of the pool by state.", "state=\"connecting\"", Double(stats.connecting)),
            ("gatehouse_db_pool_waiting", "Requests waiting for a PostgreSQL connection.", "", Double(stats.waiting)),
            ("gatehouse_db_pool_capacity", "Size of the PostgreSQL connection pool.", "", Double(stats.capacity)),
            ("gatehouse_db_retries_total", "Reads and idempotent writes run again on a fresh connection after theirs was lost.", "", Double(pool.retriedCount)),
            ("gatehouse_hashing_queue_depth", "Password hashes waiting for a worker.", "", Double(hashingMetrics.queued)),
            ("gatehouse_hashing_busy_workers", "Password hashing workers at work.", "", Double(hashingMetrics.busyWorkers)),
            ("gatehouse_hashing_mean_job_seconds", "Recent mean CPU time of a password hashing job, which admission divides the maximum wait by.", "", hashingMetrics.meanJobSeconds),
            ("gatehouse_hashing_rejected_total", "Password hashes refused because they would have waited longer than the maximum wait.", "", Double(hashingMetrics.rejected)),
            ("gatehouse_log_lines_dropped_total", "Log lines dropped because standard error did not keep up.", "", Double(LogWriter.standardError.droppedLines)),
            ("gatehouse_http_connections_closed_total", "HTTP connections the server closed.", "reason=\"over_address_cap\"",
             Double(connectionCounts.refused.load(ordering: .relaxed))),
            ("gatehouse_http_connections_closed_total", "HTTP connections the server closed.", "reason=\"request_timeout\"",
             Double(connectionCounts.timedOut.load(ordering: .relaxed))),
        ]
    }

    /// How the viewer lookups' batches were answered with a read database (`GATEHOUSE_READ_DATABASE_URL`).
    private func standbyGauges() -> [(name: String, help: String, labels: String, value: Double)] {
        guard let counts = contexts.auth.sessions.standbyReads?.counts else { return [] }
        let help = "Batches of session lookups by the database that answered them: the standby, or the primary because the standby was behind it or unavailable."
        return [
            ("gatehouse_read_lookup_batches_total", help, "answered_by=\"standby\"", Double(counts.standby)),
            ("gatehouse_read_lookup_batches_total", help, "answered_by=\"primary\",reason=\"behind\"", Double(counts.behind)),
            ("gatehouse_read_lookup_batches_total", help, "answered_by=\"primary\",reason=\"unavailable\"", Double(counts.unavailable)),
        ]
    }

    /// Whether the session cache serves, and how often each `LISTEN` connection came back after a loss.
    private func notificationGauges() -> [(name: String, help: String, labels: String, value: Double)] {
        let help = "Times a LISTEN connection was lost and listening resumed (session cache: emptied each time)."
        var gauges: [(name: String, help: String, labels: String, value: Double)] = []
        if let sessionCache {
            gauges.append(("gatehouse_session_cache_live", "1 while the session cache serves (its notification connection is up), else 0.", "",
                           sessionCache.isLive ? 1 : 0))
            gauges.append(("gatehouse_session_cache_sessions", "Sessions in the session cache.", "", Double(sessionCache.count)))
        }
        if let sessionListener {
            gauges.append(("gatehouse_notification_reconnects_total", help, "listener=\"session_cache\"", Double(sessionListener.reconnectCount)))
        }
        if let listener = mailSender?.listener {
            gauges.append(("gatehouse_notification_reconnects_total", help, "listener=\"mail\"", Double(listener.reconnectCount)))
        }
        if let listener = webhookSender?.listener {
            gauges.append(("gatehouse_notification_reconnects_total", help, "listener=\"webhooks\"", Double(listener.reconnectCount)))
        }
        return gauges
    }

    /// The mail sender's counts and the outbox's backlog (as of the sender's last round: no query per scrape).
    private func mailGauges() -> [(name: String, help: String, labels: String, value: Double)] {
        guard let mailSender else { return [] }
        let counts = mailSender.deliveryCounts
        let pending = mailSender.pendingSummary
        return [
            ("gatehouse_mail_sent_total", "Messages this instance delivered to the SMTP server.", "", Double(counts.sent)),
            ("gatehouse_mail_failed_total", "Messages this instance gave up on (permanent failure, or 24 hours of retries).", "", Double(counts.failed)),
            ("gatehouse_mail_retries_total", "Failed deliveries this instance scheduled to retry.", "", Double(counts.retries)),
            ("gatehouse_mail_pending", "Messages in the outbox waiting for delivery.", "", Double(pending.count)),
            ("gatehouse_mail_oldest_pending_seconds", "Age of the oldest message waiting for delivery.", "", pending.oldestAge),
        ]
    }

    /// The webhook sender's counts per endpoint index and the outbox's backlog (as of the
    /// sender's last round: no query per scrape).
    private func webhookGauges() -> [(name: String, help: String, labels: String, value: Double)] {
        guard let webhookSender else { return [] }
        let pending = webhookSender.pendingSummary
        var gauges: [(name: String, help: String, labels: String, value: Double)] = []
        let counts = webhookSender.deliveryCounts
        for (index, count) in counts.enumerated() {
            gauges.append(("gatehouse_webhook_delivered_total", "Webhook deliveries this instance made (a 2xx answer), by endpoint index.",
                           "endpoint=\"\(index)\"", Double(count.delivered)))
        }
        for (index, count) in counts.enumerated() {
            gauges.append(("gatehouse_webhook_failed_total", "Webhook deliveries this instance gave up on (3 days of retries), by endpoint index.",
                           "endpoint=\"\(index)\"", Double(count.failed)))
        }
        for (index, count) in counts.enumerated() {
            gauges.append(("gatehouse_webhook_retries_total", "Failed webhook deliveries this instance scheduled to retry, by endpoint index.",
                           "endpoint=\"\(index)\"", Double(count.retries)))
        }
        gauges.append(("gatehouse_webhook_pending", "Webhook deliveries waiting in the outbox.", "", Double(pending.count)))
        gauges.append(("gatehouse_webhook_oldest_pending_seconds", "Age of the oldest webhook delivery waiting in the outbox.", "", pending.oldestAge))
        return gauges
    }

    static func json(_ object: JSONObject, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: JSON.object(object).serialized())
    }
}

/// Builds each request's resolver context from its headers (the contract's headers), with the
/// viewer settled before execution.
struct ContextFactory: Sendable {
    let auth: AuthService
    let proxies: TrustedProxies

    /// The context for `operation` of `prepared`, and where it executes: as the schema's bindings
    /// declare (``ResolverPlacement``). An operation that may block executes on a thread that
    /// may block; one whose resolvers read the viewer waits for its session, which the cache
    /// answers at once or a batched lookup later; a pure one executes now.
    func context(
        for request: HTTPRequest, _ prepared: PreparedDocument, _ operation: OperationDefinition?
    ) -> ContextReadiness<RequestContext> {
        let token = sessionToken(request)
        let authRequest = self.authRequest(request)
        guard let operation else { return .now(RequestContext(sessionToken: token, request: authRequest)) }
        switch prepared.placement(of: operation) {
        case .blocking:
            return .blocking(RequestContext(sessionToken: token, request: authRequest))
        case .pure:
            return .now(RequestContext(sessionToken: token, request: authRequest))
        case .pureOnceSettled:
            guard let token else { return .now(RequestContext(sessionToken: nil, request: authRequest, viewer: .noToken)) }
            return .later { [auth] ready in
                auth.sessions.viewer(token: token) { result in
                    ready(RequestContext(sessionToken: token, request: authRequest, viewer: .init(result)))
                }
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
        let address = proxies.clientAddress(peer: request.clientAddress, headers: request.headers)
        let installationId = request.headers["X-Parse-Installation-Id"].flatMap { $0.isEmpty ? nil : $0 }
        return AuthRequest(
            clientAddress: address, installationId: installationId,
            masterKey: auth.core.masterKey(request.headers["X-Parse-Master-Key"]),
            userAgent: request.headers["User-Agent"].flatMap { $0.isEmpty ? nil : $0 },
            acceptLanguage: request.headers["Accept-Language"])
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

/// `GATEHOUSE_TRUSTED_PROXIES`: the peers whose `X-Forwarded-For` is believed.
///
/// A trusted proxy appends the address it saw to whatever the header held, so the list is read
/// from the right (all `X-Forwarded-For` fields joined, RFC 9110 §5.3), past the entries that are
/// themselves trusted proxies: the first untrusted entry is the client. If every entry is
/// trusted, the left-most is. A `:port` suffix (`1.2.3.4:5678`, `[2001:db8::1]:443`) is ignored.
/// An entry that is not an address (`unknown`, an obfuscated identifier) stops the walk, and the
/// client is the last trusted hop before it: no trusted proxy writes such an entry for its
/// peer, so what lies beyond it cannot be vouched for, and taking it would let a sender pick
/// its own rate-limit key.
struct TrustedProxies: Sendable {
    let networks: [IPNetwork]

    /// The list of `GATEHOUSE_TRUSTED_PROXIES` (CIDR networks or bare addresses, comma-separated).
    init(_ networks: [IPNetwork]) {
        self.networks = networks
    }

    /// The client's address: the peer's, unless the peer is a trusted proxy and the header says otherwise.
    func clientAddress(peer: String, headers: HTTPHeaders) -> String {
        guard !networks.isEmpty, let peerAddress = IPAddress(peer), isTrusted(peerAddress) else { return peer }
        let fields = headers.values(for: "X-Forwarded-For")
        var client = peerAddress
        for entry in fields.joined(separator: ",").split(separator: ",").reversed() {
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let address = Self.address(trimmed) else { break }
            client = address
            if !isTrusted(address) { break }
        }
        return client.description
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// The address of one `X-Forwarded-For` entry, without its port: `1.2.3.4`, `1.2.3.4:80`,
    /// `2001:db8::1`, `[2001:db8::1]`, `[2001:db8::1]:443`.
    static func address(_ entry: String) -> IPAddress? {
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return nil }
            let rest = entry[entry.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return nil }
            return IPAddress(entry[entry.index(after: entry.startIndex)..<close])
        }
        let colons = entry.utf8.count { $0 == UInt8(ascii: ":") }
        if colons == 1, let colon = entry.firstIndex(of: ":"), isPort(entry[colon...]) {
            return IPAddress(entry[..<colon])
        }
        return IPAddress(entry)
    }

    /// `:` and a port number (1-5 digits, at most 65535).
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && Int(digits)! <= 65535
    }
}
