import Foundation
import Postgres
import ServerTestSupport
import Sodium
import Signatures
import Synchronization
import TestSupport
import Testing

@testable import Auth

/// The audit log's sealed hash chain (``AuditLog``), appended through the one recording point
/// (``EventLog``): verification of an intact log, of each kind of tampering, under concurrent
/// writers and sealers of two instances, with a transaction held open, and after pruning.
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

    /// (id, pos) of the entries, in position order.
    func entries() throws -> [(id: String, pos: Int64)] {
        try pool.withConnection { c in
            try c.query("SELECT id, pos FROM audit_entries ORDER BY pos").map {
                (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1))
            }
        }
    }

    /// Seals everything committed, `batchSize` entries per seal.
    func sealAll(batchSize: Int) throws {
        #expect(try log.sealCommitted(batchSize: batchSize, timeout: 30))
    }

    /// Ten entries of `ann`'s, with a position given out and never used after the fifth, then two
    /// of `bob`'s.
    func writeSome() throws {
        for n in 0..<10 {
            try record([.userUpdated(userId: "ann", changed: ["n\(n)"], at: Date())], origin: AuditOrigin(actor: .user, ip: "192.0.2.\(n)"))
            // A position given out and never used, as by a change that rolled back after its entry.
            if n == 4 { try execute("SELECT nextval('audit_entries_pos_seq')") }
        }
        try record([.userCreated(Self.user("bob"), authProvider: "password", at: Date()), .logInFailed(.password, userId: "bob", authProvider: "password", at: Date())])
    }

    @Test func anIntactLogVerifiesAndEntriesCarryTheirOrigin() throws {
        try writeSome()
        try sealAll(batchSize: 4)
        let result = try log.verify(batchSize: 2)
        #expect(result == AuditLog.Verification(entries: 12, seals: 3, pending: 0, problem: nil))
        let bob = try log.entries(AuditLog.Filter(userId: "bob"), limit: 100, after: nil)
        #expect(bob.map(\.type) == ["session.failed", "user.created"] && bob.allSatisfy { $0.actor == "system" && $0.ip == nil })
        let ann = try log.entries(AuditLog.Filter(userId: "ann"), limit: 100, after: nil)
        #expect(ann.count == 10 && ann.allSatisfy { $0.actor == "user" && $0.type == "user.updated" })
        #expect(ann.first?.ip == "192.0.2.9", "newest first")
        #expect(try entries().map(\.pos) == Array(1...5) + Array(7...13), "the unused position stays a gap")
    }

    enum Tampering: String, CaseIterable {
        case edit, deleteInside, deleteLast, insertInGap, insertPastSequence, reorder, deleteSeal, editSeal
    }

    /// Each kind of change made by hand in the database to sealed entries (positions 1–5, 7–13
    /// in seals of four) is found, naming the first entry or seal that no longer matches.
    @Test(arguments: Tampering.allCases) func tamperingIsFoundAtTheFirstBrokenEntry(_ tampering: Tampering) throws {
        try writeSome()
        try sealAll(batchSize: 4)
        let all = try entries()
        let expected: AuditLog.Problem
        switch tampering {
        case .edit:
            try execute("UPDATE audit_entries SET data = '{\"userId\":\"ann\",\"changed\":[]}' WHERE pos = 7")
            expected = .entry(id: all[5].id, position: 7, seal: 2)
        case .deleteInside:
            try execute("DELETE FROM audit_entries WHERE pos = 7")
            expected = .entry(id: all[6].id, position: 8, seal: 2)
        case .deleteLast:
            try execute("DELETE FROM audit_entries WHERE pos = 13")
            expected = .sealEnds(seal: 3, missing: 1)
        case .insertInGap:
            try execute("""
                INSERT INTO audit_entries (pos, id, at, type, actor, user_id, session_id, ip, user_agent, data)
                SELECT 6, 'msg_forged', at, type, actor, user_id, session_id, ip, user_agent, data FROM audit_entries WHERE pos = 5
                """)
            expected = .entry(id: "msg_forged", position: 6, seal: 2)
        case .insertPastSequence:
            try execute("""
                INSERT INTO audit_entries (pos, id, at, type, actor, user_id, session_id, ip, user_agent, data)
                SELECT 1000, 'msg_forged', at, type, actor, user_id, session_id, ip, user_agent, data FROM audit_entries WHERE pos = 13
                """)
            expected = .pastSequence(id: "msg_forged", position: 1000)
        case .reorder:
            try execute("UPDATE audit_entries SET pos = -pos WHERE pos IN (8, 9)")
            try execute("UPDATE audit_entries SET pos = 17 + pos WHERE pos IN (-8, -9)")
            expected = .entry(id: all[7].id, position: 8, seal: 2)
        case .deleteSeal:
            try execute("DELETE FROM audit_seals WHERE seq = 2")
            expected = .seal(2)
        case .editSeal:
            try execute("UPDATE audit_seals SET hashes = overlay(hashes PLACING '\\x00'::bytea FROM 40) WHERE seq = 1")
            expected = .entry(id: all[1].id, position: 2, seal: 1)
        }
        #expect(try log.verify(batchSize: 2).problem == expected)
    }

    /// Two instances (each its own pool) writing at once, several threads each, while each
    /// instance's sealer runs: some writers hold their transaction open after drawing a position,
    /// so later positions commit first. Every entry is sealed once, in position order, and the
    /// whole log verifies.
    @Test func concurrentWritersAndSealersOfTwoInstancesKeepTheChainValid() throws {
        let other = database.makePool(size: 6)
        defer { other.close() }
        let pools = [pool, other]
        let failures = Mutex<[String]>([])
        let writing = Atomic<Int>(8)
        let perThread = 25
        let group = DispatchGroup()
        func run(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                body()
                group.leave()
            }.start()
        }
        for instance in 0..<2 {
            // Each instance's sealer, in small seals, until every writer is done.
            run {
                let sealer = AuditLog(pool: pools[instance])
                while writing.load(ordering: .acquiring) > 0 {
                    do { try sealer.seal(batchSize: 7) } catch { failures.withLock { $0.append("seal: \(error)") } }
                }
            }
        }
        for thread in 0..<8 {
            run {
                defer { writing.wrappingSubtract(1, ordering: .releasing) }
                for n in 0..<perThread {
                    do {
                        try AuditOrigin.bind(AuditOrigin(actor: .user, ip: "192.0.2.\(thread)")) {
                            try pools[thread % 2].withConnection { c in
                                try c.transaction { tx in
                                    try Self.events.record(
                                        [.userUpdated(userId: "shared\(n % 3)", changed: ["t\(thread)n\(n)"], at: Date()),
                                         .logInFailed(.password, userId: nil, authProvider: "password", at: Date())], in: tx)
                                    if n % 5 == thread % 5 { Thread.sleep(forTimeInterval: 0.02) }
                                }
                            }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let result = try log.verify()
        #expect(result.entries == 8 * perThread * 2 && result.pending == 0 && result.problem == nil)
    }

    /// A transaction that drew a position and has not committed holds back the seal of every
    /// later position; once it commits, its entry is sealed in its place.
    @Test func anOpenTransactionHoldsBackTheSealOfLaterPositions() throws {
        let held = try database.connect()
        defer { held.close() }
        _ = try held.execute("BEGIN")
        _ = try held.execute("""
            INSERT INTO audit_entries (id, at, type, actor, data) VALUES ('msg_early', now(), 'user.updated', 'system', '{}')
            """)
        try record([.userUpdated(userId: "bob", changed: ["late"], at: Date())])
        for _ in 0..<4 {
            try log.seal()
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(try log.sealCommitted(timeout: 0.3) == false)
        #expect(try pool.withConnection { c in try c.queryFirst("SELECT last_pos FROM audit_head")?.decode(Int64.self, at: 0) } == 0)
        _ = try held.execute("COMMIT")
        #expect(try log.verify() == AuditLog.Verification(entries: 2, seals: 1, pending: 0, problem: nil))
        #expect(try entries().map(\.id).first == "msg_early")
    }

    /// A fence whose transaction id this cluster has not reached (the database was restored from a
    /// dump into another cluster) is replaced, not waited for.
    @Test func aFenceFromAnotherClusterIsReplaced() throws {
        try record([.userUpdated(userId: "ann", changed: ["a"], at: Date())])
        try execute("UPDATE audit_head SET fence_pos = 1, fence_xid = '999999999999'")
        try record([.userUpdated(userId: "ann", changed: ["b"], at: Date())])
        #expect(try log.sealCommitted(timeout: 10))
        #expect(try log.verify() == AuditLog.Verification(entries: 2, seals: 1, pending: 0, problem: nil))
    }

    /// Pruning removes whole seals from the start whose entries are all old, and records where it
    /// cut, so the rest still verifies; an entry deleted after the cut, or put back before it, is found.
    @Test func retentionCutsTheOldestSealsAndTheLogStillVerifies() throws {
        let now = Date()
        let old = now.addingTimeInterval(-400 * 86400)
        for n in 0..<7 { try record([.userUpdated(userId: "ann", changed: ["old\(n)"], at: old)]) }
        try record([.logInFailed(.locked, userId: nil, authProvider: "password", at: old)])
        for n in 0..<3 { try record([.userUpdated(userId: "ann", changed: ["new\(n)"], at: now)]) }
        // An old entry in a seal with newer ones stays: seals go whole.
        try record([.userUpdated(userId: "ann", changed: ["late"], at: old)])
        try sealAll(batchSize: 4)
        #expect(try log.prune(before: now.addingTimeInterval(-365 * 86400)) == 8)
        #expect(try log.prune(before: now.addingTimeInterval(-365 * 86400)) == 0)
        #expect(try log.verify() == AuditLog.Verification(entries: 4, seals: 1, pending: 0, problem: nil))
        let kept = try entries()
        #expect(kept.map(\.pos) == [9, 10, 11, 12])
        try execute("""
            INSERT INTO audit_entries (pos, id, at, type, actor, user_id, session_id, ip, user_agent, data)
            SELECT 3, 'msg_forged', at, type, actor, user_id, session_id, ip, user_agent, data FROM audit_entries WHERE pos = 9
            """)
        #expect(try log.verify().problem == .beforeCut(id: "msg_forged", position: 3))
        try execute("DELETE FROM audit_entries WHERE pos IN (3, 9)")
        #expect(try log.verify().problem == .entry(id: kept[1].id, position: 10, seal: 3))
    }

    /// A failed log-in with a name no account has stores no name.
    @Test func aFailureOfAnUnknownNameStoresNoName() throws {
        try record([.logInFailed(.password, userId: nil, authProvider: "password", at: Date())])
        let stored = try log.entries(AuditLog.Filter(), limit: 10, after: nil)
        #expect(stored.map(\.data) == [["reason": "password", "authProvider": "password"]] && stored.first?.userId == nil)
    }

    /// The canonical form, byte for byte: the tag, the position, every field length-prefixed
    /// (NULL as `~`, lengths in UTF-8 bytes, the time as the database writes it); the first
    /// entry's hash is over 32 zero bytes and its form, as the seal holds it.
    @Test func theCanonicalFormIsLengthPrefixedAndHashedOntoTheStart() throws {
        let at = Date(timeIntervalSince1970: 1_765_000_000.123)
        try record([.userUpdated(userId: "ann", changed: ["naïve ✓"], at: at)], origin: AuditOrigin(actor: .master, userAgent: "Agent/1 ✓"))
        try sealAll(batchSize: 10)
        let row = try #require(try pool.withConnection { c in
            try c.queryFirst("SELECT \(sql: AuditLog.entryColumns), (SELECT hashes FROM audit_seals) FROM audit_entries")
        })
        let id = try row.decode(String.self, at: 1)
        let data = #"{"userId":"ann","changed":["naïve ✓"]}"#
        let expected = "gatehouse-audit-2" + "1:1" + "\(id.utf8.count):\(id)" + "27:2025-12-06T05:46:40.123000Z"
            + "12:user.updated" + "6:master" + "3:ann" + "~" + "~" + "11:Agent/1 ✓" + "\(data.utf8.count):\(data)"
        #expect(try AuditLog.canonicalForm(row) == Array(expected.utf8))
        #expect(try row.decode([UInt8].self, at: AuditLog.formColumns + 1)
            == SHA256.digest([UInt8](repeating: 0, count: 32) + Array(expected.utf8)))
    }

    /// Entries of any time, the far future included, are sealed and verify.
    @Test func entriesOfAnyTimeAreSealed() throws {
        let far = Date(timeIntervalSince1970: 400_000_000_000)  // the year 14645
        try record([.userUpdated(userId: "ann", changed: ["a"], at: Date())])
        try record([.userUpdated(userId: "ann", changed: ["b"], at: far), .userUpdated(userId: "ann", changed: ["c"], at: Date())])
        #expect(try log.verify() == AuditLog.Verification(entries: 3, seals: 1, pending: 0, problem: nil))
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
        #expect(try pool.withConnection { c in try c.queryFirst("SELECT count(*)::int8 FROM audit_entries")?.decode(Int64.self, at: 0) } == 0)
    }
}
