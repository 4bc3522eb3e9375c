import Auth
import Synchronization

/// The resolvers' context for one request: who is asking, the viewer settled before
/// execution, and what went wrong in a way the transport answers with a status code (rate
/// limited, database down).
public final class RequestContext: Sendable {
    /// The session token (`X-Parse-Session-Token`, else `Authorization: Bearer`).
    public let sessionToken: String?
    public let request: AuthRequest
    /// The session behind `sessionToken`, looked up before execution when the operation may
    /// select `viewer`.
    public let viewer: Viewer

    /// The outcome of the viewer's session lookup.
    public enum Viewer: Sendable {
        /// The operation selects no `viewer`, so nothing was looked up.
        case notAsked
        /// The request carries no session token.
        case noToken
        /// The token's session and its user.
        case found(SessionGrant)
        /// No valid session (or the lookup failed): the error `viewer` answers with.
        case invalid(AuthError)

        /// The outcome of `SessionService.viewer(token:)`.
        public init(_ result: Result<SessionGrant, AuthError>) {
            switch result {
            case .success(let grant): self = .found(grant)
            case .failure(let error): self = .invalid(error)
            }
        }
    }

    /// Refusals that want an HTTP status when nothing else succeeded.
    public enum Refusal: Sendable, Hashable {
        case rateLimited(retryAfter: Int)
        case unavailable(retryAfter: Int)
    }

    private let refusals = Mutex<[Refusal]>([])
    /// The caller's session when it was looked up during execution (``caller(_:)``).
    private let lookedUp = Mutex<Result<SessionGrant?, AuthError>?>(nil)

    public init(sessionToken: String?, request: AuthRequest, viewer: Viewer = .notAsked) {
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.request = request
        self.viewer = viewer
    }

    func record(_ refusal: Refusal) {
        refusals.withLock { $0.append(refusal) }
    }

    /// The session of the request's token: the viewer settled before execution, else looked up
    /// now with `lookUp` (once per request; the caller's thread blocks); nil without a token.
    public func caller(_ lookUp: (String) throws(AuthError) -> SessionGrant) throws(AuthError) -> SessionGrant? {
        switch viewer {
        case .found(let grant): return grant
        case .invalid(let error): throw error
        case .noToken: return nil
        case .notAsked: break
        }
        guard let sessionToken else { return nil }
        if let known = lookedUp.withLock({ $0 }) { return try known.get() }
        let result = Result { () throws(AuthError) -> SessionGrant? in try lookUp(sessionToken) }
        lookedUp.withLock { $0 = result }
        return try result.get()
    }

    /// Who the request's changes are recorded as (``AuditOrigin``): the master key's or a user's,
    /// with the session the request was made with when it was looked up.
    public var auditOrigin: AuditOrigin {
        var sessionId: String?
        if case .found(let grant) = viewer {
            sessionId = grant.session.objectId
        } else if case .success(let grant?)? = lookedUp.withLock({ $0 }) {
            sessionId = grant.session.objectId
        }
        return AuditOrigin(request, sessionId: sessionId)
    }

    /// What fields were refused for, in order.
    public var recordedRefusals: [Refusal] { refusals.withLock { $0 } }
}
