import Auth
import Postgres
import ServerTestSupport
import Testing

/// No migration reads or writes the rows of a table while it holds a lock on that table that
/// blocks writes (SHARE or stronger: `ACCESS EXCLUSIVE` from most `ALTER TABLE`s, `SHARE` from a
/// plain `CREATE INDEX`). Such a lock lasts until the migration commits, so a rewrite, a scan to
/// validate a constraint, an index build or a backfill under it would make every request that
/// writes the table wait for as long as the table takes to read: seconds at millions of rows.
/// Catalog-only changes under the lock take the same time at any size.
///
/// How it is seen: event triggers record, before and after each DDL command of a migration, which
/// tables that existed before the migration are locked that strongly and how many scans and row
/// changes the transaction has made on each (`pg_stat_xact_user_tables`); the counters count even
/// on empty tables, so the rule is checked without data.
@Suite struct MigrationLockTests {
    static let probe = """
        CREATE SCHEMA lock_probe;
        CREATE TABLE lock_probe.watched (relid oid PRIMARY KEY);
        CREATE TABLE lock_probe.log (seq bigserial PRIMARY KEY, event text NOT NULL, relname text NOT NULL,
                                     strong boolean NOT NULL, work bigint NOT NULL);
        CREATE FUNCTION lock_probe.snapshot(event text) RETURNS void LANGUAGE sql AS $$
            INSERT INTO lock_probe.log (event, relname, strong, work)
            SELECT event, s.relname,
                   EXISTS (SELECT 1 FROM pg_locks l
                           WHERE l.relation = s.relid AND l.pid = pg_backend_pid() AND l.granted
                             AND l.mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')),
                   s.seq_scan + coalesce(s.idx_scan, 0) + s.n_tup_ins + s.n_tup_upd + s.n_tup_del
            FROM pg_stat_xact_user_tables s JOIN lock_probe.watched w ON w.relid = s.relid
        $$;
        CREATE FUNCTION lock_probe.on_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM lock_probe.snapshot(TG_EVENT);
        END
        $$;
        CREATE EVENT TRIGGER lock_probe_start ON ddl_command_start EXECUTE FUNCTION lock_probe.on_ddl();
        CREATE EVENT TRIGGER lock_probe_end ON ddl_command_end EXECUTE FUNCTION lock_probe.on_ddl();
        """

    /// Every step of every migration, as the runner applies it: each transaction (a transaction
    /// step, each batch of a backfill) between a snapshot at its start and one before its commit.
    /// A concurrent index build takes no lock that blocks writes (SHARE UPDATE EXCLUSIVE) and runs
    /// outside any transaction: it is applied, not probed.
    @Test func noMigrationTouchesTheRowsOfATableItLocksAgainstWrites() throws {
        let database = try TestDatabase.create()
        let connection = try database.connect()
        defer { connection.close() }
        try connection.unsafeExecuteScript(Self.probe)
        var violations: [String] = []
        for migration in AuthMigrations.all {
            for step in migration.steps {
                switch step {
                case .transaction(let sql):
                    violations += try Self.probed(migration, connection) { tx in try tx.unsafeExecuteScript(sql) }
                case .batches(let sql):
                    var after: String? = nil
                    repeat {
                        let from = after
                        let (found, reached) = try Self.probedBatch(migration, connection) { tx in
                            try Migrator.runBatch(sql, after: from, tx)
                        }
                        violations += found
                        after = reached
                    } while after != nil
                case .concurrentIndex(let name, let definition, let unique):
                    try Migrator.buildIndex(name: name, on: definition, unique: unique, connection)
                }
            }
        }
        #expect(violations == [], "\(violations.joined(separator: "\n"))")
    }

    /// Runs `body` in a transaction on `connection` with the probe's snapshots around it; what it
    /// did to the rows of a table it locked against writes.
    static func probed(
        _ migration: Migration, _ connection: Connection, _ body: (Transaction) throws -> Void
    ) throws -> [String] {
        try probedBatch(migration, connection) { tx in
            try body(tx)
            return nil
        }.violations
    }

    /// ``probed(_:_:_:)`` for a body that returns a backfill's key.
    static func probedBatch(
        _ migration: Migration, _ connection: Connection, _ body: (Transaction) throws -> String?
    ) throws -> (violations: [String], reached: String?) {
        let (log, reached) = try connection.transaction { tx in
            try tx.unsafeExecuteScript("""
                TRUNCATE lock_probe.watched, lock_probe.log;
                INSERT INTO lock_probe.watched SELECT relid FROM pg_stat_user_tables WHERE schemaname = 'public';
                SELECT lock_probe.snapshot('begin');
                """)
            let reached = try body(tx)
            try tx.execute("SELECT lock_probe.snapshot('commit')")
            let log = try tx.query("SELECT relname::text, strong, work FROM lock_probe.log ORDER BY seq").map {
                (table: try $0.decode(String.self, at: 0), strong: try $0.decode(Bool.self, at: 1), work: try $0.decode(Int.self, at: 2))
            }
            return (log, reached)
        }
        var violations: [String] = []
        for table in Set(log.map(\.table)).sorted() {
            let snapshots = log.filter { $0.table == table }
            // The last snapshot before the lock was first seen: when the command that took it began.
            guard let locked = snapshots.firstIndex(where: \.strong), locked > 0 else { continue }
            if snapshots.last!.work > snapshots[locked - 1].work {
                violations.append("migration \(migration.version) (\(migration.name)) touches the rows of \(table) under a lock that blocks its writes")
            }
        }
        return (violations, reached)
    }
}
