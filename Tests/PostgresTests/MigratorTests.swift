import Foundation
import Postgres
import Synchronization
import ServerTestSupport
import Testing

@Suite struct MigratorTests {
    static let migrations = [
        Migration(version: 1, name: "create things", sql: "CREATE TABLE things (id int PRIMARY KEY); CREATE TABLE log (v int)"),
        Migration(version: 2, name: "add label", sql: "ALTER TABLE things ADD COLUMN label text; INSERT INTO log VALUES (2)"),
    ]

    func appliedVersions(_ connection: Connection) throws -> [Int] {
        try connection.query("SELECT version FROM schema_migrations ORDER BY version").map { try $0.decode(Int.self, at: 0) }
    }

    /// Runs `migrate` on three threads at once: the versions they applied, and their errors.
    func onThreads(_ migrate: @escaping @Sendable () throws -> [Migration]) -> (applied: [Int], failures: [String]) {
        let applied = Mutex<[Int]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<3 {
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
        let (applied, failures) = onThreads {
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
        let (applied, failures) = onThreads {
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
}
