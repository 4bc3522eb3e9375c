import Auth
import Foundation
import Postgres
import ServerTestSupport
import Synchronization
import TestSupport
import Testing

@Suite struct OutboxStoreTests {
    let pool: Pool
    let store: OutboxStore

    init() throws {
        pool = try TestDatabase.create().makePool(size: 4)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        store = OutboxStore(pool: pool)
    }

    /// Inserts `count` pending reset messages created `age` seconds ago; returns their ids. Their
    /// sealed links are opaque bytes: the store never opens them.
    @discardableResult
    func insert(_ count: Int = 1, age: Double = 0, state: String = "pending") throws -> [Int64] {
        try pool.withConnection { c in
            try c.query("""
                INSERT INTO mail_outbox (
                    kind, user_id, recipient, username, language, sealed_link, token_digest, link_expires_at, message_id, created_at,
                    state, next_attempt_at)
                SELECT 'reset_password', 'uuuuuuuuu1', 'ann@example.com', 'ann', 'en', sha256(int8send(g)), sha256(int8send(-g)),
                       now() + interval '1 hour', '<m' || g || '-' || gen_random_uuid() || '@localhost>',
                       now() - make_interval(secs => \(age)), \(state), now()
                FROM generate_series(1, \(count)) g
                RETURNING id
                """).map { try $0.decode(Int64.self, at: 0) }
        }
    }

    /// `sealed`: whether the row still keeps its sealed link.
    func row(_ id: Int64) throws -> (state: String, sealed: Bool, attempts: Int, lastError: String?, dueIn: Double, sent: Bool) {
        try pool.withConnection { c in
            let row = try #require(try c.queryFirst("""
                SELECT state, sealed_link IS NOT NULL, attempts, last_error, extract(epoch FROM next_attempt_at - now())::float8,
                       sent_at IS NOT NULL
                FROM mail_outbox WHERE id = \(id)
                """))
            return (
                try row.decode(String.self, at: 0), try row.decode(Bool.self, at: 1), Int(try row.decode(Int32.self, at: 2)),
                try row.decode(String?.self, at: 3), try row.decode(Double.self, at: 4), try row.decode(Bool.self, at: 5))
        }
    }

    @Test(arguments: [
        (5, [5, 10, 20, 40, 80, 160, 320, 600, 600, 600]),
        (1, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600]),
        (600, [600, 600]),
    ])
    func retryDelayDoublesUpToTenMinutes(base: Int, delays: [Int]) {
        #expect(delays.indices.map { OutboxStore.retryDelay(attempt: $0 + 1, base: base) } == delays)
        #expect(OutboxStore.retryDelay(attempt: 10_000, base: base) == 600)
    }

    /// Within 24 hours of creation a temporary failure is retried; the total of the schedule's
    /// delays with the default base reaches 24 hours after 149 attempts.
    @Test func scheduleSpansADay() {
        var elapsed = 0, attempt = 0
        while elapsed + OutboxStore.retryDelay(attempt: attempt + 1, base: 5) <= OutboxStore.giveUpAfter {
            attempt += 1
            elapsed += OutboxStore.retryDelay(attempt: attempt, base: 5)
        }
        #expect(attempt == 149)
    }

    @Test func claimLeasesDueMessagesOldestFirst() throws {
        let ids = try insert(3)
        let first = try store.claim(limit: 2, lease: 600)
        #expect(first.map(\.id) == Array(ids.prefix(2)))
        #expect(first.allSatisfy { $0.attempts == 1 && $0.state == "pending" && $0.sealedLink != nil && $0.kind == "reset_password" })
        #expect(try store.claim(limit: 2, lease: 600).map(\.id) == [ids[2]])
        #expect(try store.claim(limit: 2, lease: 600).isEmpty, "leased messages are not due")
        #expect(try row(ids[0]).dueIn > 590)
    }

    /// A message whose lease ran out (its sender died) is claimed again, counting a second attempt.
    @Test func expiredLeaseMakesAMessageDueAgain() throws {
        let ids = try insert(1)
        #expect(try store.claim(limit: 5, lease: 0).map(\.attempts) == [1])
        let again = try store.claim(limit: 5, lease: 600)
        #expect(again.map(\.id) == ids && again.map(\.attempts) == [2])
    }

    @Test func notDueAndFinishedMessagesAreNotClaimed() throws {
        try insert(1, state: "sent")
        try insert(1, state: "failed")
        let later = try insert(1)
        try pool.withConnection { c in
            _ = try c.execute("UPDATE mail_outbox SET next_attempt_at = now() + interval '1 minute' WHERE id = \(later[0])")
        }
        #expect(try store.claim(limit: 10, lease: 600).isEmpty)
        let due = try #require(try store.secondsUntilNextDue())
        #expect(due > 50 && due <= 60)
    }

    /// Four claimers at once over 300 messages: each message is claimed by exactly one.
    @Test func concurrentClaimsNeverShareAMessage() throws {
        let ids = try insert(300)
        let claimed = Mutex<[Int64]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            while let batch = try? store.claim(limit: 7, lease: 600), !batch.isEmpty {
                claimed.withLock { $0 += batch.map(\.id) }
            }
        }
        #expect(claimed.withLock { $0 }.sorted() == ids)
    }

    @Test func markSentForgetsTheLink() throws {
        let ids = try insert(1)
        _ = try store.claim(limit: 1, lease: 600)
        try store.markSent(id: ids[0])
        let sent = try row(ids[0])
        #expect(sent.state == "sent" && !sent.sealed && sent.sent && sent.attempts == 1)
        #expect(try store.secondsUntilNextDue() == nil)
    }

    @Test func temporaryFailureIsRetriedAfterTheBackoff() throws {
        let ids = try insert(1)
        let claimed = try #require(try store.claim(limit: 1, lease: 600).first)
        let outcome = try store.markFailed(
            id: claimed.id, attempts: claimed.attempts, error: "connection refused", permanent: false, retryBase: 7)
        #expect(outcome == .retry)
        let failed = try row(ids[0])
        #expect(failed.state == "pending" && failed.sealed && failed.lastError == "connection refused")
        #expect(failed.dueIn > 6 && failed.dueIn <= 7)
    }

    @Test func permanentFailureGivesUpAtOnce() throws {
        let ids = try insert(1)
        let claimed = try #require(try store.claim(limit: 1, lease: 600).first)
        #expect(try store.markFailed(id: claimed.id, attempts: 1, error: "550 no such user", permanent: true, retryBase: 5) == .failed)
        let failed = try row(ids[0])
        #expect(failed.state == "failed" && !failed.sealed && failed.lastError == "550 no such user" && !failed.sent)
    }

    /// A retry that would fall more than 24 hours after creation is not scheduled: the message is given up.
    @Test(arguments: [(86_400 - 100.0, 80, OutboxStore.FailureOutcome.retry), (86_400 - 100.0, 160, .failed), (90_000, 5, .failed)])
    func givesUpAfterADay(age: Double, retryBase: Int, expected: OutboxStore.FailureOutcome) throws {
        let ids = try insert(1, age: age)
        let claimed = try #require(try store.claim(limit: 1, lease: 600).first)
        #expect(try store.markFailed(id: claimed.id, attempts: 1, error: "timeout", permanent: false, retryBase: retryBase) == expected)
        #expect(try row(ids[0]).state == (expected == .retry ? "pending" : "failed"))
    }

    @Test func releaseMakesUntriedMessagesDueAgain() throws {
        let ids = try insert(2)
        _ = try store.claim(limit: 2, lease: 600)
        try store.release(ids: [ids[1]])
        let released = try row(ids[1])
        #expect(released.attempts == 0 && released.dueIn <= 0)
        #expect(try store.claim(limit: 2, lease: 600).map(\.id) == [ids[1]])
    }

    @Test func pendingSummaryAndNewest() throws {
        let empty = try store.pendingSummary()
        #expect(empty.count == 0 && empty.oldestAge == 0)
        try insert(1, age: 120, state: "sent")
        let ids = try insert(2, age: 60) + insert(1, age: 5)
        let summary = try store.pendingSummary()
        #expect(summary.count == 3 && summary.oldestAge >= 60 && summary.oldestAge < 70)
        #expect(try store.newest(limit: 3).map(\.message.id) == ids.reversed())
    }

    /// What the dev mailbox is told of each link: whether it still works, judged by the token
    /// the link carries (`account_tokens`) and the account, not by the message's state alone.
    @Test func newestTellsWhetherEachLinkStillWorks() throws {
        try pool.withConnection { c in
            _ = try c.execute("""
                INSERT INTO users (object_id, username, email, email_verified, password_hash, acl, created_at, updated_at)
                VALUES ('uuuuuuuuu1', 'ann', 'ann@example.com', false, '$argon2id$x', '{}', now(), now()),
                       ('uuuuuuuuu2', 'bob', 'bob@example.com', true, '$argon2id$x', '{}', now(), now()),
                       ('uuuuuuuuu3', 'cat', 'cat@new.example', false, '$argon2id$x', '{}', now(), now())
                """)
        }
        /// A message of `kind` for `user` whose token (`token`: a number standing for its digest)
        /// is in account_tokens or not (`stored`), for the address `tokenEmail`.
        func message(
            _ kind: String, _ user: String, token: Int32?, stored: Bool = true, tokenEmail: String? = nil,
            expiresIn: Double = 3600, state: String = "pending"
        ) throws -> Int64 {
            try pool.withConnection { c in
                if let token, stored {
                    _ = try c.execute("""
                        INSERT INTO account_tokens (token_digest, user_id, kind, email, expires_at, created_at)
                        SELECT sha256(int4send(\(token))), \(user), \(kind), coalesce(\(tokenEmail), email),
                               now() + make_interval(secs => \(expiresIn)), now()
                        FROM users WHERE object_id = \(user)
                        """)
                }
                let digest: [UInt8]? = token == nil ? nil : try c.queryFirst("SELECT sha256(int4send(\(token ?? 0)))")?.decode([UInt8].self, at: 0)
                return try #require(try c.queryFirst("""
                    INSERT INTO mail_outbox (
                        kind, user_id, recipient, username, language, sealed_link, token_digest, link_expires_at, message_id,
                        created_at, state, next_attempt_at)
                    VALUES (\(kind), \(user), 'x@example.com', 'x', 'en',
                            CASE WHEN \(state) = 'pending' AND \(digest) IS NOT NULL THEN '\\x00'::bytea END, \(digest),
                            CASE WHEN \(digest) IS NOT NULL THEN now() + make_interval(secs => \(expiresIn)) END,
                            '<' || gen_random_uuid() || '@localhost>', now(), \(state), now())
                    RETURNING id
                    """)?.decode(Int64.self, at: 0))
            }
        }
        let expected: [(Int64, OutboxStore.LinkState?)] = [
            (try message("reset_password", "uuuuuuuuu1", token: 1, stored: false), .void),  // replaced by the next one
            (try message("reset_password", "uuuuuuuuu1", token: 2), .open),
            (try message("reset_password", "uuuuuuuuu2", token: 3, stored: false), .used),
            (try message("reset_password", "uuuuuuuuu3", token: 4, expiresIn: -1), .expired),
            (try message("verify_email", "uuuuuuuuu1", token: 5), .open),
            (try message("verify_email", "uuuuuuuuu1", token: 6, state: "sent"), .notKept),
            (try message("verify_email", "uuuuuuuuu2", token: 7), .used),  // bob's address is verified
            (try message("verify_email", "uuuuuuuuu3", token: 8, tokenEmail: "cat@old.example"), .void),  // the address changed
            (try message("verify_email", "uuuuuuuuu3", token: 9, stored: false), .void),
            (try message("password_changed", "uuuuuuuuu1", token: nil, state: "sent"), nil),
        ]
        let listed = try store.newest(limit: 100)
        #expect(listed.map(\.message.id) == expected.map(\.0).reversed())
        for (id, state) in expected {
            #expect(listed.first { $0.message.id == id }?.linkState == state, "message \(id)")
        }
    }

    @Test func janitorDeletesOldFinishedMailAndExpiredTokens() throws {
        let week = SessionJanitor.mailRetention
        let oldSent = try insert(2, age: week + 60, state: "sent")
        let oldFailed = try insert(1, age: week + 60, state: "failed")
        let kept = try insert(1, age: week + 60) + insert(1, age: week - 3600, state: "sent") + insert(1, state: "failed")
        try pool.withConnection { c in
            _ = try c.execute("""
                INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at)
                VALUES ('uuuuuuuuu1', 'ann', '$argon2id$x', '{}', now(), now())
                """)
            _ = try c.execute("""
                INSERT INTO account_tokens (token_digest, user_id, kind, email, expires_at, created_at)
                SELECT sha256(int4send(g)), 'uuuuuuuuu1', 'verify_email', 'ann@example.com',
                       CASE WHEN g <= 3 THEN now() - interval '1 day 1 second'
                            WHEN g = 4 THEN now() - interval '1 second' ELSE now() + interval '1 hour' END, now()
                FROM generate_series(1, 5) g
                """)
            _ = try c.execute("""
                INSERT INTO mail_requests (address_digest, kind, created_at)
                SELECT sha256(int4send(g)), 'reset_password', now() - (g * interval '25 minutes') FROM generate_series(1, 5) g
                """)
        }
        let report = try SessionJanitor(pool: pool, batchSize: 2).deleteExpired()
        // Tokens expired over a day ago (3), requests over an hour old (75, 100 and 125 minutes), old finished mail.
        #expect(report.accountRowsDeleted == oldSent.count + oldFailed.count + 3 + 3)
        try pool.withConnection { c in
            let left = try c.query("SELECT id FROM mail_outbox ORDER BY id").map { try $0.decode(Int64.self, at: 0) }
            #expect(left == kept)
            #expect(try c.queryFirst("SELECT count(*)::int8 FROM account_tokens")?.decode(Int.self, at: 0) == 2, "one just expired, one live")
            #expect(try c.queryFirst("SELECT count(*)::int8 FROM mail_requests")?.decode(Int.self, at: 0) == 2)
        }
    }
}
