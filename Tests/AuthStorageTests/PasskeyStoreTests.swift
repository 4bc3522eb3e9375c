@testable import Auth
import Foundation
import Postgres
import ServerTestSupport
import Sodium
import Testing

/// A passkey log-in's two batched statements, given batches that the request path makes only
/// under load: one challenge twice in a batch, one passkey twice, one installation twice.
@Suite struct PasskeyStoreTests {
    let pool: Pool
    let store: PasskeyStore
    let now = Date(timeIntervalSince1970: 1_900_000_000)

    init() throws {
        pool = try TestDatabase.create().makePool(size: 2)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        store = PasskeyStore(pool: pool)
    }

    /// The object id of the user `name`.
    static func userId(_ name: String) -> String { String(("u" + name + "000000000").prefix(10)) }

    /// A user `name` with one passkey, `key-<name>` with credential id `credential-<name>`.
    func user(_ name: String, signCount: UInt32 = 0) throws -> String {
        let id = Self.userId(name)
        try UserStore(pool: pool).insert(
            User(objectId: id, username: name, email: nil, emailVerified: false, acl: ACL(), createdAt: now, updatedAt: now),
            passwordHash: nil, session: nil)
        try store.insert(
            Passkey(objectId: "key-" + name, name: "Laptop", createdAt: now, lastUsedAt: nil), userId: id,
            credentialId: Array(("credential-" + name).utf8), publicKey: [0xa0], signCount: signCount, userVerified: true,
            endingSessions: nil)
        return id
    }

    func challenge(_ byte: UInt8, user: String? = nil, expiresIn seconds: Double = 300) throws -> [UInt8] {
        let digest = [UInt8](repeating: byte, count: 32)
        try store.insertChallenge(digest: digest, userId: user, purpose: .authentication, expiresAt: now + seconds, now: now - 1)
        return digest
    }

    func newSession(installation: String? = nil) -> UserStore.NewSession {
        UserStore.NewSession(
            session: Session(
                objectId: SecureRandom.objectId(), createdAt: now, updatedAt: now, expiresAt: now + 3600, lastUsedAt: now,
                installationId: installation, action: "login", authProvider: "passkey", userAgent: nil),
            tokenDigest: SecureRandom.bytes(32))
    }

    func logIn(_ challenge: [UInt8], _ name: String) -> PasskeyStore.LogIn {
        PasskeyStore.LogIn(challengeDigest: challenge, credentialId: Array(("credential-" + name).utf8), session: newSession())
    }

    func move(_ name: String, from previous: UInt32, to signCount: UInt32, installation: String? = nil) -> PasskeyStore.CounterMove {
        PasskeyStore.CounterMove(
            passkeyId: "key-" + name, previous: previous, signCount: signCount, userId: Self.userId(name),
            session: newSession(installation: installation))
    }

    func sessionIds() throws -> Set<String> {
        try pool.withConnection { c in Set(try c.query("SELECT object_id FROM sessions").map { try $0.decode(String.self, at: 0) }) }
    }

    @Test func aBatchTakesEachChallengeOnceAndReadsEachPasskey() throws {
        let alice = try user("alice")
        _ = try user("bob")
        let named = try challenge(1, user: alice)
        let open = try challenge(2)
        let expired = try challenge(3, expiresIn: -1)
        let logIns = [
            logIn(named, "alice"), logIn(named, "alice"), logIn(open, "bob"), logIn(expired, "bob"), logIn([9], "bob"),
            logIn(open, "nobody"),
        ]
        let found = try store.take(logIns, now: now)
        #expect(found.count == logIns.count)
        // The first log-in of a challenge has it, named (alice) or not; the second, and unknown or expired ones, do not.
        #expect(found[logIns[0]]?.challengeUser == .some(.some(alice)))
        #expect(found[logIns[1]]?.challengeUser == .none)
        #expect(found[logIns[2]]?.challengeUser == .some(.none))
        #expect(found[logIns[3]]?.challengeUser == .none && found[logIns[4]]?.challengeUser == .none)
        #expect(found[logIns[5]]?.challengeUser == .none)
        #expect(found[logIns[0]]?.passkey?.passkey.objectId == "key-alice" && found[logIns[0]]?.user?.username == "alice")
        #expect(found[logIns[2]]?.passkey?.userId == Self.userId("bob") && found[logIns[2]]?.user?.username == "bob")
        #expect(found[logIns[5]]?.passkey == nil && found[logIns[5]]?.user == nil)
        // Taken for good, the expired one included; a second batch finds none of them.
        let again = try store.take([logIn(named, "alice"), logIn(open, "bob"), logIn(expired, "bob")], now: now)
        #expect(again.values.allSatisfy { $0.challengeUser == .none })
    }

    @Test func aPasskeysCounterMovesOncePerBatchAndOnlyItsWinnerGetsASession() throws {
        _ = try user("alice")
        _ = try user("bob", signCount: 7)
        let first = move("alice", from: 0, to: 1)
        let second = move("alice", from: 0, to: 2)
        let bob = move("bob", from: 7, to: 8)
        let stale = move("bob", from: 3, to: 9)
        let moved = try store.logIn([first, second, bob, stale])
        #expect(moved == [first, bob])
        #expect(try sessionIds() == [first.session.session.objectId, bob.session.session.objectId])
        let counts = try pool.withConnection { c in
            try c.query("SELECT object_id, sign_count FROM passkeys ORDER BY object_id").map { try $0.decode(Int64.self, at: 1) }
        }
        #expect(counts == [1, 8])
    }

    @Test func aDisabledPasskeyMovesNothing() throws {
        _ = try user("alice")
        try store.disable(passkeyId: "key-alice", now: now)
        #expect(try store.logIn([move("alice", from: 0, to: 1)]).isEmpty)
        #expect(try sessionIds().isEmpty)
    }

    /// Log-ins from one installation replace each other in order, and another installation's session stays.
    @Test func sessionsFromOneInstallationReplaceEachOtherInOrder() throws {
        _ = try user("alice")
        try pool.withConnection { c in
            try c.execute("""
                INSERT INTO passkeys (object_id, credential_id, user_id, public_key, sign_count, name, created_at)
                VALUES ('key-alice-2', 'x'::bytea, \(Self.userId("alice")), 'x'::bytea, 0, 'Phone', \(now))
                """)
        }
        let tablet = move("alice", from: 0, to: 1, installation: "tablet")
        let first = move("alice", from: 1, to: 2, installation: "phone")
        var second = move("alice", from: 0, to: 1, installation: "phone")
        second.passkeyId = "key-alice-2"
        #expect(try store.logIn([tablet]) == [tablet])
        #expect(try store.logIn([first, second]) == [first, second])
        #expect(try sessionIds() == [tablet.session.session.objectId, second.session.session.objectId])
        let tabletAgain = move("alice", from: 2, to: 3, installation: "tablet")
        #expect(try store.logIn([tabletAgain]) == [tabletAgain])
        #expect(try sessionIds() == [tabletAgain.session.session.objectId, second.session.session.objectId])
    }

    @Test func roundsKeepEachKeysItemsApartAndInOrder() {
        let items: [(String, [String?])] = [("a", ["k1"]), ("b", ["k1"]), ("c", ["k1", "k2"]), ("d", ["k2"]), ("e", [nil]), ("f", [])]
        let rounds = UserStore.rounds(items) { $0.1 }.map { $0.map(\.0) }
        #expect(rounds == [["a", "e", "f"], ["b"], ["c"], ["d"]])
    }
}
