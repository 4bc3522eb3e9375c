import Foundation
import Postgres
import Synchronization
import ServerTestSupport
import TestSupport
import Testing

/// The pool against a real server, from plain threads (callers are blocking HTTP workers).
@Suite struct PoolTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase.create()
    }

    /// Runs `body(index)` on `count` threads at once and waits for all.
    func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        group.wait()
    }

    @Test func exhaustedPoolFailsWithDatabaseUnavailableInsteadOfHanging() throws {
        let pool = database.makePool(size: 1, checkoutTimeoutSeconds: 0.2)
        defer { pool.close() }
        let inner = Mutex<PostgresError?>(nil)
        try pool.withConnection { _ in
            // The only connection is held by this thread; a second checkout must time out.
            let done = DispatchSemaphore(value: 0)
            Thread {
                do {
                    try pool.withConnection { _ in }
                } catch let error as PostgresError {
                    inner.withLock { $0 = error }
                } catch {}
                done.signal()
            }.start()
            #expect(done.wait(timeout: .now() + 30) == .success, "checkout must not hang")
        }
        let error = try #require(inner.withLock { $0 })
        #expect(error.kind == .databaseUnavailable)
        #expect(error.description.hasPrefix("database unavailable"))
        #expect(pool.stats == PoolStats(capacity: 1, inUse: 0, idle: 1, connecting: 0, waiting: 0))
    }

    @Test func manyThreadsShareASmallPool() throws {
        let pool = database.makePool(size: 3, checkoutTimeoutSeconds: 30)
        defer { pool.close() }
        try pool.withConnection { c in try c.unsafeExecuteScript("CREATE TABLE hits (n int)") }
        let failures = Mutex(0)
        let maxInUse = Mutex(0)
        onThreads(12) { index in
            for round in 0..<20 {
                do {
                    try pool.withConnection { c in
                        maxInUse.withLock { $0 = max($0, pool.stats.inUse) }
                        try c.execute("INSERT INTO hits VALUES (\(Int32(index * 100 + round)))")
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(maxInUse.withLock { $0 } <= 3)
        let total = try pool.withConnection { c in try #require(try c.queryFirst("SELECT count(*) FROM hits")).decode(Int.self, at: 0) }
        #expect(total == 240)
        let stats = pool.stats
        #expect(stats.inUse == 0 && stats.waiting == 0 && stats.idle <= 3)
    }

    @Test func terminatedBackendIsDetectedAndReplaced() throws {
        let pool = database.makePool(size: 1)
        defer { pool.close() }
        let firstPID = try pool.withConnection { $0.backendPID }
        // Kill the pooled connection's backend from another session (SQLSTATE 57P01 for it).
        let admin = try database.connect()
        _ = try admin.query("SELECT pg_terminate_backend(\(firstPID))")
        #expect(try eventually {
            try admin.queryFirst("SELECT count(*) FROM pg_stat_activity WHERE pid = \(firstPID)")?.decode(Int.self, at: 0) == 0
        })
        let secondPID = try pool.withConnection { c in
            try #require(try c.queryFirst("SELECT pg_backend_pid()")).decode(Int32.self, at: 0)
        }
        #expect(secondPID != firstPID)
    }

    @Test func connectionBrokenDuringUseIsNotReused() throws {
        let pool = database.makePool(size: 1)
        defer { pool.close() }
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection { c in
                _ = try c.query("SELECT pg_terminate_backend(pg_backend_pid())")
            }
        }
        #expect(error.isConnectionFailure)
        let ok = try pool.withConnection { c in try #require(try c.queryFirst("SELECT 1")).decode(Int.self, at: 0) }
        #expect(ok == 1)
    }

    @Test func openTransactionIsRolledBackOnCheckin() throws {
        let pool = database.makePool(size: 1)
        defer { pool.close() }
        try pool.withConnection { c in
            try c.unsafeExecuteScript("CREATE TABLE t (a int)")
            try c.unsafeExecuteScript("BEGIN; INSERT INTO t VALUES (1)")
        }
        let count = try pool.withConnection { c in
            #expect(!c.isInTransaction)
            return try #require(try c.queryFirst("SELECT count(*) FROM t")).decode(Int.self, at: 0)
        }
        #expect(count == 0)
    }

    @Test func closedPoolRefusesCheckouts() throws {
        let pool = database.makePool(size: 1)
        pool.close()
        let error = try #require(throws: PostgresError.self) { try pool.withConnection { _ in } }
        #expect(error.kind == .databaseUnavailable)
    }

    /// Every answer from the server counts once its connection is back in the pool: a statement's
    /// first run prepares it (two round trips), later runs reuse it (one), `BEGIN` and `COMMIT`
    /// are one each.
    @Test func roundTripsAreCountedAtCheckIn() throws {
        let pool = database.makePool(size: 1)
        defer { pool.close() }
        try pool.withConnection { _ in }  // opened: its settings were round trips too
        let start = pool.roundTripCount
        try pool.withConnection { c in
            _ = try c.queryFirst("SELECT 1")
            #expect(pool.roundTripCount == start, "counted at check-in")
        }
        #expect(pool.roundTripCount == start + 2)
        try pool.withConnection { c in try c.transaction { tx in _ = try tx.queryFirst("SELECT 1") } }
        #expect(pool.roundTripCount == start + 5)
    }
}
