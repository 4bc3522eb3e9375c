import Auth
import Foundation
import Postgres
import Synchronization
import ServerTestSupport
import TestSupport
import Testing

@Suite struct SessionJanitorTests {
    let pool: Pool

    init() throws {
        pool = try TestDatabase.create().makePool(size: 2)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        let now = Date()
        try pool.withConnection { c in
            try c.execute(
                """
                INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at)
                VALUES ('uuuuuuuuu1', 'owner', '$argon2id$x', '{}', \(now), \(now))
                """)
        }
    }

    /// Inserts `expired` sessions that expired an hour ago and `live` ones that expire in an hour.
    func seed(expired: Int, live: Int) throws {
        try pool.withConnection { c in
            try c.execute(
                """
                INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at)
                SELECT lpad(g::text, 10, 'x'), sha256(int4send(g::int4)), 'uuuuuuuuu1', '{}',
                       CASE WHEN g <= \(expired) THEN now() - interval '1 hour' ELSE now() + interval '1 hour' END,
                       now(), now()
                FROM generate_series(1, \(expired + live)) g
                """)
        }
    }

    func remaining() throws -> (expired: Int, live: Int) {
        try pool.withConnection { c in
            let row = try #require(try c.queryFirst(
                "SELECT count(*) FILTER (WHERE expires_at < now()), count(*) FILTER (WHERE expires_at >= now()) FROM sessions"))
            return (try row.decode(Int.self, at: 0), try row.decode(Int.self, at: 1))
        }
    }

    @Test(arguments: [(25, 10, 3), (20, 10, 3), (9, 10, 1), (0, 10, 1)])
    func deletesExpiredSessionsInBoundedBatches(expired: Int, batchSize: Int, batches: Int) throws {
        try seed(expired: expired, live: 5)
        let report = try SessionJanitor(pool: pool, batchSize: batchSize).deleteExpired()
        #expect(report == SessionJanitor.Report(deleted: expired, batches: batches))
        let left = try remaining()
        #expect(left.expired == 0 && left.live == 5)
    }

    @Test func periodicRunnerCleansUpAndStops() throws {
        try seed(expired: 12, live: 3)
        let reports = Mutex<[SessionJanitor.Report]>([])
        let runner = SessionJanitorThread(
            janitor: SessionJanitor(pool: pool, batchSize: 5), intervalSeconds: 0.02,
            onRun: { report in reports.withLock { $0.append(report) } })
        runner.start()
        #expect(runner.isRunning)
        // Wait (bounded) for the first cleanup; no timing is asserted.
        #expect(eventually { reports.withLock { !$0.isEmpty } })
        runner.stop()
        // The thread has exited, so no run can follow stop().
        #expect(!runner.isRunning, "no run after stop() returned")
        #expect(reports.withLock { $0.first } == SessionJanitor.Report(deleted: 12, batches: 3))
        #expect(try remaining().expired == 0)
    }
}
