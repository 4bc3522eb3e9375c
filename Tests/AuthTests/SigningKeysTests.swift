import Auth
import Foundation
import JSON
import JWT
import Postgres
import ServerTestSupport
import Sodium
import TestSupport
import Testing

/// The signing keys in the database (contract: tokens.md, "Keys"): the first instance makes the
/// first key, rotation publishes before it signs and keeps the replaced key for its tokens,
/// revocation removes at once, and private keys are stored only sealed.
@Suite struct SigningKeysTests {
    static func session(_ h: Harness) throws -> String {
        try #require(try h.signedUp()["sessionToken"]?.stringValue)
    }

    static func keyId(_ token: String) throws -> String? { try JSONWebToken(compact: token).keyId }

    /// The published key set as the JWT target reads it.
    static func keySet(_ h: Harness) throws -> JSONWebKeySet { try JSONWebKeySet(data: h.auth.tokens.keys.published.keySet) }

    /// Whether `token`'s signature verifies with the published key of its `kid`.
    static func verifies(_ h: Harness, _ token: String) throws -> Bool {
        let parsed = try JSONWebToken(compact: token)
        guard let key = try keySet(h).key(id: parsed.keyId) else { return false }
        return (try? parsed.verifySignature(with: key)) != nil
    }

    /// On an empty database, instances starting at once make one first key between them.
    @Test func instancesStartingAtOnceMakeOneFirstKey() throws {
        let database = try TestDatabase.create()
        let pool = database.makePool(size: 8)
        defer { pool.close() }
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        let box = try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .signingKeys)
        let instances = (0..<4).map { _ in SigningKeys(pool: pool, box: box, policy: AccessTokenPolicy()) }
        let reports = try #require(simultaneously(4) { index in Result { try instances[index].refresh() } })
        let made = try reports.flatMap { try $0.get().made }
        #expect(made.count == 1, "\(made)")
        let sets = instances.map { String(decoding: $0.published.keySet, as: UTF8.self) }
        #expect(Set(sets).count == 1, "every instance publishes the same set: \(sets)")
        #expect(try instances[0].list().map(\.state) == [.signing])
    }

    /// A token signed before `rotate` verifies throughout; the next key is published at once and
    /// signs only after the lead; the replaced key stays published for the retention, then goes.
    @Test func rotationWithoutAFailedVerification() throws {
        let h = try Harness()
        let session = try Self.session(h)
        let before = try AccessTokenTests.token(h, session)
        let first = try #require(try Self.keyId(before))

        guard case .added(let next) = try h.auth.tokens.keys.rotate() else { Issue.record("nothing added"); return }
        #expect(next.signsFrom.timeIntervalSince(next.createdAt) == SigningKeySchedule.publicationLead)
        #expect(try Self.keySet(h).keys.map(\.keyId) == [first, next.keyId], "published at once")
        #expect(try h.auth.tokens.keys.rotate() == .waiting(next), "one waiting key at a time")
        let during = try AccessTokenTests.token(h, session)
        #expect(try Self.keyId(during) == first, "the next key does not sign yet")
        let verdicts = try AccessTokenTests.independently(h, [before, during])
        #expect(verdicts.allSatisfy { $0.accepted }, "\(verdicts)")

        h.clock.advance(by: SigningKeySchedule.publicationLead)
        try h.auth.tokens.keys.refresh()
        let after = try AccessTokenTests.token(h, session)
        #expect(try Self.keyId(after) == next.keyId)
        for token in [before, during, after] { #expect(try Self.verifies(h, token)) }
        #expect(try h.auth.tokens.keys.list().map(\.state) == [
            .retired(publishedUntil: next.signsFrom.addingTimeInterval(SigningKeySchedule.retention)), .signing,
        ])

        // Every token of the first key has expired: it is deleted. (The clock is real time plus
        // an offset: a minute before the end, as a slow machine may take seconds between steps.)
        let publishedUntil = next.signsFrom.addingTimeInterval(SigningKeySchedule.retention)
        h.clock.advance(by: publishedUntil.timeIntervalSince(h.clock.now()) - 60)
        #expect(try h.auth.tokens.keys.refresh().deleted.isEmpty)
        h.clock.advance(by: 60)
        #expect(try h.auth.tokens.keys.refresh().deleted == [first])
        #expect(try Self.keySet(h).keys.map(\.keyId) == [next.keyId])
        #expect(try h.count("SELECT count(*) FROM signing_keys") == 1)
    }

    /// A revoked key is unpublished at once and its tokens stop verifying; the waiting key signs
    /// in its place; revoking the last key makes a new one.
    @Test func revocation() throws {
        let h = try Harness()
        let session = try Self.session(h)
        let leaked = try AccessTokenTests.token(h, session)
        let first = try #require(try Self.keyId(leaked))
        guard case .added(let next) = try h.auth.tokens.keys.rotate() else { Issue.record("nothing added"); return }

        #expect(try h.auth.tokens.keys.revoke(keyId: first) == .revoked(replacement: nil))
        #expect(try Self.keySet(h).keys.map(\.keyId) == [next.keyId])
        let verdicts = try AccessTokenTests.independently(h, [leaked, AccessTokenTests.token(h, session)])
        #expect(verdicts[0].refused, "\(verdicts[0])")
        #expect(verdicts[1].accepted, "the waiting key signs at once: \(verdicts[1])")
        #expect(try h.auth.tokens.introspect(leaked) == ["active": false])

        guard case .revoked(let replacement?) = try h.auth.tokens.keys.revoke(keyId: next.keyId) else {
            Issue.record("no key made after the last was revoked")
            return
        }
        #expect(replacement.signsFrom == replacement.createdAt)
        #expect(try Self.keyId(AccessTokenTests.token(h, session)) == replacement.keyId)
        #expect(try h.auth.tokens.keys.revoke(keyId: "no-such-key") == .noSuchKey)
    }

    /// Keys are replaced after the rotation days, and when the algorithm setting changes.
    @Test func automaticRotation() throws {
        let h = try Harness(configuration: AuthConfiguration(
            masterKey: Harness.masterKey, accessTokens: AccessTokenPolicy(rotationDays: 2)))
        h.clock.advance(by: 2 * 86400 - 10)
        #expect(try h.auth.tokens.keys.refresh().made.isEmpty)
        h.clock.advance(by: 10)
        let made = try h.auth.tokens.keys.refresh().made
        #expect(made.map(\.generation) == [2])
        #expect(try h.auth.tokens.keys.refresh().made.isEmpty, "one replacement")

        // An instance set to RS256 replaces the ES256 signer; once it signs, tokens are RS256.
        let h2 = try Harness()
        let rs256 = SigningKeys(pool: h2.pool, box: h2.keyBox, policy: AccessTokenPolicy(algorithm: .rs256), now: { h2.clock.now() })
        let replacement = try #require(try rs256.refresh().made.first)
        #expect(replacement.algorithm == .rs256)
        try h2.auth.tokens.keys.refresh()
        #expect(h2.auth.tokens.keys.published.algorithms == [.es256, .rs256])
        h2.clock.advance(by: SigningKeySchedule.publicationLead)
        let token = try JSONWebToken(compact: AccessTokenTests.token(h2, Self.session(h2)))
        #expect(token.algorithm == "RS256" && token.keyId == replacement.keyId)
        #expect(try Self.verifies(h2, AccessTokenTests.token(h2, Self.session(h2, "erin"))))
    }

    static func session(_ h: Harness, _ name: String) throws -> String {
        try #require(try h.signedUp(name)["sessionToken"]?.stringValue)
    }

    /// A key sealed under another secret key is neither used nor published, and said so once.
    @Test func aKeySealedUnderAnotherSecretKeyIsNotUsed() throws {
        let h = try Harness()
        let other = SigningKeys(
            pool: h.pool, box: try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .signingKeys), policy: AccessTokenPolicy())
        let report = try other.refresh()
        #expect(report.unreadable.count == 1 && report.made.isEmpty)
        #expect(other.published.keySet == Array(#"{"keys":[]}"#.utf8))
        #expect(try other.refresh().unreadable.isEmpty, "reported once")
    }

    /// The private key is stored only sealed: opened with the secret key it is the published key's
    /// private half, and neither it nor its scalar appears in any column of any table or in the log.
    @Test func privateKeysAreStoredSealed() throws {
        let h = try Harness()
        _ = try AccessTokenTests.token(h, Self.session(h))
        let row = try #require(try h.rows("SELECT kid, sealed_private_key FROM signing_keys").first)
        let kid = try row.decode(String.self, at: 0)
        let der = try #require(h.keyBox.open(try row.decode([UInt8].self, at: 1)))
        let key = try JSONWebSigningKey(der: der, algorithm: .es256, keyId: kid)
        #expect(try Self.keySet(h).key(id: kid)?.json == key.publicKey.json)

        let scalar = try #require(Self.privateScalar(der))
        let forms = [der, scalar].flatMap { bytes in
            [Self.hex(bytes), Base64URL.encode(bytes), Data(bytes).base64EncodedString()]
        }
        let dump = try Self.everyRow(h)
        #expect(dump.contains(kid), "the dump reads the keys' table")
        for form in forms {
            #expect(!dump.contains(form))
            #expect(!h.capturedLogs.contains { $0.contains(form) })
            #expect(!String(decoding: h.auth.tokens.keys.published.keySet, as: UTF8.self).contains(form))
        }
    }

    /// The private scalar of a SEC 1 `ECPrivateKey` (version 1, then a 32-byte OCTET STRING).
    static func privateScalar(_ der: [UInt8]) -> [UInt8]? {
        let prefix: [UInt8] = [0x02, 0x01, 0x01, 0x04, 0x20]
        guard let start = (0...(der.count - prefix.count - 32)).first(where: { Array(der[$0..<$0 + prefix.count]) == prefix }) else {
            return nil
        }
        return Array(der[(start + prefix.count)..<(start + prefix.count + 32)])
    }

    /// Lowercase hex, as PostgreSQL writes bytea.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Every row of every table of the database as JSON text (bytea as `\x` hex).
    static func everyRow(_ h: Harness) throws -> String {
        let tables = try h.rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'").map {
            try $0.decode(String.self, at: 0)
        }
        var text = ""
        for table in tables {
            // The names come from the catalogue of the test's own database.
            for row in try h.rows(PostgresQuery(unsafeSQL: "SELECT row_to_json(t)::text FROM \"\(table)\" t")) {
                text += try row.decode(String.self, at: 0) + "\n"
            }
        }
        return text
    }
}
