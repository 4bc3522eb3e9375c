import Auth
import Foundation
import JSON
import Mail
import OneTimeCodes
import Postgres
import Sodium
import Testing
import WebAuthnTestSupport

/// Security notices through the outbox (docs/operators.md): each sent once, in the language of
/// the request that made the change, saying from where; none for the first session ever, none
/// with `GATEHOUSE_SECURITY_NOTICES=off`.
@Suite struct SecurityNoticeTests {
    static func harness(notices: Bool = true) throws -> Harness {
        var configuration = AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 0), masterKey: Harness.masterKey)
        configuration.securityNotices = notices
        return try Harness(configuration: configuration)
    }

    /// The security notices in the outbox, oldest first: kind, recipient, language and occurrence.
    static func notices(_ h: Harness) throws -> [(kind: String, recipient: String, language: String, occurrence: NoticeOccurrence?)] {
        try OutboxStore(pool: h.pool).newest(limit: 100).reversed()
            .filter { MailKind(rawValue: $0.message.kind)?.isSecurityNotice == true }
            .map { ($0.message.kind, $0.message.recipient, $0.message.language, $0.message.occurrence) }
    }

    static func logIn(
        _ h: Harness, _ name: String, password: String = Harness.password, userAgent: String?, address: String = "192.0.2.1",
        language: String? = nil, mfa: String? = nil
    ) -> ExecutionResultSummary {
        var input: JSONObject = ["username": .string(name), "password": .string(password)]
        if let mfa { input["authData"] = ["mfa": ["token": .string(mfa)]] }
        let result = h.graphql(
            Queries.logIn, variables: ["input": .object(input)], address: address, acceptLanguage: language, userAgent: userAgent)
        return ExecutionResultSummary(token: result.data?["logIn"]?["viewer"]?["sessionToken"]?.stringValue, json: "\(result.json)")
    }

    struct ExecutionResultSummary {
        let token: String?
        let json: String
    }

    @Test func aSignInFromANewDeviceIsToldOnceButNotTheFirstSessionEver() throws {
        let h = try Self.harness()
        let signUp = h.graphql(
            Queries.signUp, variables: ["input": ["fields": ["username": "alice", "password": .string(Harness.password), "email": "alice@example.com"]]],
            address: "192.0.2.1", userAgent: "Laptop/1.0")
        #expect(signUp.errors.isEmpty, "\(signUp.json)")
        // The first session ever, then the same device again (another address of its /24): nothing.
        #expect(Self.logIn(h, "alice", userAgent: "Laptop/1.0", address: "192.0.2.77").token != nil)
        #expect(try Self.notices(h).isEmpty)

        // Another browser: told once, in the request's language, with where from.
        #expect(Self.logIn(h, "alice", userAgent: "Phone/2.0", language: "fr-CA,fr;q=0.9").token != nil)
        #expect(Self.logIn(h, "alice", userAgent: "Phone/2.0", language: "fr").token != nil)
        var notices = try Self.notices(h)
        #expect(notices.map(\.kind) == ["new_device_sign_in"])
        #expect(notices.first?.recipient == "alice@example.com" && notices.first?.language == "fr")
        #expect(notices.first?.occurrence?.address == "192.0.2.1" && notices.first?.occurrence?.device == "Phone/2.0")

        // The laptop on another network: new again.
        #expect(Self.logIn(h, "alice", userAgent: "Laptop/1.0", address: "198.51.100.4", language: "ko").token != nil)
        notices = try Self.notices(h)
        #expect(notices.map(\.kind) == ["new_device_sign_in", "new_device_sign_in"])
        #expect(notices.last?.language == "ko")

        // A device not seen for 90 days is new again; one seen within them is not.
        h.clock.advance(by: 89 * 86_400)
        #expect(Self.logIn(h, "alice", userAgent: "Laptop/1.0").token != nil)
        #expect(try Self.notices(h).count == 2)
        h.clock.advance(by: 2 * 86_400)
        #expect(Self.logIn(h, "alice", userAgent: "Phone/2.0").token != nil)
        #expect(try Self.notices(h).count == 3)
    }

    /// A sign-in from a device seen within the hour only reads its row: neither updates nor locks
    /// it (a lock would give the sighting a transaction id, and its commit a WAL flush to wait
    /// for); after the hour the sighting is written again.
    @Test func aDeviceSeenWithinTheHourIsOnlyRead() throws {
        let h = try Self.harness()
        _ = try h.signedUp("ann")
        func device() throws -> (xmin: String, xmax: String, seen: Date) {
            let row = try #require(try h.rows("SELECT xmin::text, xmax::text, last_seen_at FROM user_devices").first)
            return (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1), try row.decode(Date.self, at: 2))
        }
        let signedUp = try device()
        #expect(Self.logIn(h, "ann", userAgent: nil).token != nil)
        let loggedIn = try device()
        #expect(loggedIn.xmin == signedUp.xmin && loggedIn.xmax == "0" && loggedIn.seen == signedUp.seen)
        h.clock.advance(by: 2 * 3600)
        #expect(Self.logIn(h, "ann", userAgent: nil).token != nil)
        #expect(try device().seen > signedUp.seen)
    }

    @Test func aUserWhoseFirstSessionIsALogInIsNotToldOfIt() throws {
        let h = try Self.harness()
        // Made by the master key without a session of its own.
        let created = h.graphql(
            "mutation { signUp(input: {fields: {username: \"bob\", password: \"correct horse battery staple\", email: \"bob@example.com\"}}) { viewer { sessionToken } } }",
            master: Harness.masterKey, userAgent: "Admin/1.0")
        #expect(created.errors.isEmpty)
        try h.execute("DELETE FROM user_devices")
        #expect(Self.logIn(h, "bob", userAgent: "Phone/2.0").token != nil)
        #expect(try Self.notices(h).isEmpty)
        #expect(Self.logIn(h, "bob", userAgent: "Tablet/3.0").token != nil)
        #expect(try Self.notices(h).map(\.kind) == ["new_device_sign_in"])
    }

    @Test func twoStepOnAndOffAndARecoveryCodeUsedAreToldOnce() throws {
        let h = try Self.harness()
        let viewer = try h.signedUp("dave", email: "dave@example.com")
        let dave = TOTPLogInTests.Account(
            id: try #require(viewer["user"]?["objectId"]?.stringValue), token: try #require(viewer["sessionToken"]?.stringValue),
            secret: SecureRandom.bytes(20))
        let codes = try TOTPLogInTests.enrol(h, dave)
        #expect(try Self.notices(h).map(\.kind) == ["two_step_enabled"])
        // A TOTP code is no notice; a recovery code is.
        h.clock.advance(by: 30)
        #expect(Self.logIn(h, "dave", userAgent: nil, mfa: dave.code(h)).token != nil)
        #expect(try Self.notices(h).map(\.kind) == ["two_step_enabled"])
        let recovered = Self.logIn(h, "dave", userAgent: nil, language: "es", mfa: codes[0])
        #expect(recovered.token != nil, "\(recovered.json)")
        #expect(try Self.notices(h).map(\.kind) == ["two_step_enabled", "recovery_code_used"])
        #expect(try Self.notices(h).last?.language == "es")
        let removed = TOTPLogInTests.update(h, dave.id, .null, token: nil, master: true)
        #expect(removed.errors.isEmpty, "\(removed.json)")
        #expect(try Self.notices(h).map(\.kind) == ["two_step_enabled", "recovery_code_used", "two_step_disabled"])
        // Removing it again removes nothing, and tells nothing.
        _ = TOTPLogInTests.update(h, dave.id, .null, token: nil, master: true)
        #expect(try Self.notices(h).count == 3)
    }

    @Test func aPasskeyAddedOrRemovedIsToldOnce() throws {
        let h = try Self.harness()
        let viewer = try h.signedUp("erin", email: "erin@example.com")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        _ = try PasskeyTests.registered(h, token: token)
        #expect(try Self.notices(h).map(\.kind) == ["passkey_added"])
        let listed = h.graphql(PasskeyTests.passkeys, token: token)
        let id = try #require(listed.data?["viewer"]?["passkeys"]?[0]?["id"]?.stringValue)
        let removed = h.graphql(PasskeyTests.remove, variables: ["input": ["id": .string(id)]], token: token)
        #expect(removed.errors.isEmpty, "\(removed.json)")
        #expect(try Self.notices(h).map(\.kind) == ["passkey_added", "passkey_removed"])
    }

    @Test func theAccountDisabledIsTold() throws {
        let h = try Self.harness()
        let viewer = try h.signedUp("fay", email: "fay@example.com")
        let id = try #require(viewer["user"]?["objectId"]?.stringValue)
        let disabled = h.graphql(OperatorTests.disable, variables: ["id": .string(id)], master: Harness.masterKey, acceptLanguage: "es")
        #expect(disabled.errors.isEmpty)
        #expect(try Self.notices(h).map { "\($0.kind) \($0.recipient) \($0.language)" } == ["account_disabled fay@example.com es"])
    }

    @Test func noticesOffSendsNone() throws {
        let h = try Self.harness(notices: false)
        let viewer = try h.signedUp("gus", email: "gus@example.com")
        let gus = TOTPLogInTests.Account(
            id: try #require(viewer["user"]?["objectId"]?.stringValue), token: try #require(viewer["sessionToken"]?.stringValue),
            secret: SecureRandom.bytes(20))
        #expect(Self.logIn(h, "gus", userAgent: "Other/1.0", address: "203.0.113.9").token != nil)
        _ = try TOTPLogInTests.enrol(h, gus)
        _ = h.graphql(OperatorTests.disable, variables: ["id": .string(gus.id)], master: Harness.masterKey)
        #expect(try Self.notices(h).isEmpty)
        #expect(try h.count("SELECT count(*) FROM user_devices") == 0)
    }
}
