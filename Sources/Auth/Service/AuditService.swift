import Foundation
import Postgres

/// The audit log and webhook deliveries as the API shows them: `auditEvents`,
/// `webhookDeliveries` and `retryWebhookDelivery` for the master key, a user's own
/// `securityEvents`, and the `admin.action` entry of each mutation made with a master key.
public struct AuditService: Sendable {
    let core: AuthCore
    /// The log: sealed by each instance's sealer, verified by `gatehouse audit verify`, pruned by the janitor.
    public let log: AuditLog
    public let deliveries: WebhookDeliveries

    /// Entries `auditEvents` and `webhookDeliveries` return at most per page, and by default.
    public static let pageLimit = 100
    /// How far back `securityEvents` looks.
    public static let securityEventsWindow: TimeInterval = 90 * 86400
    /// Entries `securityEvents` returns by default, and at most.
    public static let securityEventsDefault = 20

    init(core: AuthCore, pool: Pool) {
        self.core = core
        self.log = AuditLog(pool: pool)
        self.deliveries = WebhookDeliveries(pool: pool)
    }

    /// A page of a connection: its items with their cursors, and whether more follow.
    public struct Page<Item: Sendable>: Sendable {
        public var items: [(cursor: String, item: Item)]
        public var hasNextPage: Bool
    }

    /// Either master key (a mutation with the read-only one is refused before it gets here).
    static func requireMaster(_ request: AuthRequest) throws(AuthError) {
        guard request.readsAsMaster else { throw .masterKeyRequired }
    }

    /// `first`: 1 to ``pageLimit``; nil: ``pageLimit``.
    static func pageSize(_ first: Int?) throws(AuthError) -> Int {
        guard let first else { return pageLimit }
        guard (1...pageLimit).contains(first) else { throw .invalidArgument("first must be between 1 and \(pageLimit).") }
        return first
    }

    /// `auditEvents`: entries matching `filter`, newest first, after the opaque cursor `after`.
    public func events(_ filter: AuditLog.Filter, first: Int?, after: String?, request: AuthRequest) throws(AuthError) -> Page<AuditLog.Entry> {
        try Self.requireMaster(request)
        let limit = try Self.pageSize(first)
        var position: AuditLog.Position?
        if let after {
            guard let known = Self.uncursor(after).flatMap(AuditLog.Position.init) else {
                throw .invalidArgument("after is not a cursor of auditEvents.")
            }
            position = known
        }
        let rows = try core.database { () throws in try log.entries(filter, limit: limit + 1, after: position) }
        return Page(items: rows.prefix(limit).map { (Self.cursor($0.cursor), $0) }, hasNextPage: rows.count > limit)
    }

    /// `securityEvents`: `userId`'s entries of the last 90 days, newest first (the caller checked
    /// it may see them: its own, or the master key).
    public func securityEvents(of userId: String, first: Int?) throws(AuthError) -> [AuditLog.Entry] {
        let limit = try first.map { (first) throws(AuthError) -> Int in
            guard (1...Self.pageLimit).contains(first) else { throw .invalidArgument("first must be between 1 and \(Self.pageLimit).") }
            return first
        } ?? Self.securityEventsDefault
        let since = core.timestamp().addingTimeInterval(-Self.securityEventsWindow)
        return try core.database { () throws in
            try log.entries(AuditLog.Filter(userId: userId, after: since), limit: limit, after: nil)
        }
    }

    /// `webhookDeliveries`: deliveries in `state` (nil: any), newest first.
    public func webhookDeliveries(
        state: WebhookDeliveries.State?, first: Int?, after: String?, request: AuthRequest
    ) throws(AuthError) -> Page<WebhookDeliveries.Delivery> {
        try Self.requireMaster(request)
        let limit = try Self.pageSize(first)
        var before: Int64?
        if let after {
            guard let id = Self.uncursor(after).flatMap(Int64.init) else { throw .invalidArgument("after is not a cursor of webhookDeliveries.") }
            before = id
        }
        let rows = try core.database { () throws in try deliveries.list(state: state, limit: limit + 1, before: before) }
        return Page(items: rows.prefix(limit).map { (Self.cursor(String($0.id)), $0) }, hasNextPage: rows.count > limit)
    }

    /// `retryWebhookDelivery`: the failed delivery `id` pending again; 101 when there is none.
    public func retryWebhookDelivery(id: String, request: AuthRequest) throws(AuthError) -> WebhookDeliveries.Delivery {
        try Self.requireMaster(request)
        guard let number = Int64(id) else { throw .objectNotFound }
        guard let delivery = try core.database({ () throws in try deliveries.retry(id: number, now: core.timestamp()) }) else {
            throw .objectNotFound
        }
        return delivery
    }

    /// Records `admin.action` for a mutation made with a master key (`operation`, the mutation's
    /// name; `targetUserId`, the user its input named; `errorCode`, its refusal's code, if any), as
    /// the origin in force. Nothing without the audit log; a failure to record is logged, not thrown.
    public func recordAdminAction(operation: String, targetUserId: String?, errorCode: Int?) {
        guard core.events.records(.adminAction) else { return }
        let event = AuthEvent.adminAction(operation: operation, targetUserId: targetUserId, errorCode: errorCode, at: core.timestamp())
        do {
            try core.database { () throws in try log.pool.withConnection(retry: .never) { connection in
                try connection.transaction { tx in try core.events.record(event, in: tx) }
            } }
        } catch {
            core.log("recording an admin action: \(error)")
        }
    }

    /// Cursors are opaque to clients: base64 of the position.
    static func cursor(_ position: String) -> String {
        Data(position.utf8).base64EncodedString()
    }

    static func uncursor(_ cursor: String) -> String? {
        guard cursor.utf8.count <= 200, let data = Data(base64Encoded: cursor) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
