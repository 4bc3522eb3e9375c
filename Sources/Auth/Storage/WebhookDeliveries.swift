import Foundation
import Postgres

/// The webhook outbox as operators see it (`webhookDeliveries`, `retryWebhookDelivery`): every
/// delivery, newest first, and a failed one made pending again.
public struct WebhookDeliveries: Sendable {
    /// A delivery's state.
    public enum State: String, Sendable, CaseIterable {
        case pending
        /// Delivered (the row's `sent`).
        case delivered = "sent"
        /// Given up.
        case failed
    }

    /// One delivery: an event on its way to one endpoint.
    public struct Delivery: Sendable, Equatable {
        public var id: Int64
        public var eventId: String
        public var eventType: String
        public var url: String
        public var state: State
        public var attempts: Int
        public var lastError: String?
        /// When the next attempt is due; nil unless pending.
        public var nextAttemptAt: Date?
        public var createdAt: Date
    }

    public let pool: Pool

    public init(pool: Pool) {
        self.pool = pool
    }

    private static let columns: StaticString =
        "id, event_id, type, endpoint, state, attempts, last_error, CASE WHEN state = 'pending' THEN next_attempt_at END, created_at"

    private static func delivery(_ row: PostgresRow) throws -> Delivery {
        Delivery(
            id: try row.decode(Int64.self, at: 0), eventId: try row.decode(String.self, at: 1),
            eventType: try row.decode(String.self, at: 2), url: try row.decode(String.self, at: 3),
            state: State(rawValue: try row.decode(String.self, at: 4)) ?? .pending, attempts: Int(try row.decode(Int32.self, at: 5)),
            lastError: try row.decode(String?.self, at: 6), nextAttemptAt: try row.decode(Date?.self, at: 7),
            createdAt: try row.decode(Date.self, at: 8))
    }

    /// Up to `limit` deliveries in `state` (nil: any), newest first, with ids below `before`.
    public func list(state: State?, limit: Int, before: Int64?) throws -> [Delivery] {
        try pool.withConnection { connection in
            try connection.query("""
                SELECT \(sql: Self.columns) FROM webhook_outbox
                WHERE (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue))
                  AND (\(before)::bigint IS NULL OR id < \(before))
                ORDER BY id DESC LIMIT \(limit)
                """).map(Self.delivery)
        }
    }

    /// Makes the failed delivery `id` pending again, due now, with its attempts counted afresh
    /// (and wakes the senders); a delivery in another state is returned as it is. Nil: no such delivery.
    public func retry(id: Int64, now: Date) throws -> Delivery? {
        try pool.withConnection { connection in
            try connection.transaction { tx in
                let retried = try tx.queryFirst("""
                    UPDATE webhook_outbox SET state = 'pending', attempts = 0, next_attempt_at = \(now), leased_by = NULL
                    WHERE id = \(id) AND state = 'failed' RETURNING \(sql: Self.columns)
                    """)
                if let retried {
                    try tx.execute("SELECT gatehouse_notify('gatehouse_webhooks', '')")
                    return try Self.delivery(retried)
                }
                return try tx.queryFirst("SELECT \(sql: Self.columns) FROM webhook_outbox WHERE id = \(id)").map(Self.delivery)
            }
        }
    }
}
