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

    public init(sessionToken: String?, request: AuthRequest) {
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.request = request
    }

    func record(_ refusal: Refusal) {
        refusals.withLock { $0.append(refusal) }
    }

    /// What fields were refused for, in order.
    public var recordedRefusals: [Refusal] { refusals.withLock { $0 } }
}
