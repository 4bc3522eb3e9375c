/// Applies versioned ``Migration``s to a database, each in its own transaction, recording them in
/// `schema_migrations (version, name, applied_at)`.
///
/// Several instances starting at once are serialised by a session-level `pg_advisory_lock` on
/// ``advisoryLockKey``: the first applies what is missing, the others then find nothing to do.
/// Re-running is a no-op. A database that records a version newer than any this binary knows is
/// refused, so that an old binary never runs against a newer schema.
public struct Migrator: Sendable {
    /// The advisory lock key ("gatehous" in ASCII), the same for every Gatehouse instance.
    public static let advisoryLockKey: Int64 = 0x6761_7465_686F_7573

    /// The migrations, sorted by version.
    public let migrations: [Migration]

    /// A migrator; versions must be positive and unique.
    public init(migrations: [Migration]) {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (index, migration) in sorted.enumerated() {
            precondition(migration.version > 0, "migration versions start at 1")
            precondition(index == 0 || sorted[index - 1].version != migration.version,
                         "duplicate migration version \(migration.version)")
        }
        self.migrations = sorted
    }

    /// Migrates using one connection of `pool`. Returns the migrations applied now (empty if none).
    @discardableResult
    public func migrate(_ pool: Pool) throws -> [Migration] {
        try pool.withConnection { connection in try migrate(connection) }
    }

    /// Migrates on `connection` (not inside a transaction). Returns the migrations applied now.
    @discardableResult
    public func migrate(_ connection: Connection) throws -> [Migration] {
        try connection.execute("SELECT pg_advisory_lock(\(Self.advisoryLockKey))")
        defer {
            // If the connection broke, the session (and the lock with it) is gone anyway.
            _ = try? connection.execute("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))")
        }
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
