import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Testing
import WebAuthnTestSupport

/// Who may add a second factor (TOTP or a passkey), what an enrolment does to the user's other
/// sessions, and which passkeys are second factors (contract: mfa.md): a session made without a
/// second factor enrols only for a user who has none; with `GATEHOUSE_MFA=required` an enrolment
/// ends the other sessions; a passkey whose authenticator did not verify its user (UV flag 0)
/// logs in, but not as a second factor.
@Suite struct SecondFactorEnrolmentTests {
    /// The harness's relying party, with an authenticator that checks only presence (a touch).
    static let touchOnly = SoftwareAuthenticator(origin: "http://127.0.0.1:1337", verifiesUser: false)
    static let revokeOtherSessions = "mutation { revokeOtherSessions(input: {}) { revoked } }"
    static let secondFactorRequired = "206 Second factor required."

    static func harness(_ mode: SecondFactorMode) throws -> Harness {
        try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey, mfa: mode))
    }

    /// Enrols TOTP for `account` with a code of now, from the session `token`; the whole result.
    static func enrolTOTP(_ h: Harness, _ account: TOTPLogInTests.Account, token: String) -> ExecutionResult {
        TOTPLogInTests.update(h, account.id, ["secret": .string(account.base32), "token": .string(account.code(h))], token: token)
    }

    /// Registers a touch-only passkey for the user of `token` (no errors expected).
    static func registeredTouchOnly(_ h: Harness, token: String) throws -> SoftwareCredential {
        let (credential, response) = try touchOnly.register(options: try PasskeyTests.registrationOptions(h, token: token))
        let result = PasskeyTests.register(h, response, name: "Security key", token: token)
        #expect(result.errors.isEmpty, "\(result.json)")
        return credential
    }

    /// Logs `username` in with the touch-only `credential`: the session token and its `createdWith`.
    static func touchOnlySession(_ h: Harness, _ username: String, _ credential: inout SoftwareCredential) throws -> (token: String, createdWith: JSON?) {
        let assertion = try touchOnly.assert(options: try PasskeyTests.loginOptions(h, username: username), credential: &credential)
        let result = PasskeyTests.logIn(h, assertion)
        let viewer = try #require(result.data?["logInWithPasskey"]?["viewer"], "\(result.json)")
        return (try #require(viewer["sessionToken"]?.stringValue), viewer["session"]?["createdWith"])
    }

    // MARK: Enrolment beside the user's own second factor

    /// Someone with the password of a user whose second factor is a passkey gets a session
    /// without a second factor; with it they may not enrol TOTP or a passkey of their own, which
    /// would make them a session with one.
    @Test(arguments: [SecondFactorMode.optional, .required])
    func aPasswordSessionCannotEnrolBesideTheUsersPasskey(mode: SecondFactorMode) throws {
        let h = try Self.harness(mode)
        let alice = try TOTPLogInTests.account(h)
        // Her first second factor: any session of hers may enrol it.
        var credential = try PasskeyTests.registered(h, token: alice.token)
        let passwordOnly = try h.loggedIn("alice")
        #expect(TOTPLogInTests.createdWith(h, passwordOnly)?["factors"] == ["password"])
        #expect(TOTPLogInTests.error(Self.enrolTOTP(h, alice, token: passwordOnly)) == Self.secondFactorRequired)
        #expect(PasskeyTests.error(h.graphql(PasskeyTests.registrationOptions, token: passwordOnly)) == Self.secondFactorRequired)
        // registerPasskey checks on its own, whichever session got the options.
        let withPasskey = try PasskeyTests.passkeySession(h, "alice", &credential)
        let (_, theirs) = try PasskeyTests.authenticator.register(options: try PasskeyTests.registrationOptions(h, token: withPasskey))
        #expect(PasskeyTests.error(PasskeyTests.register(h, theirs, token: passwordOnly)) == Self.secondFactorRequired)
        #expect(try h.count("SELECT count(*)::int FROM user_totp") == 0)
        #expect(try h.count("SELECT count(*)::int FROM passkeys") == 1)
        #expect(TOTPLogInTests.createdWith(h, passwordOnly)?["factors"] == ["password"])
        // A session made with the passkey may add TOTP.
        let enrolled = Self.enrolTOTP(h, alice, token: withPasskey)
        #expect(enrolled.errors.isEmpty, "\(enrolled.json)")
    }

    /// TOTP is a second factor of the user just as well: a session from before its enrolment
    /// (which has only the password) may not add a passkey; the session that enrolled may.
    @Test func aSessionFromBeforeTOTPCannotAddAPasskey() throws {
        let h = try Self.harness(.optional)
        let alice = try TOTPLogInTests.account(h)
        let before = try h.loggedIn("alice")
        _ = try TOTPLogInTests.enrol(h, alice)
        #expect(PasskeyTests.error(h.graphql(PasskeyTests.registrationOptions, token: before)) == Self.secondFactorRequired)
        _ = try PasskeyTests.registered(h, token: alice.token)
        #expect(try h.count("SELECT count(*)::int FROM passkeys") == 1)
    }

    /// With `GATEHOUSE_MFA=required` a session without a second factor cannot take the user's
    /// passkey away either (and then enrol its own as the only factor left).
    @Test func inRequiredModeASessionWithoutASecondFactorCannotRemoveAPasskey() throws {
        let h = try Self.harness(.required)
        let alice = try TOTPLogInTests.account(h)
        var credential = try PasskeyTests.registered(h, token: alice.token)
        let passwordOnly = try h.loggedIn("alice")
        let withPasskey = try PasskeyTests.passkeySession(h, "alice", &credential)
        let id = try #require(h.graphql(PasskeyTests.passkeys, token: withPasskey).data?["viewer"]?["passkeys"]?[0]?["id"]?.stringValue)
        #expect(PasskeyTests.error(h.graphql(PasskeyTests.remove, variables: ["input": ["id": .string(id)]], token: passwordOnly))
            == "206 Second factor enrolment required.")
        #expect(try h.count("SELECT count(*)::int FROM passkeys") == 1)
    }

    // MARK: Sessions an enrolment ends

    /// With `GATEHOUSE_MFA=required`, enrolling TOTP or a passkey ends every other session of the
    /// user (made before it, with less than the account now asks) and keeps the enrolling one.
    @Test func inRequiredModeAnEnrolmentEndsTheOtherSessions() throws {
        let h = try Self.harness(.required)
        let alice = try TOTPLogInTests.account(h)
        let other = try h.loggedIn("alice")
        _ = try TOTPLogInTests.enrol(h, alice)
        #expect(onlyError(h.viewer(token: other))?.code == 209)
        #expect(TOTPLogInTests.createdWith(h, alice.token)?["factors"] == ["password", "totp"])
        #expect(h.graphql(Self.revokeOtherSessions, token: alice.token).errors.isEmpty)

        h.clock.advance(by: 30)
        let withCode = try #require(TOTPLogInTests.sessionToken(TOTPLogInTests.logIn(h, alice.code(h))))
        _ = try PasskeyTests.registered(h, token: withCode)
        #expect(onlyError(h.viewer(token: alice.token))?.code == 209)
        #expect(h.viewer(token: withCode).errors.isEmpty)
        #expect(try h.count("SELECT count(*)::int FROM sessions") == 1)
    }

    /// In optional mode an enrolment leaves the other sessions to the user: the page offers
    /// `revokeOtherSessions` from the enrolling session.
    @Test func inOptionalModeAnEnrolmentLeavesTheOtherSessions() throws {
        let h = try Self.harness(.optional)
        let alice = try TOTPLogInTests.account(h)
        let other = try h.loggedIn("alice")
        _ = try TOTPLogInTests.enrol(h, alice)
        _ = try PasskeyTests.registered(h, token: alice.token)
        #expect(h.viewer(token: other).errors.isEmpty)
        #expect(h.graphql(Self.revokeOtherSessions, token: alice.token).data?["revokeOtherSessions"]?["revoked"] == 1)
        #expect(onlyError(h.viewer(token: other))?.code == 209)
    }

    // MARK: Passkeys without user verification

    /// A touch-only passkey logs in, but its session has no second factor: it cannot remove TOTP
    /// nor add a factor, and the passkey does not count among the user's second factors.
    @Test func aPasskeyWithoutUserVerificationIsNoSecondFactor() throws {
        let h = try Self.harness(.optional)
        let alice = try TOTPLogInTests.account(h)
        _ = try TOTPLogInTests.enrol(h, alice)
        var key = try Self.registeredTouchOnly(h, token: alice.token)
        #expect(try h.count("SELECT count(*)::int FROM passkeys WHERE NOT user_verified") == 1)
        let (token, createdWith) = try Self.touchOnlySession(h, "alice", &key)
        #expect(createdWith == ["action": "login", "authProvider": "passkey", "factors": ["passkey-unverified"]])
        #expect(TOTPLogInTests.error(TOTPLogInTests.update(h, alice.id, .null, token: token)) == "206 Recent authentication required.")
        #expect(PasskeyTests.error(h.graphql(PasskeyTests.registrationOptions, token: token)) == Self.secondFactorRequired)
        #expect(try h.count("SELECT count(*)::int FROM user_totp") == 1)
    }

    /// With `GATEHOUSE_MFA=required` a touch-only passkey's session is held back like a password's;
    /// since such a passkey is no second factor, that session may still enrol one.
    @Test func inRequiredModeAPasskeyWithoutUserVerificationDoesNotFreeTheSession() throws {
        let h = try Self.harness(.required)
        let alice = try TOTPLogInTests.account(h)
        var key = try Self.registeredTouchOnly(h, token: alice.token)
        let (token, createdWith) = try Self.touchOnlySession(h, "alice", &key)
        #expect(createdWith?["factors"] == ["passkey-unverified"])
        #expect(PasskeyTests.error(h.graphql(Self.revokeOtherSessions, token: token)) == "206 Second factor enrolment required.")
        let enrolled = Self.enrolTOTP(h, alice, token: token)
        #expect(enrolled.errors.isEmpty, "\(enrolled.json)")
        #expect(h.graphql(Self.revokeOtherSessions, token: token).errors.isEmpty)
    }
}
