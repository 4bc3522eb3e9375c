import Foundation
import Postgres
import Synchronization
import ServerTestSupport
import Testing

/// `Pool.withConnection(retry:)`: a body whose connection fails under it runs once more on a
/// fresh connection only when the call says it is safe to (``Pool/Retry/once``).
@Suite struct PoolRetryTests {
    let database: TestDatabase
    let pool: Pool

    init() throws {
        database = try TestDatabase.create()
        pool = database.makePool(size: 2)
        try pool.withConnection { try $0.unsafeExecuteScript("CREATE TABLE marks (v int PRIMARY KEY)") }
    }

    /// Ends `connection`'s server process from another connection and waits until it is gone,
    /// as a crashed or restarted server (or a failover) does.
    func kill(_ connection: Connection) throws {
        let admin = try database.connect()
        defer { admin.close() }
        let row = try admin.queryFirst("SELECT pg_terminate_backend(\(connection.backendPID), 10000)")
        #expect(try row?.decode(Bool.self, at: 0) == true)
    }

    /// The connections (server process ids) a body ran on, in order.
    final class Runs: Sendable {
        private let pids = Mutex<[Int32]>([])
        /// Records a run on `connection`; returns its number, from 1.
        func add(_ connection: Connection) -> Int {
            pids.withLock { pids in
                pids.append(connection.backendPID)
                return pids.count
            }
        }
        var all: [Int32] { pids.withLock { $0 } }
    }

    /// A body that records its runs in `runs` and loses its connection on the runs `killed` lists, then reads.
    func countingRead(_ runs: Runs, killed: Set<Int>) -> (Connection) throws -> Int {
        { connection in
            let run = runs.add(connection)
            if killed.contains(run) { try kill(connection) }
            return try connection.queryFirst("SELECT count(*)::int8 FROM marks")!.decode(Int.self, at: 0)
        }
    }

    @Test func aReadWhoseConnectionIsLostRunsOnceMoreOnAFreshConnection() throws {
        defer { pool.close() }
        let runs = Runs()
        #expect(try pool.withConnection(retry: .once, countingRead(runs, killed: [1])) == 0)
        let pids = runs.all
        #expect(pids.count == 2)
        #expect(pids[0] != pids[1], "the second run has a fresh connection")
        #expect(pool.retriedCount == 1)
        #expect(pool.stats.inUse == 0)
    }

    @Test func aBodyMarkedNeverIsNotRunAgain() throws {
        defer { pool.close() }
        let runs = Runs()
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection(retry: .never, countingRead(runs, killed: [1]))
        }
        #expect(error.isUnavailable)
        #expect(runs.all.count == 1)
        #expect(pool.retriedCount == 0)
        // The plain form is the same: a write whose outcome is unknown goes back to the caller.
        let plain = Runs()
        #expect(throws: PostgresError.self) { try pool.withConnection(countingRead(plain, killed: [1])) }
        #expect(plain.all.count == 1)
        // The pool is whole again: the next checkout opens a fresh connection.
        #expect(try pool.withConnection(retry: .never, countingRead(Runs(), killed: [])) == 0)
    }

    @Test func onlyOnce() throws {
        defer { pool.close() }
        let runs = Runs()
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection(retry: .once, countingRead(runs, killed: [1, 2]))
        }
        #expect(error.isUnavailable)
        #expect(runs.all.count == 2)
        #expect(pool.retriedCount == 1)
    }

    /// A statement the server refused for what it is (a unique violation here) is the caller's
    /// answer, not a lost connection: never run again.
    @Test func anErrorOfTheStatementIsNotRetried() throws {
        defer { pool.close() }
        try pool.withConnection { try $0.execute("INSERT INTO marks VALUES (1)") }
        let runs = Mutex(0)
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection(retry: .once) { connection in
                runs.withLock { $0 += 1 }
                try connection.execute("INSERT INTO marks VALUES (1)")
            }
        }
        #expect(error.isUniqueViolation())
        #expect(!error.isUnavailable)
        #expect(runs.withLock { $0 } == 1)
        #expect(pool.retriedCount == 0)
    }

    /// A write refused by a read-only server (a standby, SQLSTATE 25006) drops its connection,
    /// which will never take writes, and with ``Pool/Retry/once`` runs again on a fresh one.
    @Test func aReadOnlyConnectionIsDroppedAndTheWriteRunsOnAFreshOne() throws {
        defer { pool.close() }
        let runs = Runs()
        try pool.withConnection(retry: .once) { connection in
            let run = runs.add(connection)
            // The first connection behaves as one to a standby: every transaction read-only.
            if run == 1 { try connection.unsafeExecuteScript("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY") }
            do {
                try connection.execute("INSERT INTO marks VALUES (2)")
            } catch let error as PostgresError {
                #expect(error.sqlState == SQLState.readOnlySQLTransaction && error.isUnavailable)
                #expect(connection.isBroken, "a read-only connection is dropped")
                throw error
            }
        }
        let pids = runs.all
        #expect(pids.count == 2 && pids[0] != pids[1])
        #expect(try pool.withConnection { try $0.queryFirst("SELECT count(*)::int8 FROM marks WHERE v = 2")!.decode(Int.self, at: 0) } == 1)
    }
}
