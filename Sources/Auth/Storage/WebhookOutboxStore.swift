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
        returning: "m.id, m.event_id, m.endpoint, m.user_id, m.type, m.body, m.attempts",
        onSent: "", onFailure: "")

    /// How many of an endpoint's pending rows, lowest ids first, a claim looks at. Every earlier
    /// row of a user is among them (its id is lower), so the users' chains are found by one sort
    /// of these rows, not by a probe per row: the outbox fills from empty to tens of thousands of
    /// pending rows faster than autovacuum's analyze follows, and on statistics taken while no row
    /// was pending the planner ran the earlier per-row probe (`NOT EXISTS` an earlier pending row of
    /// the user) as a check of every pending row against every other; claims ran past the
    /// statement timeout and deliveries stopped (found by `bench/webhooks.sh`). Whatever the plan,
    /// a claim now reads at most this many rows. A user with more pending rows than this behind a
    /// failing first one would hold up the endpoint's later users until that row is sent or given
    /// up.
    static let window = 10_000

    /// Leases up to `limit` deliveries to `endpoint` (renewed while the sender works on them),
    /// oldest first: due rows that wait for no earlier row of their user, each with the user's
    /// pending rows after it up to the first that is not due (being delivered elsewhere, or
    /// waiting for a retry). The `limit` rows are the lowest ids of those, so a chain is never
    /// taken without the rows before it.
    ///
    /// Safe beside other senders: a user's first row is locked (`SKIP LOCKED`, and taken only if
    /// still due), and the rows after it are due for no other claim while it is pending.
    public func claim(endpoint: String, limit: Int) throws -> [Delivery] {
        try lease.withoutFlush { connection in
            try connection.query("""
                WITH pending AS MATERIALIZED (
                    SELECT p.id, p.user_id, p.id = min(p.id) OVER mine AS first,
                        bool_and(p.next_attempt_at <= now()) OVER (mine ORDER BY p.id) AS clear
                    FROM (SELECT id, user_id, next_attempt_at FROM webhook_outbox
                          WHERE state = 'pending' AND endpoint = \(endpoint) ORDER BY id LIMIT \(Self.window)) p
                    WINDOW mine AS (PARTITION BY p.user_id)),
                taken AS MATERIALIZED (
                    SELECT id, user_id, first FROM pending WHERE clear ORDER BY id LIMIT \(limit)),
                heads AS MATERIALIZED (
                    SELECT w.user_id FROM webhook_outbox w JOIN taken t ON w.id = t.id
                    WHERE t.first AND w.state = 'pending' AND w.next_attempt_at <= now()
                    FOR UPDATE OF w SKIP LOCKED)
                UPDATE webhook_outbox m SET next_attempt_at = now() + make_interval(secs => \(OutboxLease.duration)),
                    attempts = m.attempts + 1, leased_by = \(lease.holder)
                FROM taken t JOIN heads h ON h.user_id = t.user_id
                WHERE m.id = t.id
                RETURNING \(sql: Self.table.returning)
                """)
        }.map(Self.delivery).sorted { $0.id < $1.id }
    }

    /// Seconds until the earliest pending delivery to `endpoint` that a claim could take is due
    /// (0 if one is due now); nil when none is pending. Rows held back behind an earlier one of
    /// their user count only through the row they wait for (among the rows a claim looks at).
    public func secondsUntilNextDue(endpoint: String) throws -> Double? {
        let row = try lease.pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT extract(epoch FROM min(p.next_attempt_at) - now())::float8
                FROM (SELECT next_attempt_at, id = min(id) OVER (PARTITION BY user_id) AS first
                      FROM (SELECT id, user_id, next_attempt_at FROM webhook_outbox
                            WHERE state = 'pending' AND endpoint = \(endpoint) ORDER BY id LIMIT \(Self.window)) w) p
                WHERE p.first
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
        let row = try lease.pool.withConnection(retry: .once) { connection in
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
