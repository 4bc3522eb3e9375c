import Foundation
import Postgres
import ServerTestSupport
import TestSupport
import Testing
import Threading

@testable import Auth

/// The one recording point (``EventLog``) and the webhook outbox's claims (``WebhookOutboxStore``).
@Suite struct EventLogTests {
    let pool: Pool
    let store: WebhookOutboxStore
    let user = User(
        objectId: "uuuuuuuuu1", username: "ann", email: "ann@example.com", emailVerified: false, acl: ACL(),
        createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))

    init() throws {
        pool = try TestDatabase.create().makePool(size: 4)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        store = WebhookOutboxStore(pool: pool)
    }

    struct Abort: Error {}

    func rows() throws -> [(endpoint: String, type: String, userId: String)] {
        try pool.withConnection { c in
            try c.query("SELECT endpoint, type, user_id FROM webhook_outbox ORDER BY id").map {
                (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(String.self, at: 2))
            }
        }
    }

    func record(_ log: EventLog, _ events: [AuthEvent], abort: Bool = false) throws {
        try pool.withConnection { c in
            try c.transaction { tx in
                try log.record(events, in: tx)
                if abort { throw Abort() }
            }
        }
    }

    static let both = EventLog(subscribers: [
        .init(endpoint: "https://a.example.com", kinds: [.userCreated]), .init(endpoint: "https://b.example.com", kinds: nil),
    ])

    @Test func anEventOfARolledBackChangeIsNeverStored() throws {
        #expect(throws: Abort.self) { try record(Self.both, [.userCreated(user, authProvider: "password", at: Date())], abort: true) }
        #expect(try rows().isEmpty)
        try record(Self.both, [.userCreated(user, authProvider: "password", at: Date())])
        #expect(try rows().count == 2)
    }

    @Test func eachEndpointGetsOnlyTheTypesItTakesAndNoEndpointMeansNoWrite() throws {
        try record(Self.both, [.userDeleted(user, at: Date()), .userCreated(user, authProvider: "anonymous", at: Date())])
        #expect(try rows().map { "\($0.endpoint) \($0.type)" } == [
            "https://b.example.com user.deleted", "https://a.example.com user.created", "https://b.example.com user.created",
        ])
        try record(EventLog(), [.userDeleted(user, at: Date())])
        #expect(try rows().count == 3)
        #expect(!EventLog().records(.userCreated) && Self.both.records(.userDeleted))
    }

    static let a = "https://a.example.com"

    @Test func aUsersNextDeliveryWaitsForTheEarlierOneAcrossItsRetry() throws {
        let log = EventLog(subscribers: [.init(endpoint: Self.a, kinds: nil)])
        var bob = user
        bob.objectId = "uuuuuuuuu2"
        try record(log, [.userCreated(user, authProvider: "password", at: Date()), .userDeleted(user, at: Date())])
        try record(log, [.userCreated(bob, authProvider: "password", at: Date())])
        let first = try store.claim(endpoint: Self.a, limit: 10)
        #expect(first.map(\.type) == ["user.created", "user.deleted", "user.created"], "ann's two events come as her chain")
        #expect(first.map(\.userId) == ["uuuuuuuuu1", "uuuuuuuuu1", "uuuuuuuuu2"])
        // As the sender does: the first fails, the rest of ann's chain goes back untried.
        #expect(try store.markFailed(first[0], error: "HTTP 503") == .retry)
        try store.lease.release(ids: [first[1].id])
        try store.lease.markSent(id: first[2].id)
        #expect(try store.claim(endpoint: Self.a, limit: 10).isEmpty, "ann's user.deleted waits for her user.created's retry")
        let wait = try #require(try store.secondsUntilNextDue(endpoint: Self.a))
        #expect(wait > 2 && wait <= 5, "the next due is the retry, not the waiting row: \(wait)")
        try pool.withConnection { c in _ = try c.execute("UPDATE webhook_outbox SET next_attempt_at = now() WHERE state = 'pending'") }
        let retried = try store.claim(endpoint: Self.a, limit: 10)
        #expect(retried.map(\.type) == ["user.created", "user.deleted"])
        #expect(retried[0].eventId == first[0].eventId && retried.map(\.attempts) == [2, 1])
        try store.lease.markSent(ids: retried.map(\.id))
        #expect(try store.claim(endpoint: Self.a, limit: 10).isEmpty)
    }

    /// A claim takes the rows of the lowest ids among the chains, so a chain is cut after its
    /// first rows, never before; each endpoint's rows are claimed apart.
    @Test func aClaimTakesChainsOfOneEndpointByTheirLowestIds() throws {
        var bob = user
        bob.objectId = "uuuuuuuuu2"
        try record(Self.both, [.userCreated(user, authProvider: "password", at: Date())])
        try record(Self.both, [.userCreated(bob, authProvider: "password", at: Date())])
        try record(Self.both, [.userDeleted(user, at: Date())])
        let b = "https://b.example.com"
        let two = try store.claim(endpoint: b, limit: 2)
        #expect(two.map { "\($0.userId) \($0.type)" } == ["uuuuuuuuu1 user.created", "uuuuuuuuu2 user.created"])
        #expect(try store.claim(endpoint: b, limit: 10).isEmpty, "ann's user.deleted waits for her user.created, held")
        try store.lease.markSent(ids: two.map(\.id))
        #expect(try store.claim(endpoint: b, limit: 10).map(\.type) == ["user.deleted"])
        #expect(try store.claim(endpoint: Self.a, limit: 10).map(\.type) == ["user.created", "user.created"], "a takes only user.created")
    }

    /// A chain ends before its first row that is not due (waiting for its retry, or held by
    /// another sender): what follows such a row waits for it.
    @Test func aChainEndsBeforeARowThatIsNotDue() throws {
        let log = EventLog(subscribers: [.init(endpoint: Self.a, kinds: nil)])
        try record(log, [.userCreated(user, authProvider: "password", at: Date())])
        try record(log, [.userDeleted(user, at: Date())])
        try record(log, [.userCreated(user, authProvider: "anonymous", at: Date())])
        // The first was given up; the second waits for its retry; an operator retries the first.
        try pool.withConnection { c in
            _ = try c.execute("""
                UPDATE webhook_outbox SET state = CASE WHEN type = 'user.created' AND id = (SELECT min(id) FROM webhook_outbox)
                    THEN 'failed' ELSE state END,
                    next_attempt_at = CASE WHEN type = 'user.deleted' THEN now() + interval '1 hour' ELSE next_attempt_at END
                """)
        }
        let first = try #require(try WebhookDeliveries(pool: pool).list(state: .failed, limit: 1, before: nil).first)
        // A second ago: the time is stored to the millisecond, rounded, so now could be a little ahead.
        _ = try WebhookDeliveries(pool: pool).retry(id: first.id, now: Date().addingTimeInterval(-1))
        #expect(try store.claim(endpoint: Self.a, limit: 10).map(\.id) == [first.id], "the retried row, not the two after it")
    }

    @Test func deliveriesToAnEndpointNoLongerConfiguredAreGivenUp() throws {
        try record(Self.both, [.userCreated(user, authProvider: "password", at: Date())])
        #expect(try store.secondsUntilNextUnknownDue(known: [Self.a]) == 0)
        let given = try store.giveUpUnknown(known: [Self.a], error: "gone", limit: 10)
        #expect(given.map(\.endpoint) == ["https://b.example.com"])
        #expect(try store.giveUpUnknown(known: [Self.a], error: "gone", limit: 10).isEmpty)
        #expect(try store.secondsUntilNextUnknownDue(known: [Self.a]) == nil)
        #expect(try store.claim(endpoint: Self.a, limit: 10).count == 1, "the known endpoint's row stays")
        let failed = try WebhookDeliveries(pool: pool).list(state: .failed, limit: 10, before: nil)
        #expect(failed.map(\.url) == ["https://b.example.com"] && failed.first?.lastError == "gone")
    }

    /// Each commit of events calls the sender's wake-up with the endpoints it wrote rows for,
    /// directly: not through wrappers that grow with every commit before it (the call's stack
    /// depth stays the same).
    @Test func eachCommitWakesTheSenderOnceAtTheSameDepth() throws {
        let wakeup = EventLog.Wakeup()
        let calls = Lock<[(endpoints: [String], depth: Int)]>([])
        wakeup.set { endpoints in calls.withLock { $0.append((endpoints.sorted(), Thread.callStackReturnAddresses.count)) } }
        let log = EventLog(subscribers: Self.both.subscribers, wakeup: wakeup)
        for _ in 0..<20 { try record(log, [.userDeleted(user, at: Date())]) }
        try record(log, [.userCreated(user, authProvider: "password", at: Date()), .userDeleted(user, at: Date())])
        let seen = calls.withLock { $0 }
        #expect(seen.count == 21)
        #expect(seen.first.map { $0.depth < 100 } == true, "below the 128 frames the count stops at: \(seen.map(\.depth))")
        #expect(Set(seen.map(\.depth)).count == 1, "\(seen.map(\.depth))")
        #expect(seen.first?.endpoints == ["https://b.example.com"] && seen.last?.endpoints == [Self.a, "https://b.example.com"])
    }

    /// Two changes of one user in parallel that lock nothing in common: the later one's event
    /// waits for the earlier one's commit, so no claim sees it before the earlier event (which
    /// would deliver it first); then the two go out in order.
    @Test func aUsersEventsCommitInTheOrderOfTheirRows() throws {
        let log = EventLog(subscribers: [.init(endpoint: "https://a.example.com", kinds: nil)])
        let secondDone = Lock(false)
        try pool.withConnection { c in
            try c.transaction { tx in
                try log.record([.userCreated(user, authProvider: "password", at: Date())], in: tx)
                let thread = Thread { [pool, user] in
                    try? pool.withConnection { c in
                        try c.transaction { tx in try log.record([.userDeleted(user, at: Date())], in: tx) }
                    }
                    secondDone.withLock { $0 = true }
                }
                thread.start()
                // The second change has committed, or waits for a lock.
                #expect(try eventually {
                    try secondDone.withLock { $0 } || (pool.withConnection { c in
                        try c.queryFirst("SELECT count(*)::int8 FROM pg_locks WHERE NOT granted")?.decode(Int.self, at: 0) ?? 0
                    }) > 0
                })
                #expect(try store.claim(endpoint: Self.a, limit: 10).isEmpty, "the later event is not claimable before the earlier one commits")
            }
        }
        #expect(eventually { secondDone.withLock { $0 } })
        #expect(try store.claim(endpoint: Self.a, limit: 10).map(\.type) == ["user.created", "user.deleted"])
    }

    @Test func aLeaseIsRenewedOnlyByItsHolderAndEndsWhenNotRenewed() throws {
        let log = EventLog(subscribers: [.init(endpoint: "https://a.example.com", kinds: nil)])
        try record(log, [.userCreated(user, authProvider: "password", at: Date())])
        let claimed = try store.claim(endpoint: Self.a, limit: 1)
        let other = WebhookOutboxStore(pool: pool)
        func dueIn() throws -> Double {
            try pool.withConnection { c in
                try #require(try c.queryFirst("SELECT extract(epoch FROM next_attempt_at - now())::float8 FROM webhook_outbox"))
                    .decode(Double.self, at: 0)
            }
        }
        try pool.withConnection { c in _ = try c.execute("UPDATE webhook_outbox SET next_attempt_at = now() + interval '1 second'") }
        try other.lease.renew(ids: claimed.map(\.id))
        #expect(try dueIn() <= 1, "another sender does not renew this one's rows")
        try store.lease.renew(ids: claimed.map(\.id))
        #expect(try dueIn() > Double(OutboxLease.duration) - 5, "the holder renews")
        #expect(try other.claim(endpoint: Self.a, limit: 1).isEmpty, "held")
        // Not renewed (its sender died): due again once the lease has run out.
        try pool.withConnection { c in _ = try c.execute("UPDATE webhook_outbox SET next_attempt_at = now()") }
        #expect(try other.claim(endpoint: Self.a, limit: 1).map(\.attempts) == [2])
    }
    /// Statistics taken while no row was pending (the outbox drained, then analyzed), then a
    /// backlog of 30,000 rows of 2,000 users: a claim and the next due time still answer within
    /// a 3-second statement timeout. The earlier `NOT EXISTS` form was planned, on those
    /// statistics, as a check of every pending row against every other: over a minute here.
    @Test func aClaimOverABacklogTheStatisticsHaveNotSeenStaysLinear() throws {
        let database = try TestDatabase.create()
        let setup = try database.makePool(size: 1)
        try Migrator(migrations: AuthMigrations.all).migrate(setup)
        func insert(_ count: Int, state: String, users: Int) throws {
            try setup.withConnection { c in
                _ = try c.execute("""
                    INSERT INTO webhook_outbox (event_id, endpoint, user_id, type, body, created_at, state, next_attempt_at)
                    SELECT \(state) || g, \(Self.a), \(state) || (g % \(users)), 'user.created', '{}', now(), \(state), now()
                    FROM generate_series(1, \(count)) g
                    """)
            }
        }
        try insert(300, state: "sent", users: 100)
        try setup.withConnection { c in try c.unsafeExecuteScript("ANALYZE webhook_outbox") }
        try insert(30_000, state: "pending", users: 2_000)
        let store = WebhookOutboxStore(pool: try database.makePool(size: 1, statementTimeoutMilliseconds: 3_000))
        let claimed = try store.claim(endpoint: Self.a, limit: 64)
        #expect(claimed.count == 64 && Set(claimed.map(\.userId)).count == 64, "one row each of 64 users")
        #expect(try store.secondsUntilNextDue(endpoint: Self.a) == 0)
    }
}
