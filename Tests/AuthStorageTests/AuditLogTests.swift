import Foundation
import Postgres
import ServerTestSupport
import Sodium
import Synchronization
import TestSupport
import Testing

@testable import Auth

/// The audit log's hash chains (``AuditLog``), appended through the one recording point
/// (``EventLog``): verification of an intact log, of each kind of tampering, under concurrent
/// writers of two instances, and after pruning.
@Suite struct AuditLogTests {
    let database: TestDatabase
    let pool: Pool
    let log: AuditLog
    static let events = EventLog(auditing: true)

    init() throws {
        database = try TestDatabase.create()
        pool = database.makePool(size: 4)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        log = AuditLog(pool: pool)
    }

    static func user(_ id: String) -> User {
        User(
            objectId: id, username: "u" + id, email: nil, emailVerified: false, acl: ACL(),
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    func record(_ events: [AuthEvent], in pool: Pool? = nil, origin: AuditOrigin = AuditOrigin(actor: .system)) throws {
        try AuditOrigin.bind(origin) {
            try (pool ?? self.pool).withConnection { c in try c.transaction { tx in try Self.events.record(events, in: tx) } }
        }
    }

    func execute(_ sql: String) throws {
        try pool.withConnection { c in _ = try c.execute(PostgresQuery(unsafeSQL: sql)) }
    }

    /// (id, seq) of the chain of `userId`, in order.
    func chain(of userId: String) throws -> [(id: String, seq: Int64)] {
        try pool.withConnection { c in
            try c.query("SELECT id, seq FROM audit_log WHERE shard = \(AuditLog.chain(of: userId)) AND user_id = \(userId) ORDER BY seq").map {
                (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1))
            }
        }
    }

    /// Ten entries of `ann`'s (one chain) and two of `bob`'s (another chain).
    func writeSome() throws {
        #expect(AuditLog.chain(of: "ann") != AuditLog.chain(of: "bob"))
        for n in 0..<10 {
            try record([.userUpdated(userId: "ann", changed: ["n\(n)"], at: Date())], origin: AuditOrigin(actor: .user, ip: "192.0.2.\(n)"))
        }
        try record([.userCreated(Self.user("bob"), authProvider: "password", at: Date()), .logInFailed(.password, userId: "bob", authProvider: "password", at: Date())])
    }

    @Test func anIntactLogVerifiesAndEntriesCarryTheirOrigin() throws {
        try writeSome()
        let result = try log.verify(batchSize: 3)
        #expect(result == AuditLog.Verification(entries: 12, problem: nil))
        let bob = try log.entries(AuditLog.Filter(userId: "bob"), limit: 100, after: nil)
        #expect(bob.map(\.type) == ["session.failed", "user.created"] && bob.allSatisfy { $0.actor == "system" && $0.ip == nil })
        let entries = try log.entries(AuditLog.Filter(userId: "ann"), limit: 100, after: nil)
        #expect(entries.count == 10 && entries.allSatisfy { $0.actor == "user" && $0.type == "user.updated" })
        #expect(entries.first?.ip == "192.0.2.9", "newest first")
        #expect(try chain(of: "ann").map(\.seq) == Array(1...10), "one user's entries are one ordered chain")
    }

    enum Tampering: String, CaseIterable {
        case edit, deleteInside, deleteLast, insertInside, insertAtEnd, reorder
    }

    /// Each kind of change made by hand in the database is found, naming the first entry that
    /// no longer matches (or the chain's head when its end was cut off).
    @Test(arguments: Tampering.allCases) func tamperingIsFoundAtTheFirstBrokenEntry(_ tampering: Tampering) throws {
        try writeSome()
        let ann = try chain(of: "ann")
        let shard = AuditLog.chain(of: "ann")
        let expected: AuditLog.Problem
        switch tampering {
        case .edit:
            try execute("UPDATE audit_log SET data = '{\"userId\":\"ann\",\"changed\":[]}' WHERE id = '\(ann[4].id)'")
            expected = .entry(id: ann[4].id, chain: Int(shard), sequence: 5)
        case .deleteInside:
            try execute("DELETE FROM audit_log WHERE id = '\(ann[4].id)'")
            expected = .entry(id: ann[5].id, chain: Int(shard), sequence: 6)
        case .deleteLast:
            try execute("DELETE FROM audit_log WHERE id = '\(ann[9].id)'")
            expected = .head(chain: Int(shard), sequence: 10)
        case .insertInside:
            // Make room after the fourth entry, then copy the fifth into it under a new id.
            try execute("UPDATE audit_log SET seq = seq + 100 WHERE shard = \(shard) AND seq > 4")
            try execute("UPDATE audit_log SET seq = seq - 99 WHERE shard = \(shard) AND seq > 100")
            try execute("""
                INSERT INTO audit_log (shard, seq, id, at, type, actor, user_id, session_id, ip, user_agent, data, hash)
                SELECT shard, 5, 'msg_forged', at, type, actor, user_id, session_id, ip, user_agent, data, hash
                FROM audit_log WHERE id = '\(ann[4].id)'
                """)
            expected = .entry(id: "msg_forged", chain: Int(shard), sequence: 5)
        case .insertAtEnd:
            try execute("""
                INSERT INTO audit_log (shard, seq, id, at, type, actor, user_id, session_id, ip, user_agent, data, hash)
                SELECT shard, 11, 'msg_forged', at, type, actor, user_id, session_id, ip, user_agent, data, hash
                FROM audit_log WHERE id = '\(ann[9].id)'
                """)
            expected = .pastHead(id: "msg_forged", chain: Int(shard), sequence: 11)
        case .reorder:
            try execute("UPDATE audit_log SET seq = -1 WHERE id = '\(ann[2].id)'")
            try execute("UPDATE audit_log SET seq = 3 WHERE id = '\(ann[3].id)'")
            try execute("UPDATE audit_log SET seq = 4 WHERE id = '\(ann[2].id)'")
            expected = .entry(id: ann[3].id, chain: Int(shard), sequence: 3)
        }
        #expect(try log.verify(batchSize: 4).problem == expected)
    }

    /// Two instances (each its own pool) writing at once, several threads each, users shared
    /// between them: every entry lands in its chain and the whole log verifies.
    @Test func concurrentWritersOfTwoInstancesKeepEveryChainValid() throws {
        let other = database.makePool(size: 4)
        defer { other.close() }
        let pools = [pool, other]
        let failures = Mutex<[String]>([])
        let perThread = 25
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for n in 0..<perThread {
                do {
                    // Three users shared by every thread, so writers meet on the same chain heads.
                    let userId = "shared\(n % 3)"
                    try record(
                        [.userUpdated(userId: userId, changed: ["t\(thread)n\(n)"], at: Date()),
                         .logInFailed(.password, userId: nil, authProvider: "password", at: Date())],
                        in: pools[thread % 2], origin: AuditOrigin(actor: .user, ip: "192.0.2.\(thread)"))
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try log.verify() == AuditLog.Verification(entries: 8 * perThread * 2, problem: nil))
    }

    /// Pruning removes the oldest entries of each chain in bounded batches and records where it
    /// cut, so the rest still verifies; an entry deleted after the cut is still found.
    @Test func retentionCutsTheOldestEntriesAndTheLogStillVerifies() throws {
        let now = Date()
        let old = now.addingTimeInterval(-400 * 86400)
        for n in 0..<7 { try record([.userUpdated(userId: "ann", changed: ["old\(n)"], at: old)]) }
        try record([.logInFailed(.locked, userId: nil, authProvider: "password", at: old)])
        for n in 0..<3 { try record([.userUpdated(userId: "ann", changed: ["new\(n)"], at: now)]) }
        // An old entry after a newer one in its chain stays: chains are cut at their start only.
        try record([.userUpdated(userId: "ann", changed: ["late"], at: old)])
        #expect(try log.prune(before: now.addingTimeInterval(-365 * 86400), batchSize: 3) == 8)
        #expect(try log.prune(before: now.addingTimeInterval(-365 * 86400), batchSize: 3) == 0)
        #expect(try log.verify() == AuditLog.Verification(entries: 4, problem: nil))
        let ann = try chain(of: "ann")
        #expect(ann.count == 4)
        try execute("DELETE FROM audit_log WHERE id = '\(ann[0].id)'")
        #expect(try log.verify().problem == .entry(id: ann[1].id, chain: Int(AuditLog.chain(of: "ann")), sequence: ann[1].seq))
    }

    /// Failed log-ins with a name no account has share that name's chain (any case), as a known
    /// name's failures share its user's: repeated attempts on one name wait alike either way.
    @Test func failuresOfAnUnknownNameShareItsChain() throws {
        for name in ["Ghost", "ghost", "GHOST"] {
            try record([.logInFailed(.password, userId: nil, name: name, authProvider: "password", at: Date())])
        }
        let shards = try pool.withConnection { c in try c.query("SELECT shard FROM audit_log").map { try $0.decode(Int32.self, at: 0) } }
        #expect(shards == Array(repeating: AuditLog.chain(of: "name:ghost"), count: 3))
        let data = try log.entries(AuditLog.Filter(), limit: 10, after: nil).map(\.data)
        #expect(data.allSatisfy { $0 == ["reason": "password", "authProvider": "password"] }, "the name is not stored")
    }

    /// The canonical form is the database's, field for field (NULLs, multi-byte text).
    @Test func theCanonicalFormMatchesTheDatabases() throws {
        try record([.userUpdated(userId: "ann", changed: ["naïve ✓"], at: Date())], origin: AuditOrigin(actor: .master, userAgent: "Agent/1 ✓"))
        let row = try #require(try pool.withConnection { c in
            try c.queryFirst("""
                SELECT gatehouse_audit_canonical(shard, seq, id, at, type, actor, user_id, session_id, ip, user_agent, data),
                       shard, seq, id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), type, actor, user_id,
                       session_id, ip, user_agent, data, hash
                FROM audit_log
                """)
        })
        let entry = try AuditLog.StoredEntry(row, from: 1)
        #expect(AuditLog.canonicalForm(entry) == (try row.decode([UInt8].self, at: 0)))
        #expect(entry.body.ip == nil && entry.body.actor == "master" && entry.body.userAgent == "Agent/1 ✓")
        // The form the append was given (written here) hashed as the database's whole form does,
        // onto the chain's start.
        #expect(entry.hash == SHA256.digest([UInt8](repeating: 0, count: 32) + (try row.decode([UInt8].self, at: 0))))
    }

    /// An entry's `at` text, written here for the append, is the database's `to_char` of the
    /// value stored (rounded to the millisecond as a parameter is) over the years 1 to 9999:
    /// edges of days, years and rounding, and times drawn at random; outside them there is none.
    @Test func canonicalTimesAreTheDatabases() throws {
        var random = SplitMix64(seed: 20)
        var times: [Date] = [
            0, -0.0004, -1, 1_765_000_000.0004, 1_765_000_000.9996, 951_782_400 /* 2000-02-29 */, 4_102_444_799.5,
            -62_135_596_800 /* 0001-01-01 */, 253_402_300_799.999 /* 9999-12-31T23:59:59.999 */, -2_208_988_800.5,
        ].map { Date(timeIntervalSince1970: $0) }
        for _ in 0..<300 {
            let milliseconds = Int64.random(in: -62_135_596_800_000..<253_402_300_800_000, using: &random)
            times.append(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
        let texts = try pool.withConnection { c in
            try c.query("""
                SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') FROM unnest(\(PostgresArray(times))) WITH ORDINALITY AS u(t, n)
                ORDER BY n
                """).map { try $0.decode(String.self, at: 0) }
        }
        #expect(times.map(AuditLog.canonicalTime) == texts)
        #expect(AuditLog.canonicalTime(Date(timeIntervalSince1970: -62_135_596_800.001)) == nil)
        #expect(AuditLog.canonicalTime(Date(timeIntervalSince1970: 253_402_300_800)) == nil)
    }

    /// An entry whose time has no text written here (outside the years 1 to 9999) sends its
    /// call, alone or with others, to the database's whole-form append; both chain onto the same
    /// heads and the log verifies.
    @Test func entriesOutsideTheFormedYearsAreChainedByTheDatabase() throws {
        let far = Date(timeIntervalSince1970: 400_000_000_000)  // the year 14645
        try record([.userUpdated(userId: "ann", changed: ["a"], at: Date())])
        try record([.userUpdated(userId: "ann", changed: ["b"], at: far)])
        try record([.userUpdated(userId: "ann", changed: ["c"], at: Date()), .userUpdated(userId: "ann", changed: ["d"], at: far)])
        try record([.userUpdated(userId: "ann", changed: ["e"], at: Date())])
        #expect(try log.verify() == AuditLog.Verification(entries: 5, problem: nil))
        #expect(try chain(of: "ann").map(\.seq) == Array(1...5))
    }

    /// With the audit log on, every kind is recorded (so single-statement changes open their
    /// transaction); audit-only kinds never reach a webhook endpoint.
    @Test func auditingRecordsEveryKindAndWebhooksNeverTakeAuditOnlyKinds() throws {
        #expect(AuthEvent.Kind.allCases.allSatisfy(Self.events.records))
        let webhooks = EventLog(subscribers: [.init(endpoint: "https://a.example.com", kinds: nil)])
        #expect(!webhooks.records(.sessionFailed) && !webhooks.records(.adminAction) && webhooks.records(.userCreated))
        try pool.withConnection { c in
            try c.transaction { tx in try webhooks.record([.logInFailed(.password, userId: "ann", authProvider: "password", at: Date())], in: tx) }
        }
        #expect(try pool.withConnection { c in try c.queryFirst("SELECT count(*)::int8 FROM webhook_outbox")?.decode(Int64.self, at: 0) } == 0)
        #expect(try pool.withConnection { c in try c.queryFirst("SELECT count(*)::int8 FROM audit_log")?.decode(Int64.self, at: 0) } == 0)
    }
}
