import Auth
import Synchronization

/// The resolvers' context for one request: who is asking, and what went wrong in
/// a way the transport answers with a status code (rate limited, database down).
public final class RequestContext: Sendable {
    /// The session token (`X-Parse-Session-Token`, else `Authorization: Bearer`).
    public let sessionToken: String?
    public let request: AuthRequest

    /// Refusals that want an HTTP status when nothing else succeeded.
    public enum Refusal: Sendable, Hashable {
        case rateLimited(retryAfter: Int)
        case unavailable(retryAfter: Int)
    }

    private let refusals = Mutex<[Refusal]>([])

    /// Whether resolvers may block (database, hashing); false on an HTTP event thread,
    /// where a resolver that would block records what it needs (`need`) and gives up.
    public let mayBlock: Bool
    /// On an event thread, the session lookup made for this request's earlier attempt.
    public let viewerLookup: AuthService.ViewerLookup?

    /// What a resolver on an event thread needed and did not do.
    public enum Need: Sendable {
        /// The session lookup of the viewer: the request runs again with `viewerLookup`.
        case viewerLookup(token: String)
        /// A thread that may block: the request runs again on one.
        case blocking
    }
    private let needs = Mutex<Need?>(nil)

    /// The viewer found in the session cache before execution (on an event thread).
    public var prefetchedViewer: SessionGrant? {
        get { prefetched.withLock { $0 } }
        set { prefetched.withLock { $0 = newValue } }
    }
    private let prefetched = Mutex<SessionGrant?>(nil)

    public init(sessionToken: String?, request: AuthRequest, mayBlock: Bool = true, viewerLookup: AuthService.ViewerLookup? = nil) {
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.request = request
        self.mayBlock = mayBlock
        self.viewerLookup = viewerLookup
    }

    /// What resolvers needed (see `mayBlock`); `.blocking` wins over a lookup.
    public var need: Need? { needs.withLock { $0 } }

    func record(_ need: Need) {
        needs.withLock { recorded in
            if case .blocking? = recorded { return }
            recorded = need
        }
    }

    func record(_ refusal: Refusal) {
        refusals.withLock { $0.append(refusal) }
    }

    /// What fields were refused for, in order.
    public var recordedRefusals: [Refusal] { refusals.withLock { $0 } }
}
