import Foundation
import Postgres
import Synchronization
import ServerTestSupport
import TestSupport
import Testing

@Suite struct MigratorTests {
    static let migrations = [
        Migration(version: 1, name: "create things", sql: "CREATE TABLE things (id int PRIMARY KEY); CREATE TABLE log (v int)"),
        Migration(version: 2, name: "add label", sql: "ALTER TABLE things ADD COLUMN label text; INSERT INTO log VALUES (2)"),
    ]

    func appliedVersions(_ connection: Connection) throws -> [Int] {
        try connection.query("SELECT version FROM schema_migrations ORDER BY version").map { try $0.decode(Int.self, at: 0) }
    }

    /// Runs `migrate` on `count` threads at once, and `whileRunning` on this one meanwhile: the
    /// versions they applied, and their errors.
    func onThreads(
        _ count: Int = 3, _ migrate: @escaping @Sendable () throws -> [Migration], whileRunning: () throws -> Void = {}
    ) throws -> (applied: [Int], failures: [String]) {
        let applied = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        defer { group.wait() }
        for _ in 0..<count {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let done = try migrate()
                    applied.withLock { $0 += done.map(\.version) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        try whileRunning()
        group.wait()
        return (applied.withLock { $0 }, failures.withLock { $0 })
    }

    @Test func appliesInOrderAndRerunningIsANoOp() throws {
        let connection = try TestDatabase.create().connect()
        let migrator = Migrator(migrations: Self.migrations.reversed())
        #expect(try migrator.migrate(connection).map(\.version) == [1, 2])
        #expect(try migrator.migrate(connection).isEmpty)
        #expect(try appliedVersions(connection) == [1, 2])
        #expect(try Migrator.currentVersion(connection) == 2)
        let row = try #require(try connection.queryFirst("SELECT name, applied_at FROM schema_migrations WHERE version = 2"))
        #expect(try row.decode("name", as: String.self) == "add label")
        #expect(abs(try row.decode("applied_at", as: Date.self).timeIntervalSinceNow) < 3600)
    }

    @Test func aLaterBinaryAppliesOnlyTheNewMigration() throws {
        let connection = try TestDatabase.create().connect()
        try Migrator(migrations: [Self.migrations[0]]).migrate(connection)
        #expect(try Migrator(migrations: Self.migrations).migrate(connection).map(\.version) == [2])
    }

    @Test func concurrentMigratorsApplyEachMigrationOnce() throws {
        let database = try TestDatabase.create()
        let migrator = Migrator(migrations: Self.migrations)
        let (applied, failures) = try onThreads {
            let connection = try database.connect()
            return try migrator.migrate(connection)
        }
        #expect(failures == [])
        #expect(applied.sorted() == [1, 2])
        let connection = try database.connect()
        #expect(try appliedVersions(connection) == [1, 2])
        // Migration 2's side effect happened exactly once.
        #expect(try #require(try connection.queryFirst("SELECT count(*) FROM log")).decode(Int.self, at: 0) == 1)
    }

    /// `Lock.row`, for engines without session advisory locks: concurrent migrators on a fresh
    /// database (the lock table made by whichever comes first) apply each migration once, and
    /// none of them takes the advisory lock (held by another session here, it blocks nobody).
    @Test func rowLockSerialisesMigratorsWithoutAdvisoryLocks() throws {
        let database = try TestDatabase.create()
        let blocker = try database.connect()
        defer { blocker.close() }
        try blocker.execute("SELECT pg_advisory_lock(\(Migrator.advisoryLockKey))")
        let migrator = Migrator(migrations: Self.migrations, lock: .row)
        let (applied, failures) = try onThreads {
            let pool = database.makePool(size: 1)
            defer { pool.close() }
            return try migrator.migrate(pool)
        }
        #expect(failures == [])
        #expect(applied.sorted() == [1, 2])
        let connection = try database.connect()
        defer { connection.close() }
        #expect(try appliedVersions(connection) == [1, 2])
        #expect(try #require(try connection.queryFirst("SELECT count(*) FROM log")).decode(Int.self, at: 0) == 1)
        #expect(try #require(try connection.queryFirst("SELECT count(*) FROM schema_migrations_lock")).decode(Int.self, at: 0) == 1)
        let pool = database.makePool(size: 1)
        defer { pool.close() }
        #expect(try migrator.migrate(pool).isEmpty)
    }

    @Test func newerDatabaseIsRefused() throws {
        let connection = try TestDatabase.create().connect()
        try Migrator(migrations: Self.migrations + [Migration(version: 3, name: "future", sql: "SELECT 1")]).migrate(connection)
        let error = try #require(throws: PostgresError.self) { try Migrator(migrations: Self.migrations).migrate(connection) }
        #expect(error.kind == .migration)
        #expect(error.message
            == "database schema version 3 is newer than this gatehouse binary (knows up to 2); upgrade gatehouse")
        // The advisory lock was released: another session can take it.
        let other = try TestDatabase.create().connect()
        _ = other
        let lock = try #require(try connection.queryFirst("SELECT pg_try_advisory_lock(\(Migrator.advisoryLockKey))"))
        #expect(try lock.decode(Bool.self, at: 0))
    }

    @Test func failingMigrationIsRolledBackAndNotRecorded() throws {
        let connection = try TestDatabase.create().connect()
        let broken = [Self.migrations[0], Migration(version: 2, name: "broken", sql: "CREATE TABLE half (a int); SELEC oops")]
        let error = try #require(throws: PostgresError.self) { try Migrator(migrations: broken).migrate(connection) }
        #expect(error.kind == .migration)
        #expect(error.message.contains("migration 2 (broken) failed"))
        #expect(try appliedVersions(connection) == [1])
        #expect(try #require(try connection.queryFirst("SELECT to_regclass('half') IS NULL")).decode(Bool.self, at: 0))
    }

    // MARK: Steps outside a transaction

    /// Migration 1 with `things` (labels "a" to "e") and `log`; the steps of migration 2 follow
    /// a first transaction step that logs 2.
    static let labelled = Migration(version: 1, name: "labelled things", sql: """
        CREATE TABLE things (id text PRIMARY KEY, label text, n integer NOT NULL DEFAULT 0, fail boolean NOT NULL DEFAULT false);
        CREATE TABLE log (v int);
        INSERT INTO things (id, label) SELECT c, c FROM unnest(ARRAY['a', 'b', 'c', 'd', 'e']) c;
        """)

    static func second(_ steps: Migration.Step...) -> Migration {
        Migration(version: 2, name: "second", steps: [.transaction("INSERT INTO log VALUES (2)")] + steps)
    }

    /// One thing at a time in the order of its id: adds 1 to `n`, failing (division by zero) on a
    /// thing marked `fail`.
    static let countEach = Migration.Step.batches("""
        WITH batch AS (SELECT id FROM things WHERE id > coalesce($1, '') ORDER BY id LIMIT 1),
        counted AS (
            UPDATE things t SET n = t.n + 1 / (CASE WHEN t.fail THEN 0 ELSE 1 END) FROM batch WHERE t.id = batch.id
        )
        SELECT max(id) FROM batch
        """)

    func count(_ connection: Connection, _ sql: PostgresQuery) throws -> Int {
        try #require(try connection.queryFirst(sql)).decode(Int.self, at: 0)
    }

    /// The backend building an index concurrently while it waits for a lock, if any.
    func waitingBuild(_ connection: Connection) throws -> Int32? {
        try connection.queryFirst("""
            SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'CREATE INDEX CONCURRENTLY%' AND wait_event_type = 'Lock'
            """)?.decode(Int32.self, at: 0)
    }

    /// nil when there is no index of that name.
    func indexIsValid(_ connection: Connection, _ name: String) throws -> Bool? {
        try connection.queryFirst("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(\(name))")?.decode(Bool.self, at: 0)
    }

    @Test func stepsRunInOrderAndTheMigrationIsRecordedWithTheLast() throws {
        let connection = try TestDatabase.create().connect()
        let migrator = Migrator(migrations: [Self.labelled, Self.second(Self.countEach, .concurrentIndex(name: "things_label_key", on: "things (label)", unique: true))])
        #expect(try migrator.migrate(connection).map(\.version) == [1, 2])
        #expect(try indexIsValid(connection, "things_label_key") == true)
        #expect(try count(connection, "SELECT count(*) FROM things WHERE n = 1") == 5)
        #expect(try count(connection, "SELECT count(*) FROM log") == 1)
        #expect(try count(connection, "SELECT count(*) FROM schema_migration_steps") == 0)
        #expect(try appliedVersions(connection) == [1, 2])
        let unique = try #require(try connection.queryFirst("""
            SELECT indisunique FROM pg_index WHERE indexrelid = 'things_label_key'::regclass
            """))
        #expect(try unique.decode(Bool.self, at: 0))
        #expect(try migrator.migrate(connection).isEmpty)
    }

    /// A failed concurrent build leaves an invalid index behind (which `IF NOT EXISTS` would keep):
    /// the next run drops it and builds it again, without repeating the steps before it.
    @Test func anIndexLeftInvalidByAFailedBuildIsBuiltAgain() throws {
        let connection = try TestDatabase.create().connect()
        let migrations = [Self.labelled, Self.second(.concurrentIndex(name: "things_label_key", on: "things (label)", unique: true))]
        try Migrator(migrations: [Self.labelled]).migrate(connection)
        try connection.execute("UPDATE things SET label = 'a' WHERE id = 'b'")
        let error = try #require(throws: PostgresError.self) { try Migrator(migrations: migrations).migrate(connection) }
        #expect(error.kind == .migration)
        #expect(error.message.hasPrefix("migration 2 (second) failed in step 2 of 2; the steps before it are kept"), "\(error.message)")
        #expect(try indexIsValid(connection, "things_label_key") == false)
        #expect(try appliedVersions(connection) == [1])

        try connection.execute("UPDATE things SET label = 'b' WHERE id = 'b'")
        #expect(try Migrator(migrations: migrations).migrate(connection).map(\.version) == [2])
        #expect(try indexIsValid(connection, "things_label_key") == true)
        #expect(try count(connection, "SELECT count(*) FROM log") == 1)
        #expect(try count(connection, "SELECT count(*) FROM schema_migration_steps") == 0)
    }

    /// The migrating process dies in the middle of a concurrent build (its backend is terminated
    /// while the build waits for a writer): the next run leaves a valid index.
    @Test func aBuildWhoseProcessDiedIsBuiltAgainOnTheNextRun() throws {
        let database = try TestDatabase.create()
        let migrations = [Self.labelled, Self.second(.concurrentIndex(name: "things_label_idx", on: "things (label)"))]
        let admin = try database.connect()
        defer { admin.close() }
        try Migrator(migrations: [Self.labelled]).migrate(admin)
        // An open write keeps the build waiting, its index already in the catalog (invalid).
        let writer = try database.connect()
        defer { writer.close() }
        try writer.unsafeExecuteScript("BEGIN; INSERT INTO things (id, label) VALUES ('f', 'f')")
        let (_, failures) = try onThreads(1, {
            let connection = try database.connect()
            return try Migrator(migrations: migrations).migrate(connection)
        }, whileRunning: {
            defer { try? writer.unsafeExecuteScript("COMMIT") }
            #expect(try eventually { try waitingBuild(admin) != nil })
            #expect(try indexIsValid(admin, "things_label_idx") == false)
            try admin.execute("SELECT pg_terminate_backend(\(try #require(try waitingBuild(admin))))")
        })
        #expect(failures.count == 1)
        #expect(try appliedVersions(admin) == [1])
        #expect(try Migrator(migrations: migrations).migrate(admin).map(\.version) == [2])
        #expect(try indexIsValid(admin, "things_label_idx") == true)
        #expect(try count(admin, "SELECT count(*) FROM log") == 1)
    }

    /// Migrators that start while another builds an index concurrently wait their turn holding no
    /// snapshot: the build does not wait for them (which, as they wait for it, would be a deadlock:
    /// reported by PostgreSQL with the advisory lock, endless with the row lock).
    @Test(arguments: [Migrator.Lock.advisory, .row])
    func migratorsWaitingTheirTurnLetAConcurrentBuildFinish(lock: Migrator.Lock) throws {
        let database = try TestDatabase.create()
        let admin = try database.connect()
        defer { admin.close() }
        try Migrator(migrations: [Self.labelled]).migrate(admin)
        var migrator = Migrator(migrations: [Self.labelled, Self.second(.concurrentIndex(name: "things_label_idx", on: "things (label)"))], lock: lock)
        let waiting = Mutex(0)
        migrator.lockBusy = { waiting.withLock { $0 += 1 } }
        let writer = try database.connect()
        defer { writer.close() }
        try writer.unsafeExecuteScript("BEGIN; INSERT INTO things (id, label) VALUES ('f', 'f')")
        let (applied, failures) = try onThreads(2, { [migrator] in
            let pool = database.makePool(size: 1)
            defer { pool.close() }
            return try migrator.migrate(pool)
        }, whileRunning: { () throws in
            defer { try? writer.unsafeExecuteScript("COMMIT") }
            // One migrator builds (waiting for the writer), the other waits its turn.
            #expect(try eventually { try waitingBuild(admin) != nil })
            #expect(eventually { waiting.withLock { $0 } > 0 })
        })
        #expect(failures == [])
        #expect(applied.sorted() == [2])
        #expect(try indexIsValid(admin, "things_label_idx") == true)
        #expect(try count(admin, "SELECT count(*) FROM log") == 1)
    }

    /// A backfill that fails partway keeps the batches that committed: the next run resumes after
    /// the last of them and does no thing twice.
    @Test func aBackfillResumesAfterItsLastCommittedBatch() throws {
        let connection = try TestDatabase.create().connect()
        let migrations = [Self.labelled, Self.second(Self.countEach)]
        try Migrator(migrations: [Self.labelled]).migrate(connection)
        try connection.execute("UPDATE things SET fail = true WHERE id = 'c'")
        let error = try #require(throws: PostgresError.self) { try Migrator(migrations: migrations).migrate(connection) }
        #expect(error.message.hasPrefix("migration 2 (second) failed in step 2 of 2"), "\(error.message)")
        #expect(try count(connection, "SELECT count(*) FROM things WHERE n = 1") == 2)
        let progress = try #require(try connection.queryFirst("SELECT done, resume_after FROM schema_migration_steps WHERE version = 2 AND step = 1"))
        #expect(try progress.decode(Bool.self, at: 0) == false && progress.decode(String?.self, at: 1) == "b")

        try connection.execute("UPDATE things SET fail = false")
        #expect(try Migrator(migrations: migrations).migrate(connection).map(\.version) == [2])
        #expect(try connection.query("SELECT n FROM things ORDER BY id").map { try $0.decode(Int.self, at: 0) } == [1, 1, 1, 1, 1])
        #expect(try count(connection, "SELECT count(*) FROM log") == 1)
        #expect(try count(connection, "SELECT count(*) FROM schema_migration_steps") == 0)
    }
}
