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
                INSERT INTO sessions (object_id, token_digest, user_id, created_with, expires_at, created_at, updated_at, last_used_at)
                SELECT lpad(g::text, 10, 'x'), sha256(int4send(g::int4)), 'uuuuuuuuu1', '{}',
                       CASE WHEN g <= \(expired) THEN now() - interval '1 hour' ELSE now() + interval '1 hour' END,
                       now(), now(), now()
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

    /// Log-in counts of ended windows and installations whose last session ended more than 30
    /// days ago go; the others stay.
    @Test func deletesEndedLogInCountsAndForgottenInstallations() throws {
        let now = Date()
        let day: TimeInterval = 24 * 3600
        try pool.withConnection { c in
            try c.execute("""
                INSERT INTO login_attempts (user_id, expires_at, network, attempts)
                VALUES ('uuuuuuuuu1', \(now - 1), '192.0.2.1', 3), ('uuuuuuuuu1', \(now - 1), '192.0.2.2', 1),
                       ('uuuuuuuuu1', \(now + 60), '192.0.2.1', 1)
                """)
            try c.execute("""
                INSERT INTO known_installations (user_id, installation_digest, session_ends_at)
                VALUES ('uuuuuuuuu1', sha256('gone'), \(now - 31 * day)), ('uuuuuuuuu1', sha256('kept'), \(now - 29 * day))
                """)
        }
        let report = try SessionJanitor(pool: pool, batchSize: 1).deleteExpired(now: now)
        #expect(report.limitRowsDeleted == 3)
        try pool.withConnection { c in
            let windows = try c.query("SELECT expires_at FROM login_attempts").map { try $0.decode(Date.self, at: 0) }
            #expect(windows.count == 1 && windows[0] > now)
            let kept = try c.query("SELECT installation_digest = sha256('kept') FROM known_installations").map { try $0.decode(Bool.self, at: 0) }
            #expect(kept == [true])
        }
    }

    /// With an idle timeout, sessions last used that long ago go too (in batches); the
    /// installation of one stays known from now, as when a request finds it idle.
    @Test func deletesIdleSessionsWithAnIdleTimeout() throws {
        let now = Date()
        try pool.withConnection { c in
            try c.execute("""
                INSERT INTO sessions (object_id, token_digest, user_id, installation_id, created_with, expires_at,
                                      created_at, updated_at, last_used_at)
                SELECT lpad(g::text, 10, 'x'), sha256(int4send(g::int4)), 'uuuuuuuuu1',
                       CASE WHEN g = 1 THEN 'idle-phone' END, '{}', \(now + 86_400),
                       \(now - 86_400), \(now - 86_400),
                       CASE WHEN g <= 5 THEN \(now - 3601) ELSE \(now - 3599) END
                FROM generate_series(1, 8) g
                """)
            try c.execute("""
                INSERT INTO known_installations (user_id, installation_digest, session_ends_at)
                VALUES ('uuuuuuuuu1', sha256('idle-phone'), \(now + 86_400))
                """)
        }
        #expect(try SessionJanitor(pool: pool, batchSize: 2).deleteExpired(now: now) == SessionJanitor.Report(deleted: 0, batches: 1))
        let report = try SessionJanitor(pool: pool, batchSize: 2, idleTimeout: 3600).deleteExpired(now: now)
        #expect(report == SessionJanitor.Report(deleted: 5, batches: 1 + 3))
        try pool.withConnection { c in
            #expect(try c.queryFirst("SELECT count(*) FROM sessions WHERE last_used_at > \(now - 3600)")?.decode(Int.self, at: 0) == 3)
            #expect(try c.queryFirst("SELECT count(*) FROM sessions")?.decode(Int.self, at: 0) == 3)
            let ends = try c.query("SELECT session_ends_at FROM known_installations").map { try $0.decode(Date.self, at: 0) }
            #expect(ends.count == 1 && abs(ends[0].timeIntervalSince(now)) < 0.002)
        }
    }
}
