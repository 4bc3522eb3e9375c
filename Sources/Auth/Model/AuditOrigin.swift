import Foundation

/// Who caused the changes being made, as the audit log names them: bound around a request's domain
/// calls (``bind(_:_:)``) and read by the one recording point (``EventLog``), so that no store
/// or service passes it along. Work no request caused (the janitor, the command line) is the
/// `system`'s.
public struct AuditOrigin: Sendable, Equatable {
    /// The audit log's `actor`.
    public enum Actor: String, Sendable, CaseIterable {
        /// A client: a user's session, or no credential at all (a log-in, a sign-up).
        case user
        /// The master key.
        case master
        /// The read-only master key.
        case readOnly = "read-only"
        /// Gatehouse itself (no request).
        case system
    }

    public var actor: Actor
    /// The client's address.
    public var ip: String?
    /// The client's `User-Agent`, as sent (the log keeps ``Session/userAgentLimit`` characters).
    public var userAgent: String?
    /// The session the request was made with, if it was looked up.
    public var sessionId: String?

    public init(actor: Actor, ip: String? = nil, userAgent: String? = nil, sessionId: String? = nil) {
        self.actor = actor
        self.ip = ip
        self.userAgent = userAgent
        self.sessionId = sessionId
    }

    /// The origin of `request`: the key's when it presented one of the master keys, else a user's.
    public init(_ request: AuthRequest, sessionId: String? = nil) {
        let actor: Actor = switch request.masterKey {
        case .master?: .master
        case .readOnly?: .readOnly
        case nil: .user
        }
        self.init(
            actor: actor, ip: request.clientAddress,
            userAgent: request.userAgent, sessionId: sessionId)
    }

    /// The origin in force; `system` outside ``bind(_:_:)``.
    public static var current: AuditOrigin { bound }

    @TaskLocal private static var bound = AuditOrigin(actor: .system)

    /// Runs `body` with `origin` as ``current`` (on this thread, and in tasks it starts).
    public static func bind<Result, Failure: Error>(_ origin: AuditOrigin, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        // TaskLocal's operation is untyped-throwing: carry the typed error across it.
        var failure: Failure?
        let result: Result? = $bound.withValue(origin) {
            do throws(Failure) { return try body() } catch { failure = error; return nil }
        }
        if let failure { throw failure }
        return result!
    }
}
