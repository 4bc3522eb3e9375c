import Auth
import Foundation
import Postgres
import Sodium
import Synchronization
import Testing

/// Every failed log-in does the same password work, whatever kind of hash the account has (or
/// none): one verification of each kind stored in the users table. Counted through the hashing
/// pool's hook, never timed.
@Suite struct LogInWorkTests {
    static let current = "$argon2id$v=19$m=8,t=1,p=1"
    static let oldCost = PasswordHasher.Cost(opsLimit: 2, memLimit: 16 * 1024)
    static let old = "$argon2id$v=19$m=16,t=2,p=1"
    /// "correct horse battery staple" at bcrypt cost 10 (BcryptTests).
    static let bcrypt = "$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WO"

    /// Inserts a user with this stored hash, as an import would.
    static func insert(_ h: Harness, _ objectId: String, _ username: String, hash: String) throws {
        try h.execute("""
            INSERT INTO users (object_id, username, password_hash, acl, created_at, updated_at)
            VALUES (\(objectId), \(username), \(hash), '{}'::jsonb, now(), now())
            """)
    }

    @Test func kindsAreReadFromTheUsersTableAndRefreshed() throws {
        let h = try Harness()
        _ = try h.signedUp("alice")
        #expect(h.auth.core.hashKinds.kinds == [Self.current])
        try Self.insert(h, "ImportedB1", "bob", hash: Self.bcrypt)
        try Self.insert(h, "OldCostC01", "carol", hash: try PasswordHasher(cost: Self.oldCost).hash("pw"))
        try Self.insert(h, "OddHashD01", "dave", hash: "$6$rounds=5000$salt$digest")
        #expect(h.auth.core.hashKinds.kinds == [Self.current], "read only when refreshed")
        try h.auth.core.refreshHashKinds()
        #expect(h.auth.core.hashKinds.kinds == [Self.current, "$2b$10", Self.old])
        try h.execute("DELETE FROM users WHERE username IN ('bob', 'carol')")
        try h.auth.core.refreshHashKinds()
        #expect(h.auth.core.hashKinds.kinds == [Self.current])
        // No users at all: the current kind stays (new sign-ups store it).
        try h.execute("DELETE FROM users")
        try h.auth.core.refreshHashKinds()
        #expect(h.auth.core.hashKinds.kinds == [Self.current])
    }

    @Test func aLogInMeetingANewKindAddsItAtOnce() throws {
        let h = try Harness()
        try Self.insert(h, "ImportedB1", "bob", hash: Self.bcrypt)
        #expect(onlyError(h.logIn("bob", "wrong password"))?.code == 101)
        #expect(h.auth.core.hashKinds.kinds == [Self.current, "$2b$10"])
    }

    @Test func everyFailedLogInVerifiesOneHashOfEachKind() throws {
        let verified = Mutex<[String]>([])
        let h = try Harness(onVerify: { kind in verified.withLock { $0.append(kind) } })
        _ = try h.signedUp("alice")
        try Self.insert(h, "ImportedB1", "bob", hash: Self.bcrypt)
        try Self.insert(h, "OldCostC01", "carol", hash: try PasswordHasher(cost: Self.oldCost).hash("pw"))
        try Self.insert(h, "OddHashD01", "dave", hash: "$6$rounds=5000$salt$digest")
        try h.auth.core.refreshHashKinds()
        let every = [Self.current, "$2b$10", Self.old].sorted()

        for name in ["nobody", "alice", "bob", "carol", "dave", "alice@example.com", String(repeating: "x", count: 300)] {
            verified.withLock { $0 = [] }
            #expect(onlyError(h.logIn(name, "wrong password"))?.code == 101, "\(name)")
            // dave's own hash is looked at and costs nothing; a current-cost dummy stands in.
            let work = verified.withLock { $0 }.filter { $0 != "unrecognized" }.sorted()
            #expect(work == every, "\(name): \(work)")
        }
        // A right password stops at the account's own hash.
        verified.withLock { $0 = [] }
        _ = try h.loggedIn("alice")
        #expect(verified.withLock { $0 } == [Self.current])
    }
}
