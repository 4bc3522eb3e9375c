import Foundation
import Postgres
import Sodium

/// The delivery machinery both outboxes share (mail, `mail_outbox`; webhooks, `webhook_outbox`):
/// claiming due rows, the lease that holds them while a sender works, and what a delivery's
/// success or failure writes.
///
/// A claim leases due pending rows with `FOR UPDATE SKIP LOCKED`, so two live senders never hold
/// one row, for ``duration`` seconds, and names this sender (`leased_by` = ``holder``); while
/// the sender works on them it renews the lease every ``renewInterval`` seconds (``renew(ids:)``).
/// A sender killed mid-delivery stops renewing, and its rows are due again for any instance
/// within ``duration`` seconds. All times are the database's clock, so instances with skewed
/// clocks agree.
public struct OutboxLease: Sendable {
    /// What differs between the outboxes: the table and the SQL fragments of its rows.
    public struct Table: Sendable {
        /// The table's name.
        let name: StaticString
        /// The columns a claim returns, of the claimed row `m`.
        let returning: StaticString
        /// More assignments when a row is sent (empty, or starting with a comma).
        let onSent: StaticString
        /// More assignments when a failed row is updated, given `d.give_up` (empty, or starting with a comma).
        let onFailure: StaticString
    }

    /// When failed deliveries are tried again, and when they are given up.
    public struct RetrySchedule: Sendable, Equatable {
        /// Seconds before the first retry; doubling after each failure.
        public var base: Int
        /// Longest wait between two attempts, in seconds.
        public var maximum: Int
        /// Seconds after its creation when a row is given up.
        public var giveUpAfter: Int

        public init(base: Int, maximum: Int, giveUpAfter: Int) {
            self.base = base
            self.maximum = maximum
            self.giveUpAfter = giveUpAfter
        }

        /// Seconds to wait after failed attempt number `attempt` (1 for the first delivery).
        public func delay(attempt: Int) -> Int {
            let doublings = max(0, attempt - 1)
            guard doublings < 30 else { return maximum }
            return min(base << doublings, maximum)
        }
    }

    /// What became of a row whose delivery failed.
    public enum FailureOutcome: Sendable, Equatable {
        /// Due again after the backoff.
        case retry
        /// Given up: a permanent failure, or the next attempt would fall after the schedule's end.
        case failed
    }

    /// Seconds a claim or a renewal holds its rows: a sender that stops renewing (killed) leaves
    /// them to the others this long after its last renewal.
    public static let duration = 20
    /// Seconds between a working sender's renewals: several per ``duration``, so a renewal late
    /// by a few seconds (a loaded machine, a slow statement) does not lose the rows.
    public static let renewInterval = 5.0

    public let pool: Pool
    let table: Table
    /// This sender's name in `leased_by`: random per store, so a sender restarted in the same
    /// process does not renew a dead one's rows.
    public let holder: String

    init(pool: Pool, table: Table) {
        self.pool = pool
        self.table = table
        self.holder = SecureRandom.hex(count: 8)
    }

    /// Leases up to `limit` due pending rows for `seconds` and counts their attempt; oldest
    /// first. The rows as `table.returning` lists their columns.
    func claim(limit: Int, seconds: Int = OutboxLease.duration) throws -> PostgresResult {
        try withoutFlush { connection in
            // A materialized CTE picks the rows once: with `WHERE id IN (subquery)` the plan
            // returned more than `limit` rows (seen in OutboxStoreTests).
            try connection.query("""
                WITH due AS MATERIALIZED (
                    SELECT w.id FROM \(sql: table.name) w WHERE w.state = 'pending' AND w.next_attempt_at <= now()
                    ORDER BY w.id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                UPDATE \(sql: table.name) m SET next_attempt_at = now() + make_interval(secs => \(seconds)),
                    attempts = m.attempts + 1, leased_by = \(holder)
                FROM due WHERE m.id = due.id
                RETURNING \(sql: table.returning)
                """)
        }
    }

    /// Extends the lease of the rows this sender still holds among `ids` by ``duration``.
    public func renew(ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try withoutFlush { connection in
            _ = try connection.execute("""
                UPDATE \(sql: table.name) SET next_attempt_at = now() + make_interval(secs => \(Self.duration))
                WHERE id = ANY(\(PostgresArray(ids))) AND state = 'pending' AND leased_by = \(holder)
                """)
        }
    }

    /// Makes claimed rows due at once (a sender stopping before it tried them), taking back the
    /// attempt their claim counted.
    public func release(ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try withoutFlush { connection in
            _ = try connection.execute("""
                UPDATE \(sql: table.name) SET next_attempt_at = now(), attempts = greatest(attempts - 1, 0), leased_by = NULL
                WHERE id = ANY(\(PostgresArray(ids))) AND state = 'pending'
                """)
        }
    }

    /// Marks a row delivered.
    public func markSent(id: Int64) throws {
        try markSent(ids: [id])
    }

    /// Marks rows delivered, in one statement.
    public func markSent(ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try withoutFlush { connection in
            _ = try connection.execute("""
                UPDATE \(sql: table.name) SET state = 'sent', sent_at = now(), last_error = NULL, leased_by = NULL \(sql: table.onSent)
                WHERE id = ANY(\(PostgresArray(ids)))
                """)
        }
    }

    /// Records a failed attempt of a claimed row with `attempts` attempts: `error` (safe to
    /// store: no credentials, no content) becomes `last_error`. A permanent failure, or one whose
    /// retry would fall after the schedule's end, gives the row up; otherwise it is due again
    /// after the schedule's delay.
    public func markFailed(id: Int64, attempts: Int, error: String, permanent: Bool, schedule: RetrySchedule) throws -> FailureOutcome {
        let delay = schedule.delay(attempt: attempts)
        let row = try withoutFlush { connection in
            try connection.queryFirst("""
                UPDATE \(sql: table.name) m SET
                    state = CASE WHEN d.give_up THEN 'failed' ELSE 'pending' END,
                    next_attempt_at = now() + make_interval(secs => \(delay)),
                    last_error = \(String(error.prefix(1000))), leased_by = NULL \(sql: table.onFailure)
                FROM (
                    SELECT id, \(permanent)
                        OR now() + make_interval(secs => \(delay)) > created_at + make_interval(secs => \(schedule.giveUpAfter)) AS give_up
                    FROM \(sql: table.name) WHERE id = \(id)) d
                WHERE m.id = d.id
                RETURNING m.state
                """)
        }
        guard let row else { return .failed }
        return try row.decode(String.self, at: 0) == "failed" ? .failed : .retry
    }

    /// Seconds until the earliest pending row is due (0 if one is due now); nil when none is
    /// pending.
    public func secondsUntilNextDue() throws -> Double? {
        let row = try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT extract(epoch FROM min(w.next_attempt_at) - now())::float8 FROM \(sql: table.name) w
                WHERE w.state = 'pending'
                """)
        }
        return try row?.decode(Double?.self, at: 0).map { max($0, 0) }
    }

    /// Pending rows and the age in seconds of the oldest (0 when none).
    public func pendingSummary() throws -> (count: Int, oldestAge: Double) {
        let row = try pool.withConnection(retry: .once) { connection in
            try connection.queryFirst("""
                SELECT count(*)::int8, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
                FROM \(sql: table.name) WHERE state = 'pending'
                """)
        }
        guard let row else { return (0, 0) }
        return (try row.decode(Int.self, at: 0), try row.decode(Double.self, at: 1))
    }

    /// Runs the sender's writes in a transaction that commits without waiting for the WAL flush
    /// (`synchronous_commit = off`; other sessions see and respect it at once): a database crash
    /// can lose the last few of them, which only means a row is tried again, as delivery is at
    /// least once anyway; in exchange, delivery waits for no disk flush per row.
    func withoutFlush<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        try pool.withConnection(retry: .never) { connection in
            try connection.transaction { transaction in
                try transaction.unsafeExecuteScript("SET LOCAL synchronous_commit = off")
                return try body(transaction)
            }
        }
    }
}
