/// One versioned schema change, compiled into the binary: one or more ``Step``s, applied in order.
///
/// A migration of one ``Step/transaction(_:)`` is applied and recorded in one transaction. A
/// migration of several steps is recorded once its last step is done; ``Migrator`` keeps which
/// steps are done meanwhile, so a run stopped partway (a crash, a lost connection, a failed step)
/// resumes at the step it stopped in.
public struct Migration: Sendable, Hashable {
    /// Positive, unique, applied in ascending order.
    public let version: Int
    /// A short name, recorded in `schema_migrations`.
    public let name: String
    /// What the migration does, in order; never empty.
    public let steps: [Step]

    /// One part of a migration.
    ///
    /// Only ``transaction(_:)`` runs inside a transaction. The other two keep a big table open to
    /// writes while they work through its rows, where a transaction would hold the lock of its
    /// first `ALTER TABLE` or `CREATE INDEX` until it commits.
    public enum Step: Sendable, Hashable {
        /// Trusted SQL text (may hold several statements), run in one transaction.
        case transaction(String)
        /// `CREATE [UNIQUE] INDEX CONCURRENTLY name ON on`, outside any transaction: the table takes
        /// writes while the index builds. `name` is a plain identifier; `on` is trusted SQL text
        /// (`sessions (last_used_at)`, with a `WHERE` for a partial index). A valid index of that
        /// name is kept as it is; one left invalid by a build that failed or was interrupted is
        /// dropped (concurrently) and built again.
        case concurrentIndex(name: String, on: String, unique: Bool = false)
        /// One statement of trusted SQL text that does one batch of a backfill, run again and
        /// again, each time in its own short transaction, until it reports that nothing is left.
        /// It takes `$1` (text): the key after which its batch starts, NULL for the first batch;
        /// and returns one row of one text column: the last key its batch did, NULL when there was
        /// nothing left. The key is kept with the step's progress in the batch's transaction, so
        /// an interrupted backfill resumes after the last batch that committed. A batch may be
        /// done twice (the one in flight when a run stopped): its statement must be safe to repeat.
        case batches(String)
    }

    /// A migration of one step: `sql` run in one transaction.
    public init(version: Int, name: String, sql: String) {
        self.init(version: version, name: name, steps: [.transaction(sql)])
    }

    /// A migration of `steps`, applied in order.
    public init(version: Int, name: String, steps: [Step]) {
        precondition(!steps.isEmpty, "migration \(version) has no steps")
        self.version = version
        self.name = name
        self.steps = steps
    }
}
