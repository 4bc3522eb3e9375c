import Foundation

/// Applies versioned ``Migration``s to a database, recording them in
/// `schema_migrations (version, name, applied_at)`. A migration of one transaction step is applied
/// and recorded in that transaction; the steps of a longer one are kept in
/// `schema_migration_steps` as they finish (a backfill's with the key its last batch reached), so
/// a run that stops partway resumes where it stopped, and the migration is recorded with its last
/// step.
///
/// Several instances starting at once are serialised by a lock (``Lock``): the first applies
/// what is missing, the others then find nothing to do. Re-running is a no-op. A database that
/// records a version newer than any this binary knows is refused, so that an old binary never
/// runs against a newer schema.
///
/// A migrator waiting for its turn holds no snapshot: it tries the lock without waiting and, when
/// another migrator has it, pauses between statements before trying again. `CREATE INDEX
/// CONCURRENTLY` waits for every transaction whose snapshot is older than its build, and a
/// migrator blocked inside a lock-taking statement holds one while it waits for the migrator
/// building the index: with the advisory lock PostgreSQL reports a deadlock and cancels one of
/// them; with the row lock, held by a second connection, neither would ever end.
public struct Migrator: Sendable {
    /// The advisory lock key ("gatehous" in ASCII), the same for every Gatehouse instance.
    public static let advisoryLockKey: Int64 = 0x6761_7465_686F_7573

    /// The name of the table whose one row ``Lock/row`` locks.
    public static let lockTable: StaticString = "schema_migrations_lock"

    /// How instances starting at once take turns.
    public enum Lock: Sendable {
        /// A session-level advisory lock on ``advisoryLockKey`` (`pg_try_advisory_lock`), on the
        /// migrating connection.
        case advisory
        /// `SELECT … FOR UPDATE NOWAIT` of the one row of ``lockTable``, held by a transaction
        /// on a second connection while the migrations run: for PostgreSQL-compatible engines
        /// without session advisory locks (YugabyteDB, CockroachDB).
        case row
    }

    /// Seconds a migrator waits before trying again a lock another migrator holds.
    static let turnPause = 0.2

    /// The migrations, sorted by version.
    public let migrations: [Migration]
    /// How concurrent migrators are serialised.
    public let lock: Lock
    /// Called each time the lock is found held by another migrator, before the pause (tests wait
    /// for it to know a migrator is waiting its turn).
    package var lockBusy: @Sendable () -> Void = {}

    /// A migrator; versions must be positive and unique.
    public init(migrations: [Migration], lock: Lock = .advisory) {
        self.lock = lock
        let sorted = migrations.sorted { $0.version < $1.version }
        for (index, migration) in sorted.enumerated() {
            precondition(migration.version > 0, "migration versions start at 1")
            precondition(index == 0 || sorted[index - 1].version != migration.version,
                         "duplicate migration version \(migration.version)")
        }
        self.migrations = sorted
    }

    /// Migrates using one connection of `pool` (and, for ``Lock/row``, one more opened beside it
    /// to hold the lock). Returns the migrations applied now (empty if none).
    @discardableResult
    public func migrate(_ pool: Pool) throws -> [Migration] {
        switch lock {
        case .advisory:
            return try pool.withConnection { connection in try migrate(connection) }
        case .row:
            let holder = try Connection(configuration: pool.configuration.connection)
            defer { holder.close() }
            return try pool.withConnection { connection in try migrate(connection, rowLockOn: holder) }
        }
    }

    /// Migrates on `connection` (not inside a transaction) under the advisory lock. Returns the
    /// migrations applied now.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> [Migration] {
        while try connection.queryFirst("SELECT pg_try_advisory_lock(\(Self.advisoryLockKey))")?.decode(Bool.self, at: 0) != true {
            waitForTurn()
        }
        defer {
            // If the connection broke, the session (and the lock with it) is gone anyway.
            _ = try? connection.execute("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))")
        }
        return try applyMissing(connection)
    }

    /// Migrates on `connection` while a transaction on `holder` (another connection to the same
    /// database) holds the row of ``lockTable``. Returns the migrations applied now.
    @discardableResult
    public func migrate(_ connection: Connection, rowLockOn holder: Connection) throws -> [Migration] {
        do {
            try Self.createLockRow(holder)
        } catch let error as PostgresError where [SQLState.uniqueViolation, "42P07", "42710"].contains(error.sqlState) {
            // Another migrator created the table at the same moment (CREATE TABLE IF NOT EXISTS
            // is not safe against that: unique_violation, duplicate_table or duplicate_object for
            // its row type); it exists now.
            try Self.createLockRow(holder)
        }
        while true {
            do {
                return try holder.transaction { tx in
                    do {
                        // As a simple query: a prepared statement's portal would stay open until
                        // the transaction ends, and with it a snapshot that this migrator's own
                        // concurrent index builds would wait for.
                        try tx.unsafeExecuteScript("SELECT id FROM \(Self.lockTable) WHERE id = 1 FOR UPDATE NOWAIT")
                    } catch let error as PostgresError where error.sqlState == SQLState.lockNotAvailable {
                        throw LockBusy()
                    }
                    return try applyMissing(connection)
                }
            } catch is LockBusy {
                waitForTurn()
            }
        }
    }

    /// The row of ``lockTable`` is locked by another migrator.
    private struct LockBusy: Error {}

    /// Between two tries of a lock another migrator holds: outside any statement, so this
    /// migrator holds no snapshot that a concurrent index build would wait for.
    private func waitForTurn() {
        lockBusy()
        Thread.sleep(forTimeInterval: Self.turnPause)
    }

    private static func createLockRow(_ connection: Connection) throws {
        try connection.unsafeExecuteScript("""
            CREATE TABLE IF NOT EXISTS \(lockTable) (id int PRIMARY KEY);
            INSERT INTO \(lockTable) (id) VALUES (1) ON CONFLICT (id) DO NOTHING
            """)
    }

    /// Applies the migrations not yet recorded; the caller holds the lock.
    private func applyMissing(_ connection: Connection) throws -> [Migration] {
        try connection.unsafeExecuteScript(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version bigint PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE TABLE IF NOT EXISTS schema_migration_steps (
                version bigint NOT NULL,
                step integer NOT NULL,
                done boolean NOT NULL,
                -- A backfill's progress: the last key its committed batches reached.
                resume_after text,
                PRIMARY KEY (version, step)
            )
            """)
        var applied = Set<Int>()
        for row in try connection.query("SELECT version FROM schema_migrations") {
            applied.insert(try row.decode(Int.self, at: 0))
        }
        let known = migrations.last?.version ?? 0
        if let newest = applied.max(), newest > known {
            throw PostgresError(
                .migration,
                message: "database schema version \(newest) is newer than this gatehouse binary (knows up to \(known)); "
                    + "upgrade gatehouse")
        }
        var done: [Migration] = []
        for migration in migrations where !applied.contains(migration.version) {
            try apply(migration, on: connection)
            done.append(migration)
        }
        return done
    }

    /// Applies the steps of `migration` that an earlier run did not finish, and records it.
    private func apply(_ migration: Migration, on connection: Connection) throws {
        var finished = Set<Int>()
        var resumeAfter: [Int: String] = [:]
        for row in try connection.query("""
            SELECT step, done, resume_after FROM schema_migration_steps WHERE version = \(migration.version)
            """) {
            let step = try row.decode(Int.self, at: 0)
            if try row.decode(Bool.self, at: 1) { finished.insert(step) }
            resumeAfter[step] = try row.decode(String?.self, at: 2)
        }
        for (index, step) in migration.steps.enumerated() where !finished.contains(index) {
            do {
                try run(step, index, of: migration, resumingAfter: resumeAfter[index], on: connection)
            } catch let error as PostgresError where error.kind == .server {
                var wrapped = error
                wrapped.kind = .migration
                wrapped.message = migration.steps.count == 1
                    ? "migration \(migration.version) (\(migration.name)) failed and was rolled back: \(error)"
                    : "migration \(migration.version) (\(migration.name)) failed in step \(index + 1) of \(migration.steps.count); "
                        + "the steps before it are kept, and the next run starts again with this one: \(error)"
                throw wrapped
            }
        }
    }

    /// Runs step `index` of `migration` and records it done (with the migration itself when it
    /// is the last step).
    private func run(
        _ step: Migration.Step, _ index: Int, of migration: Migration, resumingAfter start: String?, on connection: Connection
    ) throws {
        switch step {
        case .transaction(let sql):
            try connection.transaction { tx in
                try tx.unsafeExecuteScript(sql)
                try Self.finish(index, of: migration, tx)
            }
        case .concurrentIndex(let name, let definition, let unique):
            try Self.buildIndex(name: name, on: definition, unique: unique, connection)
            try connection.transaction { tx in try Self.finish(index, of: migration, tx) }
        case .batches(let sql):
            var after = start
            repeat {
                let from = after
                after = try connection.transaction { tx in
                    let reached = try Self.runBatch(sql, after: from, tx)
                    if let reached {
                        guard reached != from else {
                            throw PostgresError(.migration, message: "a batch of migration \(migration.version) made no progress")
                        }
                        try tx.execute("""
                            INSERT INTO schema_migration_steps (version, step, done, resume_after)
                            VALUES (\(migration.version), \(index), false, \(reached))
                            ON CONFLICT (version, step) DO UPDATE SET resume_after = excluded.resume_after
                            """)
                    } else {
                        try Self.finish(index, of: migration, tx)
                    }
                    return reached
                }
            } while after != nil
        }
    }

    /// Records step `index` of `migration` done, in `tx`; the last step records the migration
    /// and clears its steps' progress.
    private static func finish(_ index: Int, of migration: Migration, _ tx: Transaction) throws(PostgresError) {
        if index == migration.steps.count - 1 {
            try tx.execute("INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))")
            try tx.execute("DELETE FROM schema_migration_steps WHERE version = \(migration.version)")
        } else {
            try tx.execute("""
                INSERT INTO schema_migration_steps (version, step, done) VALUES (\(migration.version), \(index), true)
                ON CONFLICT (version, step) DO UPDATE SET done = true, resume_after = NULL
                """)
        }
    }

    /// Builds the index of a ``Migration/Step/concurrentIndex(name:on:unique:)`` step on
    /// `connection` (outside a transaction), unless a valid one of that name exists; an invalid
    /// one is dropped first. Without a statement timeout: the table takes writes meanwhile, and a
    /// build cut short would leave an invalid index to build again at every start.
    package static func buildIndex(name: String, on definition: String, unique: Bool, _ connection: Connection) throws(PostgresError) {
        let existing = try connection.queryFirst("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(\(name))")
        if let existing, try existing.decode(Bool.self, at: 0) { return }
        let timeout = try connection.queryFirst("SELECT current_setting('statement_timeout')")?.decode(String.self, at: 0) ?? "0"
        try connection.execute("SELECT set_config('statement_timeout', '0', false)")
        defer { _ = try? connection.execute("SELECT set_config('statement_timeout', \(timeout), false)") }
        if existing != nil { try connection.unsafeExecuteScript("DROP INDEX CONCURRENTLY \(name)") }
        try connection.unsafeExecuteScript("CREATE \(unique ? "UNIQUE " : "")INDEX CONCURRENTLY \(name) ON \(definition)")
    }

    /// Runs one batch of a ``Migration/Step/batches(_:)`` step in `tx`, starting after `key` (nil:
    /// at the start); the last key it reached, nil when nothing was left.
    package static func runBatch(_ sql: String, after key: String?, _ tx: Transaction) throws(PostgresError) -> String? {
        var bindings = PostgresBindings()
        bindings.append(key)
        return try tx.queryFirst(PostgresQuery(unsafeSQL: sql, bindings: bindings))?.decode(String?.self, at: 0) ?? nil
    }

    /// The highest applied version (0 when none), without migrating.
    public static func currentVersion(_ connection: Connection) throws(PostgresError) -> Int {
        guard let row = try connection.queryFirst("SELECT to_regclass('schema_migrations') IS NOT NULL"),
            try row.decode(Bool.self, at: 0)
        else { return 0 }
        return try connection.queryFirst("SELECT coalesce(max(version), 0) FROM schema_migrations")?
            .decode(Int.self, at: 0) ?? 0
    }
}
