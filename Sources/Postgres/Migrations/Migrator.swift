/// Applies versioned ``Migration``s to a database, each in its own transaction, recording them in
/// `schema_migrations (version, name, applied_at)`.
///
/// Several instances starting at once are serialised by a lock (``Lock``): the first applies
/// what is missing, the others then find nothing to do. Re-running is a no-op. A database that
/// records a version newer than any this binary knows is refused, so that an old binary never
/// runs against a newer schema.
public struct Migrator: Sendable {
    /// The advisory lock key ("gatehous" in ASCII), the same for every Gatehouse instance.
    public static let advisoryLockKey: Int64 = 0x6761_7465_686F_7573

    /// The name of the table whose one row ``Lock/row`` locks.
    public static let lockTable: StaticString = "schema_migrations_lock"

    /// How instances starting at once take turns.
    public enum Lock: Sendable {
        /// A session-level `pg_advisory_lock` on ``advisoryLockKey``, on the migrating connection.
        case advisory
        /// `SELECT … FOR UPDATE` of the one row of ``lockTable``, held by a transaction on a second
        /// connection while the migrations run: for PostgreSQL-compatible engines without session
        /// advisory locks (YugabyteDB, CockroachDB).
        case row
    }

    /// The migrations, sorted by version.
    public let migrations: [Migration]
    /// How concurrent migrators are serialised.
    public let lock: Lock

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
        try connection.execute("SELECT pg_advisory_lock(\(Self.advisoryLockKey))")
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
        return try holder.transaction { tx in
            _ = try tx.query("SELECT id FROM \(sql: Self.lockTable) WHERE id = 1 FOR UPDATE")
            return try applyMissing(connection)
        }
    }

    private static func createLockRow(_ connection: Connection) throws {
        try connection.unsafeExecuteScript("""
            CREATE TABLE IF NOT EXISTS \(lockTable) (id int PRIMARY KEY);
            INSERT INTO \(lockTable) (id) VALUES (1) ON CONFLICT (id) DO NOTHING
            """)
    }

    /// Applies the migrations not yet recorded, each in its own transaction; the caller holds the lock.
    private func applyMissing(_ connection: Connection) throws -> [Migration] {
        try connection.unsafeExecuteScript(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version bigint PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
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
            do {
                try connection.transaction { tx in
                    try tx.unsafeExecuteScript(migration.sql)
                    try tx.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))")
                }
            } catch let error as PostgresError where error.kind == .server {
                var wrapped = error
                wrapped.kind = .migration
                wrapped.message = "migration \(migration.version) (\(migration.name)) failed and was rolled back: \(error)"
                throw wrapped
            }
            done.append(migration)
        }
        return done
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
