import Foundation
import Postgres

/// Deletes expired sessions in bounded batches, so that no statement holds many row locks or runs
/// long, and several instances can clean up at once (`FOR UPDATE SKIP LOCKED`).
public struct SessionJanitor: Sendable {
    /// What one cleanup did.
    public struct Report: Sendable, Equatable {
        /// Sessions deleted.
        public var deleted: Int
        /// DELETE statements run.
        public var batches: Int

        /// A report.
        public init(deleted: Int, batches: Int) {
            self.deleted = deleted
            self.batches = batches
        }
    }

    /// The pool the janitor borrows a connection from, once per batch.
    public let pool: Pool
    /// Most sessions deleted per statement.
    public let batchSize: Int

    /// A janitor deleting at most `batchSize` sessions per statement.
    public init(pool: Pool, batchSize: Int = 1000) {
        precondition(batchSize > 0)
        self.pool = pool
        self.batchSize = batchSize
    }

    /// Deletes sessions that expired before `now`, batch after batch, until a batch comes back short.
    @discardableResult
    public func deleteExpired(now: Date = Date()) throws -> Report {
        var report = Report(deleted: 0, batches: 0)
        while true {
            let deleted = try pool.withConnection { connection in
                try connection.execute(
                    """
                    DELETE FROM sessions WHERE object_id IN (
                        SELECT object_id FROM sessions WHERE expires_at < \(now)
                        ORDER BY expires_at LIMIT \(batchSize) FOR UPDATE SKIP LOCKED)
                    """)
            }
            report.deleted += deleted
            report.batches += 1
            if deleted < batchSize { return report }
        }
    }
}
