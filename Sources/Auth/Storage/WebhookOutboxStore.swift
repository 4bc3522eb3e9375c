import Foundation
import Postgres

/// The webhook outbox (`webhook_outbox`, migration 14): events are added by ``EventLog`` in the
/// transaction of their change, one row per endpoint that takes them; any instance's sender
/// claims, delivers and marks them through the machinery mail shares (``OutboxLease``).
///
/// Per endpoint, a user's events go out in the order of their rows: a row is due only when no
/// earlier row of the same endpoint and user is still pending (being delivered, or waiting for
/// its retry), so a later event waits while an earlier one is retried; other users' rows do not
/// wait for it. A claim takes, with each such first row, the user's pending rows after it (a
/// chain: a sign-up's `user.created` and `session.created` go out in one round); the sender
/// delivers a chain in order and stops at its first failure.
///
/// Each endpoint is claimed on its own (``claim(endpoint:limit:)``), so a sender can give each
/// endpoint its own deliveries: one that stops answering holds up no other.
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

    /// Leases up to `limit` deliveries to `endpoint` (renewed while the sender works on them),
    /// oldest first: due rows that wait for no earlier row of their user, each with the user's
    /// pending rows after it up to the first that is not due (being delivered elsewhere, or
    /// waiting for a retry). The `limit` rows are the lowest ids of those, so a chain is never
    /// taken without the rows before it.
    ///
    /// Safe beside other senders: a first row is locked (`SKIP LOCKED`), and the rows after it
    /// are due for no other claim while it is pending.
    public func claim(endpoint: String, limit: Int) throws -> [Delivery] {
        try lease.withoutFlush { connection in
            try connection.query("""
                WITH heads AS MATERIALIZED (
                    SELECT w.id, w.user_id FROM webhook_outbox w
                    WHERE w.state = 'pending' AND w.endpoint = \(endpoint) AND w.next_attempt_at <= now() \(sql: Self.table.dueFilter)
                    ORDER BY w.id LIMIT \(limit) FOR UPDATE SKIP LOCKED),
                chained AS MATERIALIZED (
                    SELECT h.id FROM heads h
                    UNION ALL
                    SELECT f.id FROM heads h CROSS JOIN LATERAL (
                        SELECT e.id, bool_and(e.next_attempt_at <= now()) OVER (ORDER BY e.id) AS clear
                        FROM webhook_outbox e
                        WHERE e.endpoint = \(endpoint) AND e.user_id = h.user_id AND e.state = 'pending' AND e.id > h.id
                        ORDER BY e.id LIMIT \(limit)) f
                    WHERE f.clear
                    ORDER BY id LIMIT \(limit))
                UPDATE webhook_outbox m SET next_attempt_at = now() + make_interval(secs => \(OutboxLease.duration)),
                    attempts = m.attempts + 1, leased_by = \(lease.holder)
                FROM chained WHERE m.id = chained.id
                RETURNING \(sql: Self.table.returning)
                """)
        }.map(Self.delivery).sorted { $0.id < $1.id }
    }

    /// Seconds until the earliest pending delivery to `endpoint` that a claim could take is due
    /// (0 if one is due now); nil when none is pending. Rows held back behind an earlier one of
    /// their user count only through the row they wait for.
    public func secondsUntilNextDue(endpoint: String) throws -> Double? {
        let row = try lease.planned(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT extract(epoch FROM min(w.next_attempt_at) - now())::float8 FROM webhook_outbox w
                WHERE w.state = 'pending' AND w.endpoint = \(endpoint) \(sql: Self.table.dueFilter)
                """)
        }
        return try row?.decode(Double?.self, at: 0).map { max($0, 0) }
    }

    /// Gives up, in one statement, up to `limit` due deliveries to endpoints not among `known`
    /// (an endpoint taken out of the configuration: nothing will deliver them), with `error` as
    /// their last error; the rows given up.
    public func giveUpUnknown(known: [String], error: String, limit: Int) throws -> [Delivery] {
        try lease.withoutFlush { connection in
            try connection.query("""
                UPDATE webhook_outbox m SET state = 'failed', last_error = \(error), leased_by = NULL
                FROM (SELECT w.id FROM webhook_outbox w
                      WHERE w.state = 'pending' AND w.next_attempt_at <= now() AND w.endpoint <> ALL(\(PostgresArray(known)))
                      ORDER BY w.id LIMIT \(limit) FOR UPDATE SKIP LOCKED) d
                WHERE m.id = d.id
                RETURNING \(sql: Self.table.returning)
                """)
        }.map(Self.delivery).sorted { $0.id < $1.id }
    }

    /// Seconds until the earliest pending delivery to an endpoint not among `known` is due (0
    /// if one is due now); nil when there is none.
    public func secondsUntilNextUnknownDue(known: [String]) throws -> Double? {
        let row = try lease.planned(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT extract(epoch FROM min(next_attempt_at) - now())::float8 FROM webhook_outbox
                WHERE state = 'pending' AND endpoint <> ALL(\(PostgresArray(known)))
                """)
        }
        return try row?.decode(Double?.self, at: 0).map { max($0, 0) }
    }

    private static func delivery(_ row: PostgresRow) throws -> Delivery {
        Delivery(
            id: try row.decode(Int64.self, at: 0), eventId: try row.decode(String.self, at: 1),
            endpoint: try row.decode(String.self, at: 2), userId: try row.decode(String.self, at: 3),
            type: try row.decode(String.self, at: 4), body: try row.decode(String.self, at: 5),
            attempts: Int(try row.decode(Int32.self, at: 6)))
    }

    /// Records a failed attempt (``OutboxLease/markFailed(id:attempts:error:permanent:schedule:)``)
    /// on the webhook schedule.
    public func markFailed(_ delivery: Delivery, error: String, permanent: Bool = false) throws -> OutboxLease.FailureOutcome {
        try lease.markFailed(id: delivery.id, attempts: delivery.attempts, error: error, permanent: permanent, schedule: Self.schedule)
    }
}
