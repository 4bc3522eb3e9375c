import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Testing

/// `GATEHOUSE_VERIFY_EMAILS=required` on every kind of log-in (contract: accounts.md, `required`
/// mode): after each successful authentication (a password and its code, a provider and its code,
/// a passkey) a user whose email is not verified gets 205 and no session; a provider's new user
/// who gave an email gets its verification mail and no session. Users without an email (a guest,
/// as usual) are not affected. The password path itself: EmailVerificationTests.
@Suite struct VerifiedEmailLogInTests {
    static let unverified = "205 User email is not verified."

    static func harness() throws -> Harness {
        try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey, accounts: AccountPolicy(verifyEmails: .required)))
    }

    static func sessions(_ h: Harness) throws -> Int { try h.count("SELECT count(*)::int FROM sessions") }

    /// Gives the user `id` the address `email` (unverified, with a verification mail) from its session `token`.
    static func changeEmail(_ h: Harness, _ id: String, _ email: String, token: String) {
        let result = AccountChangeTests.update(h, id, ["email": .string(email)], token: token)
        #expect(result.errors.isEmpty, "\(result.json)")
    }

    @Test func aProviderSignUpWithAnEmailGetsNoSessionUntilItIsVerified() throws {
        let h = try Self.harness()
        let signUp = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]], fields: ["email": "guest@example.com"])
        #expect(ProviderLogInTests.error(signUp) == Self.unverified)
        #expect(try h.count("SELECT count(*)::int FROM users WHERE email = 'guest@example.com' AND NOT email_verified") == 1)
        #expect(try Self.sessions(h) == 0)
        let mail = try #require(try OutboxRow.latest(h, kind: "verify_email"))
        #expect(mail.recipient == "guest@example.com")
        // The id is linked now: its log-ins are refused the same way until the link is followed.
        #expect(ProviderLogInTests.error(ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]])) == Self.unverified)
        #expect(try Self.sessions(h) == 0)
        #expect(EmailVerificationTests.verify(h, mail.username, try EmailVerificationTests.latestToken(h)).errors.isEmpty)
        let verified = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]])
        #expect(verified.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue != nil, "\(verified.json)")
        // No email, or one the master key says is verified: nothing is withheld.
        _ = try ProviderLogInTests.guest(h, "device-2")
        let given = ProviderLogInTests.logInWith(
            h, ["anonymous": ["id": "device-3"]], fields: ["email": "known@example.com", "emailVerified": true], master: true)
        #expect(given.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue != nil, "\(given.json)")
    }

    @Test func aLinkedUserWhoseEmailIsNotVerifiedGetsNoSession() throws {
        let h = try Self.harness()
        let guest = try ProviderLogInTests.guest(h, "device-1")
        Self.changeEmail(h, guest.id, "guest@example.com", token: guest.token)
        #expect(ProviderLogInTests.error(ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]])) == Self.unverified)
        #expect(try Self.sessions(h) == 1, "the guest's first session only")
    }

    @Test func aPasskeyLogInOfAUserWhoseEmailIsNotVerifiedGetsNoSession() throws {
        let h = try Self.harness()
        let alice = try PasskeyTests.user(h, "alice")
        var credential = try PasskeyTests.registered(h, token: alice.token)
        Self.changeEmail(h, alice.id, "alice@example.com", token: alice.token)
        let assertion = try PasskeyTests.authenticator.assert(options: try PasskeyTests.loginOptions(h, username: "alice"), credential: &credential)
        #expect(PasskeyTests.error(PasskeyTests.logIn(h, assertion)) == Self.unverified)
        #expect(try Self.sessions(h) == 1)
        #expect(EmailVerificationTests.verify(h, "alice", try EmailVerificationTests.latestToken(h)).errors.isEmpty)
        _ = try PasskeyTests.passkeySession(h, "alice", &credential)
        #expect(try Self.sessions(h) == 2)
    }

    /// With TOTP, the check follows the code: a password and code, or a provider and code.
    @Test func theCheckFollowsTheSecondFactor() throws {
        let h = try Self.harness()
        let alice = try TOTPLogInTests.account(h)
        _ = try TOTPLogInTests.enrol(h, alice)
        Self.changeEmail(h, alice.id, "alice@example.com", token: alice.token)
        let guest = try ProviderLogInTests.guest(h, "device-1")
        let account = TOTPLogInTests.Account(id: guest.id, token: guest.token, secret: SecureRandom.bytes(20))
        _ = try TOTPLogInTests.enrol(h, account)
        Self.changeEmail(h, guest.id, "guest@example.com", token: guest.token)
        h.clock.advance(by: 30)

        #expect(TOTPLogInTests.error(TOTPLogInTests.logIn(h, nil)) == "-1 Missing additional authData mfa")
        #expect(TOTPLogInTests.error(TOTPLogInTests.logIn(h, alice.code(h))) == Self.unverified)
        let logInWith = { (mfa: JSON?) in
            var authData: JSONObject = ["anonymous": ["id": "device-1"]]
            if let mfa { authData["mfa"] = mfa }
            return ProviderLogInTests.logInWith(h, authData)
        }
        #expect(ProviderLogInTests.error(logInWith(nil)) == "-1 Missing additional authData mfa")
        #expect(ProviderLogInTests.error(logInWith(["token": .string(account.code(h))])) == Self.unverified)
        #expect(try Self.sessions(h) == 2, "alice's and the guest's first sessions only")
    }
}
