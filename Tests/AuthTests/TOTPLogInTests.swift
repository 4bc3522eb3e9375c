import Auth
import OneTimeCodes
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Testing

/// TOTP second factors with recovery codes (contract: mfa.md): enrolment, log-in with a code or a
/// recovery code, single use under concurrency, regeneration, removal, `GATEHOUSE_MFA`, and
/// `createdWith.factors`. Codes come from `TOTP` at the harness's clock.
@Suite struct TOTPLogInTests {
    static let update = """
        mutation U($input: UpdateUserInput!) {
          updateUser(input: $input) { user { objectId username authData authDataResponse } }
        }
        """
    static let viewer = """
        query { viewer { user { authData authDataResponse } session { createdWith } } }
        """

    /// A user who signed up, with an enrolment secret of 160 random bits.
    struct Account {
        let id: String
        let token: String
        let secret: [UInt8]
        var base32: String { Base32.encode(secret) }
        func code(_ h: Harness, offset: TimeInterval = 0) -> String {
            TOTP(secret: secret).code(at: h.clock.now().addingTimeInterval(offset))
        }
    }

    static func account(_ h: Harness, _ name: String = "alice") throws -> Account {
        let viewer = try h.signedUp(name)
        return Account(
            id: try #require(viewer["user"]?["objectId"]?.stringValue), token: try #require(viewer["sessionToken"]?.stringValue),
            secret: SecureRandom.bytes(20))
    }

    static func update(_ h: Harness, _ id: String, _ mfa: JSON, token: String?, master: Bool = false, currentPassword: String? = nil) -> ExecutionResult {
        var input: JSONObject = ["id": .string(id), "fields": ["authData": ["mfa": mfa]]]
        if let currentPassword { input["currentPassword"] = .string(currentPassword) }
        return h.graphql(update, variables: ["input": .object(input)], token: token, master: master ? Harness.masterKey : nil)
    }

    /// Enrols `account` with a code of now; the recovery codes.
    static func enrol(_ h: Harness, _ account: Account, token: String? = nil) throws -> [String] {
        let result = update(h, account.id, ["secret": .string(account.base32), "token": .string(account.code(h))], token: token ?? account.token)
        let codes = result.data?["updateUser"]?["user"]?["authDataResponse"]?["mfa"]?["recovery"]?.arrayValue?.compactMap(\.stringValue)
        return try #require(codes, "\(result.json)")
    }

    static func logIn(_ h: Harness, _ token: String?, name: String = "alice", password: String = Harness.password) -> ExecutionResult {
        h.logIn(name, password, authData: token.map { ["mfa": ["token": .string($0)]] })
    }

    static func sessionToken(_ result: ExecutionResult) -> String? {
        result.data?["logIn"]?["viewer"]?["sessionToken"]?.stringValue
    }

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code!) \($0.message)" } }

    static func createdWith(_ h: Harness, _ token: String) -> JSON? {
        h.graphql(viewer, token: token).data?["viewer"]?["session"]?["createdWith"]
    }

    // MARK: Enrolment

    @Test func enrolmentAnswersTenRecoveryCodesOnceAndNeverTheSecret() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        let codes = try Self.enrol(h, alice)
        #expect(codes.count == 10 && Set(codes).count == 10)
        for code in codes {
            #expect(code.count == 11 && code.split(separator: "-").map(\.count) == [5, 5], "\(code)")
            #expect(code.allSatisfy { $0 == "-" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
        }
        let read = h.graphql(Self.viewer, token: alice.token)
        #expect(read.data?["viewer"]?["user"]?["authData"] == ["mfa": ["status": "enabled"]], "\(read.json)")
        #expect(read.data?["viewer"]?["user"]?["authDataResponse"] == .null)
        // Stored sealed: neither the secret nor its base32 is in the row; recovery codes as digests only.
        let row = try #require(try h.rows("SELECT sealed_secret FROM user_totp WHERE user_id = \(alice.id)").first)
        let sealed = try row.decode([UInt8].self, at: 0)
        #expect(sealed.count == 24 + 20 + 16)
        #expect(!(0...(sealed.count - 20)).contains { Array(sealed[$0..<($0 + 20)]) == alice.secret })
        #expect(try h.count("SELECT count(*) FROM user_recovery_codes WHERE user_id = \(alice.id)") == 10)
        for code in codes {
            let plain: [UInt8] = Array(code.utf8)
            #expect(try h.count("SELECT count(*) FROM user_recovery_codes WHERE code_digest = \(plain)") == 0)
        }
        // A log-in never returns the secret either.
        h.clock.advance(by: 30)
        let logIn = Self.logIn(h, alice.code(h))
        #expect(logIn.data?["logIn"]?["viewer"]?["user"]?["authData"] == ["mfa": ["status": "enabled"]], "\(logIn.json)")
        #expect(!logIn.json.description.contains(alice.base32))
        #expect(!h.capturedLogs.joined().contains(alice.base32))
    }

    @Test func enrolmentErrors() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        let bob = try Self.account(h, "bob")
        let code = JSON.string(alice.code(h))
        let secret = JSON.string(alice.base32)
        #expect(Self.error(Self.update(h, alice.id, ["secret": secret, "token": code], token: nil)) == "206 Cannot modify user \(alice.id).")
        #expect(Self.error(Self.update(h, alice.id, ["secret": secret, "token": code], token: bob.token)) == "206 Insufficient auth.")
        // 142: shorter than 32 characters, not base32, missing.
        #expect(Self.error(Self.update(h, alice.id, ["secret": .string(String(alice.base32.prefix(31))), "token": code], token: alice.token))
            == "142 Invalid MFA secret")
        #expect(Self.error(Self.update(h, alice.id, ["secret": .string(String(alice.base32.dropLast()) + "1"), "token": code], token: alice.token))
            == "142 Invalid MFA secret")
        #expect(Self.error(Self.update(h, alice.id, ["token": code], token: alice.token)) == "142 Invalid MFA secret")
        #expect(Self.error(Self.update(h, alice.id, "yes", token: alice.token)) == "142 Invalid MFA secret")
        // 141: a wrong, missing or out-of-window code.
        #expect(Self.error(Self.update(h, alice.id, ["secret": secret, "token": "000000"], token: alice.token)) == "141 Invalid MFA token"
            || alice.code(h) == "000000")
        #expect(Self.error(Self.update(h, alice.id, ["secret": secret], token: alice.token)) == "141 Invalid MFA token")
        #expect(Self.error(Self.update(h, alice.id, ["secret": secret, "token": .string(alice.code(h, offset: 90))], token: alice.token))
            == "141 Invalid MFA token")
        #expect(try h.count("SELECT count(*) FROM user_totp") == 0)
        // Recent authentication: an old session needs currentPassword.
        h.clock.advance(by: 301)
        #expect(Self.error(Self.update(h, alice.id, ["secret": secret, "token": .string(alice.code(h))], token: alice.token))
            == "206 Recent authentication required.")
        let withPassword = Self.update(
            h, alice.id, ["secret": secret, "token": .string(alice.code(h))], token: alice.token, currentPassword: Harness.password)
        #expect(withPassword.errors.isEmpty, "\(withPassword.json)")
    }

    @Test func mfaOffRefusesEnrolmentAndCodesWith252() throws {
        let h = try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey, mfa: .off))
        let alice = try Self.account(h)
        #expect(Self.error(Self.update(h, alice.id, ["secret": .string(alice.base32), "token": .string(alice.code(h))], token: alice.token))
            == "252 This authentication method is unsupported.")
        #expect(Self.error(Self.logIn(h, "123456")) == "252 This authentication method is unsupported.")
    }

    // MARK: Log-in

    @Test func logInNeedsTheCodeAfterTheRightPassword() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        _ = try Self.enrol(h, alice)
        h.clock.advance(by: 30)
        // A wrong password is 101 whatever the code (nothing tells whether TOTP is enrolled).
        #expect(Self.error(Self.logIn(h, alice.code(h), password: "wrong password 1")) == "101 Invalid username/password.")
        #expect(Self.error(Self.logIn(h, nil, password: "wrong password 1")) == "101 Invalid username/password.")
        #expect(Self.error(Self.logIn(h, nil)) == "-1 Missing additional authData mfa")
        #expect(Self.error(h.logIn("alice", Harness.password, authData: ["mfa": [:]])) == "-1 Missing additional authData mfa")
        #expect(Self.error(h.logIn("alice", Harness.password, authData: ["mfa": ["token": 123456]])) == "141 Invalid MFA token")
        #expect(Self.error(Self.logIn(h, alice.code(h, offset: 60))) == "141 Invalid MFA token")
        #expect(Self.error(Self.logIn(h, "abcde-12345")) == "141 Invalid recovery code.")
        // Another provider beside mfa stays unsupported.
        #expect(Self.error(h.logIn("alice", Harness.password, authData: ["mfa": ["token": .string(alice.code(h))], "google": [:]]))
            == "252 This authentication method is unsupported.")
        let result = Self.logIn(h, alice.code(h))
        let token = try #require(Self.sessionToken(result), "\(result.json)")
        #expect(Self.createdWith(h, token) == ["action": "login", "authProvider": "password", "factors": ["password", "totp"]])
        // A user without TOTP logs in as before, and an mfa code is ignored for them.
        _ = try Self.account(h, "bob")
        let bob = try #require(Self.sessionToken(Self.logIn(h, nil, name: "bob")))
        #expect(Self.createdWith(h, bob) == ["action": "login", "authProvider": "password", "factors": ["password"]])
        #expect(Self.sessionToken(Self.logIn(h, "123456", name: "bob")) != nil)
    }

    @Test func aCodeWorksOnceAndTheEnrolmentCodeNotAtAll() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        let enrolCode = alice.code(h)
        _ = try Self.enrol(h, alice)
        #expect(Self.error(Self.logIn(h, enrolCode)) == "141 Invalid MFA token", "the enrolment used its step")
        h.clock.advance(by: 30)
        let code = alice.code(h)
        #expect(Self.sessionToken(Self.logIn(h, code)) != nil)
        #expect(Self.error(Self.logIn(h, code)) == "141 Invalid MFA token", "replay")
        // An earlier step's code, still inside the drift window, is refused after a later one was used.
        h.clock.advance(by: 30)
        let next = alice.code(h)
        #expect(Self.sessionToken(Self.logIn(h, alice.code(h, offset: 30))) != nil, "a code one step early")
        #expect(Self.error(Self.logIn(h, next)) == "141 Invalid MFA token", "older than the last accepted")
    }

    @Test func aProviderLogInNeedsTheCodeToo() throws {
        let h = try Harness()
        let guest = try ProviderLogInTests.guest(h, "device-1")
        let account = Account(id: guest.id, token: guest.token, secret: SecureRandom.bytes(20))
        _ = try Self.enrol(h, account)
        func logInWith(_ mfa: JSON?) -> ExecutionResult {
            var authData: JSONObject = ["anonymous": ["id": "device-1"]]
            if let mfa { authData["mfa"] = mfa }
            return ProviderLogInTests.logInWith(h, authData)
        }
        #expect(Self.error(logInWith(nil)) == "-1 Missing additional authData mfa")
        #expect(Self.error(logInWith(["token": "abcde-12345"])) == "141 Invalid recovery code.")
        h.clock.advance(by: 30)
        let result = logInWith(["token": .string(account.code(h))])
        let token = try #require(result.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue, "\(result.json)")
        #expect(Self.createdWith(h, token) == ["action": "login", "authProvider": "anonymous", "factors": ["anonymous", "totp"]])
        // mfa is no provider: alone it names none.
        #expect(Self.error(ProviderLogInTests.logInWith(h, ["mfa": ["token": "123456"]])) == "252 This authentication method is unsupported.")
    }

    @Test func ofConcurrentLogInsWithOneCodeExactlyOneWins() throws {
        let h = try Harness(configuration: AuthConfiguration(
            rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 0), masterKey: Harness.masterKey), poolSize: 8)
        let alice = try Self.account(h)
        _ = try Self.enrol(h, alice)
        for round in 0..<3 {
            h.clock.advance(by: 30)
            let code = alice.code(h)
            let results = try #require(simultaneously(6) { _ in Self.logIn(h, code) })
            #expect(results.count { Self.sessionToken($0) != nil } == 1, "round \(round)")
            #expect(results.count { Self.error($0) == "141 Invalid MFA token" } == 5, "round \(round)")
        }
    }

    @Test func aRecoveryCodeWorksOnceInPlaceOfTheCode() throws {
        let h = try Harness(configuration: AuthConfiguration(
            rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 0), masterKey: Harness.masterKey), poolSize: 8)
        let alice = try Self.account(h)
        let codes = try Self.enrol(h, alice)
        let token = try #require(Self.sessionToken(Self.logIn(h, codes[0])))
        #expect(Self.createdWith(h, token)?["factors"] == ["password", "totp"])
        #expect(Self.error(Self.logIn(h, codes[0])) == "141 Invalid recovery code.")
        #expect(try h.count("SELECT count(*) FROM user_recovery_codes") == 9)
        // Concurrently, too: one of them.
        let results = try #require(simultaneously(4) { _ in Self.logIn(h, codes[1]) })
        #expect(results.count { Self.sessionToken($0) != nil } == 1)
        // Another user's code is not this user's.
        let bob = try Self.account(h, "bob")
        let bobCodes = try Self.enrol(h, bob)
        #expect(Self.error(Self.logIn(h, bobCodes[0])) == "141 Invalid recovery code.")
    }

    @Test func wrongCodesCountForLockout() throws {
        let h = try Harness(configuration: AuthConfiguration(
            lockout: LockoutPolicy(threshold: 3, durationMinutes: 5), masterKey: Harness.masterKey))
        let alice = try Self.account(h)
        _ = try Self.enrol(h, alice)
        h.clock.advance(by: 30)
        for _ in 0..<3 { #expect(Self.error(Self.logIn(h, "abcde-12345")) == "141 Invalid recovery code.") }
        let locked = "101 Your account is locked due to multiple failed login attempts. Please try again after 5 minute(s)"
        #expect(Self.error(Self.logIn(h, alice.code(h))) == locked)
    }

    @Test func wrongCodesCountForTheAccountRateLimit() throws {
        let h = try Harness(configuration: AuthConfiguration(
            rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 3), masterKey: Harness.masterKey))
        let alice = try Self.account(h)
        _ = try Self.enrol(h, alice)
        for _ in 0..<3 { #expect(Self.error(Self.logIn(h, "abcde-12345")) == "141 Invalid recovery code.") }
        #expect(onlyError(Self.logIn(h, alice.code(h, offset: 30)))?.code == 155)
    }

    // MARK: Regeneration and removal

    @Test func regeneratingReplacesTheRecoveryCodes() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        let old = try Self.enrol(h, alice)
        h.clock.advance(by: 30)
        #expect(Self.error(Self.update(h, alice.id, ["token": "000000", "recovery": true], token: alice.token)) == "141 Invalid MFA token"
            || alice.code(h) == "000000")
        let result = Self.update(h, alice.id, ["token": .string(alice.code(h)), "recovery": true], token: alice.token)
        let recovery = result.data?["updateUser"]?["user"]?["authDataResponse"]?["mfa"]?["recovery"]?.arrayValue
        let strings = recovery?.compactMap(\.stringValue)
        let codes = try #require(strings, "\(result.json)")
        #expect(codes.count == 10 && Set(codes).isDisjoint(with: old))
        #expect(Self.error(Self.logIn(h, old[0])) == "141 Invalid recovery code.")
        #expect(Self.sessionToken(Self.logIn(h, codes[0])) != nil)
        // Not enrolled: nothing to regenerate.
        let bob = try Self.account(h, "bob")
        #expect(Self.error(Self.update(h, bob.id, ["token": "123456", "recovery": true], token: bob.token)) == "141 Invalid MFA token")
        // Recent authentication.
        h.clock.advance(by: 301)
        #expect(Self.error(Self.update(h, alice.id, ["token": .string(alice.code(h)), "recovery": true], token: alice.token))
            == "206 Recent authentication required.")
    }

    @Test func removalNeedsASessionMadeWithTheSecondFactor() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        let passwordOnly = try h.loggedIn("alice")
        _ = try Self.enrol(h, alice)
        // The enrolling session has shown the factor; another password-only session has not.
        #expect(Self.createdWith(h, alice.token)?["factors"] == ["password", "totp"])
        #expect(Self.createdWith(h, passwordOnly)?["factors"] == ["password"])
        #expect(Self.error(Self.update(h, alice.id, .null, token: passwordOnly)) == "206 Recent authentication required.")
        #expect(Self.error(Self.update(h, alice.id, .null, token: passwordOnly, currentPassword: Harness.password))
            == "206 Recent authentication required.")
        // Re-enrolling (replacing the secret) needs such a session too, as any enrolment of a user
        // who has a second factor.
        let other = Account(id: alice.id, token: passwordOnly, secret: SecureRandom.bytes(20))
        #expect(Self.error(Self.update(h, alice.id, ["secret": .string(other.base32), "token": .string(other.code(h))], token: passwordOnly))
            == "206 Second factor required.")
        // A session made with a code, but no longer recent.
        h.clock.advance(by: 30)
        let withCode = try #require(Self.sessionToken(Self.logIn(h, alice.code(h))))
        h.clock.advance(by: 301)
        #expect(Self.error(Self.update(h, alice.id, .null, token: withCode)) == "206 Recent authentication required.")
        let removed = Self.update(h, alice.id, .null, token: withCode, currentPassword: Harness.password)
        #expect(removed.errors.isEmpty, "\(removed.json)")
        #expect(removed.data?["updateUser"]?["user"]?["authData"] == .null)
        #expect(try h.count("SELECT count(*) FROM user_totp") + h.count("SELECT count(*) FROM user_recovery_codes") == 0)
        #expect(Self.sessionToken(Self.logIn(h, nil)) != nil)
    }

    @Test func theMasterKeyMayRemoveIt() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        _ = try Self.enrol(h, alice)
        #expect(Self.update(h, alice.id, .null, token: nil, master: true).errors.isEmpty)
        #expect(Self.sessionToken(Self.logIn(h, nil)) != nil)
    }

    @Test func deletingTheUserDeletesTheSecondFactor() throws {
        let h = try Harness()
        let alice = try Self.account(h)
        _ = try Self.enrol(h, alice)
        #expect(AccountChangeTests.delete(h, alice.id, token: alice.token).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM user_totp") + h.count("SELECT count(*) FROM user_recovery_codes") == 0)
    }

    // MARK: GATEHOUSE_MFA=required

    @Test func requiredModeLetsASessionWithoutASecondFactorOnlyEnrol() throws {
        let h = try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey, mfa: .required))
        let alice = try Self.account(h)
        let enrolmentRequired = "206 Second factor enrolment required."
        #expect(h.viewer(token: alice.token).errors.isEmpty)
        #expect(Self.error(AccountChangeTests.update(h, alice.id, ["username": "alice2"], token: alice.token)) == enrolmentRequired)
        #expect(Self.error(AccountChangeTests.update(
            h, alice.id, ["username": "alice2", "authData": ["mfa": ["secret": .string(alice.base32), "token": .string(alice.code(h))]]],
            token: alice.token)) == enrolmentRequired, "enrolment only, nothing else with it")
        #expect(Self.error(AccountChangeTests.delete(h, alice.id, token: alice.token)) == enrolmentRequired)
        #expect(Self.error(h.graphql("query($id: ID!) { user(id: $id) { username } }", variables: ["id": .string(alice.id)], token: alice.token))
            == enrolmentRequired)
        #expect(Self.error(h.graphql("mutation { revokeOtherSessions(input: {}) { revoked } }", token: alice.token)) == enrolmentRequired)
        // The master key is not held back.
        #expect(AccountChangeTests.update(h, alice.id, ["username": "alice2"], master: true).errors.isEmpty)
        // Enrolling frees the enrolling session; a log-in now needs the code and is free too.
        _ = try Self.enrol(h, alice)
        #expect(AccountChangeTests.update(h, alice.id, ["username": "alice3"], token: alice.token).errors.isEmpty)
        h.clock.advance(by: 30)
        let token = try #require(Self.sessionToken(Self.logIn(h, alice.code(h), name: "alice3")))
        #expect(h.graphql("mutation { revokeOtherSessions(input: {}) { revoked } }", token: token).errors.isEmpty)
        #expect(h.logOut(token: token).errors.isEmpty)
    }

    @Test func sessionsStoredWithoutFactorsReadAsTheirProvider() throws {
        let h = try Harness()
        _ = try Self.account(h)
        let token = try h.loggedIn("alice")
        try h.execute("UPDATE sessions SET created_with = created_with - 'factors'")
        #expect(Self.createdWith(h, token) == ["action": "login", "authProvider": "password", "factors": ["password"]])
    }
}
