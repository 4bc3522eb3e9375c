import Foundation
import Postgres

/// The webhook outbox (`webhook_outbox`, migration 14): events are added by ``EventLog`` in the
/// transaction of their change, one row per endpoint that takes them; any instance's sender
/// claims, delivers and marks them through the machinery mail shares (``OutboxLease``).
///
/// Per endpoint, a user's events go out in the order of their rows: a row is due only when no
/// earlier row of the same endpoint and user is still pending (being delivered, or waiting for
/// its retry), so a later event waits while an earlier one is retried; other users' rows do not
/// wait for it.
public struct WebhookOutboxStore: Sendable {
    /// A claimed delivery.
    public struct Delivery: Sendable, Equatable {
        public var id: Int64
        /// The `webhook-id`: the same for every endpoint of the event and every retry.
        public var eventId: String
        /// The endpoint's URL.
        public var endpoint: String
        public var userId: String
        /// The event type (`user.created`, …).
        public var type: String
        /// The request's body, as written with the event.
        public var body: String
        /// Delivery attempts so far, counting the one a claim starts.
        public var attempts: Int
    }

    /// Retries after 5 s, doubling to at most an hour apart, for 3 days; then given up.
    public static let schedule = OutboxLease.RetrySchedule(base: 5, maximum: 3600, giveUpAfter: 3 * 86400)

    /// Claims, leases and marks the rows.
    public let lease: OutboxLease

    public init(pool: Pool) {
        lease = OutboxLease(pool: pool, table: Self.table)
    }

    static let table = OutboxLease.Table(
        name: "webhook_outbox",
        dueFilter: """
            AND NOT EXISTS (
                SELECT 1 FROM webhook_outbox e
                WHERE e.endpoint = w.endpoint AND e.user_id = w.user_id AND e.state = 'pending' AND e.id < w.id)
            """,
        returning: "m.id, m.event_id, m.endpoint, m.user_id, m.type, m.body, m.attempts",
        onSent: "", onFailure: "")

    /// Leases up to `limit` due deliveries (renewed while the sender works on them); oldest first.
    public func claim(limit: Int) throws -> [Delivery] {
        try lease.claim(limit: limit).map { row in
            Delivery(
                id: try row.decode(Int64.self, at: 0), eventId: try row.decode(String.self, at: 1),
                endpoint: try row.decode(String.self, at: 2), userId: try row.decode(String.self, at: 3),
                type: try row.decode(String.self, at: 4), body: try row.decode(String.self, at: 5),
                attempts: Int(try row.decode(Int32.self, at: 6)))
        }.sorted { $0.id < $1.id }
    }

    /// Records a failed attempt (``OutboxLease/markFailed(id:attempts:error:permanent:schedule:)``)
    /// on the webhook schedule.
    public func markFailed(_ delivery: Delivery, error: String, permanent: Bool = false) throws -> OutboxLease.FailureOutcome {
        try lease.markFailed(id: delivery.id, attempts: delivery.attempts, error: error, permanent: permanent, schedule: Self.schedule)
    }
}
