import Auth
import Foundation
import GraphQL
import JSON
import Mail
import Postgres
import ServerTestSupport
import Testing

/// The ways into an account and what changes them (contract: providers.md, accounts.md): a
/// provider link needs a recent authentication and is told to the owner; a guest's anonymous id
/// is no way into a regular account; a reset that confirms an address for the first time ends
/// every way in added before (account pre-hijacking).
@Suite struct SignInMethodTests {
    /// The sign-in changes of the newest outbox message of `kind`, as stored, and its recipient.
    static func notice(_ h: Harness, kind: String) throws -> (changes: [SignInChange], recipient: String)? {
        try OutboxStore(pool: h.pool).newest(limit: 50).map(\.message).first { $0.kind == kind }.map { ($0.signInChanges, $0.recipient) }
    }

    static func count(_ h: Harness, kind: String) throws -> Int {
        try h.count("SELECT count(*)::int FROM mail_outbox WHERE kind = \(kind)")
    }

    /// The victim's reset of `email`: the link from the outbox, confirmed with a new password.
    static func reset(_ h: Harness, _ email: String, password: String = "the victim's own 1") throws {
        _ = PasswordResetTests.reset(h, email)
        let token = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        let confirmed = PasswordResetTests.confirm(h, email, password, token)
        #expect(confirmed.errors.isEmpty, "\(confirmed.json)")
    }

    static func google(_ provider: OIDCTestProvider, _ subject: String) throws -> JSONObject {
        ["authData": .object(try ProviderTokenTests.authData(provider, subject: subject))]
    }

    static func authData(_ h: Harness, token: String) -> JSON? {
        h.graphql(ProviderLogInTests.viewer, token: token).data?["viewer"]?["user"]?["authData"]
    }

    // MARK: Account pre-hijacking (a reset that confirms the address)

    /// The attacker signs up with the victim's address before the victim does, links a Google
    /// account and registers a passkey. The victim, told the address is taken, resets the
    /// password through the mailbox: neither way in works for the attacker any more, and the
    /// mail after the reset says what was removed.
    @Test func aResetThatConfirmsTheAddressEndsTheWaysInAddedBefore() throws {
        let provider = try OIDCTestProvider.start()
        let h = try ProviderTokenTests.harness(provider)
        let mallory = try AccountChangeTests.account(h, "mallory", email: "victim@corp.example")
        let linked = ProviderLogInTests.update(h, mallory.id, try Self.google(provider, "g-mallory"), token: mallory.token)
        #expect(linked.errors.isEmpty, "\(linked.json)")
        var passkey = try PasskeyTests.registered(h, token: mallory.token)
        func logInWithPasskey() throws -> ExecutionResult {
            PasskeyTests.logIn(h, try PasskeyTests.authenticator.assert(options: try PasskeyTests.loginOptions(h, username: nil), credential: &passkey))
        }
        #expect(try logInWithPasskey().data?["logInWithPasskey"]?["viewer"]?["user"]?["objectId"]?.stringValue == mallory.id)

        try Self.reset(h, "victim@corp.example")
        #expect(PasskeyTests.error(try logInWithPasskey()) == "101 Invalid passkey.")
        #expect(ProviderTokenTests.userId(ProviderLogInTests.logInWith(h, try ProviderTokenTests.authData(provider, subject: "g-mallory")))
            != mallory.id)
        #expect(onlyError(h.viewer(token: mallory.token))?.code == 209)
        #expect(onlyError(h.logIn("mallory", Harness.password))?.code == 101)
        let victim = try h.loggedIn("victim@corp.example", "the victim's own 1")
        #expect(Self.authData(h, token: victim) == .null)
        #expect(h.viewer(token: victim).data?["viewer"]?["user"]?["emailVerified"] == true)
        #expect(try h.count("SELECT count(*)::int FROM passkeys") == 0)
        let notice = try #require(try Self.notice(h, kind: "sign_in_methods_removed"))
        #expect(notice.recipient == "victim@corp.example")
        #expect(notice.changes == [.providerRemoved("google"), .passkeysRemoved(1)])
        #expect(try OutboxRow.latest(h, kind: "password_changed")?.recipient == "victim@corp.example")
    }

    /// A guest (`logInWith` anonymous) that gave the victim's address: its device id no longer
    /// logs into the account once the victim has reset the password.
    @Test func aGuestWithTheVictimsAddressLosesItsIdAtTheReset() throws {
        let h = try Harness()
        let result = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "attacker-device"]], fields: ["email": "victim@corp.example"])
        let guestId = try #require(result.data?["logInWith"]?["viewer"]?["user"]?["objectId"]?.stringValue, "\(result.json)")
        try Self.reset(h, "victim@corp.example")
        #expect(try ProviderLogInTests.guest(h, "attacker-device").id != guestId)
        #expect(try Self.notice(h, kind: "sign_in_methods_removed")?.changes == [.guestAccessRemoved])
    }

    /// TOTP enrolled before the reset stays: a reset proves a mailbox, and a mailbox alone must
    /// never pass a second factor (whoever reads the owner's mail would otherwise take TOTP off
    /// an account whose address was never verified). The mail says it stays on.
    @Test func aResetKeepsTwoStepVerificationAndSaysSo() throws {
        let h = try Harness()
        let result = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]], fields: ["email": "victim@corp.example"])
        let viewer = try #require(result.data?["logInWith"]?["viewer"], "\(result.json)")
        let account = TOTPLogInTests.Account(
            id: try #require(viewer["user"]?["objectId"]?.stringValue), token: try #require(viewer["sessionToken"]?.stringValue),
            secret: Array(repeating: 7, count: 20))
        _ = try TOTPLogInTests.enrol(h, account)
        try Self.reset(h, "victim@corp.example")
        #expect(onlyError(h.logIn("victim@corp.example", "the victim's own 1"))?.message == "Missing additional authData mfa")
        #expect(try Self.notice(h, kind: "sign_in_methods_removed")?.changes == [.guestAccessRemoved, .twoStepVerificationKept])
    }

    /// An address verified before proves nothing new: its owner added the other ways in, which stay.
    @Test func aResetOfAVerifiedAddressKeepsTheOtherWaysIn() throws {
        let provider = try OIDCTestProvider.start()
        let h = try ProviderTokenTests.harness(provider)
        let alice = try AccountChangeTests.account(h, "alice", email: "alice@example.com")
        #expect(AccountChangeTests.update(h, alice.id, ["emailVerified": true], master: true).errors.isEmpty)
        #expect(ProviderLogInTests.update(h, alice.id, try Self.google(provider, "g-alice"), token: alice.token).errors.isEmpty)
        try Self.reset(h, "alice@example.com")
        #expect(ProviderTokenTests.userId(ProviderLogInTests.logInWith(h, try ProviderTokenTests.authData(provider, subject: "g-alice")))
            == alice.id)
        #expect(try Self.count(h, kind: "sign_in_methods_removed") == 0)
    }

    // MARK: The guest's anonymous id

    /// A guest given another way in (a provider, a passkey, a password at a reset) is a regular
    /// user: its device's id no longer logs into the account.
    @Test func aGuestGivenAnotherWayInLosesItsAnonymousId() throws {
        let provider = try OIDCTestProvider.start()
        let h = try ProviderTokenTests.harness(provider)
        let linking = try ProviderLogInTests.guest(h, "device-1")
        #expect(ProviderLogInTests.update(h, linking.id, try Self.google(provider, "g-guest"), token: linking.token).errors.isEmpty)
        #expect(Self.authData(h, token: linking.token) == ["google": ["id": "g-guest"]])
        #expect(try ProviderLogInTests.guest(h, "device-1").id != linking.id)

        let registering = try ProviderLogInTests.guest(h, "device-2")
        _ = try PasskeyTests.registered(h, token: registering.token)
        #expect(Self.authData(h, token: registering.token) == .null)
        #expect(try ProviderLogInTests.guest(h, "device-2").id != registering.id)

        // A guest whose address is verified already: the reset sets a password and ends the id.
        let result = ProviderLogInTests.logInWith(
            h, ["anonymous": ["id": "device-3"]], fields: ["email": "guest@example.com", "emailVerified": true], master: true)
        let resetting = try #require(result.data?["logInWith"]?["viewer"]?["user"]?["objectId"]?.stringValue, "\(result.json)")
        try Self.reset(h, "guest@example.com")
        #expect(try ProviderLogInTests.guest(h, "device-3").id != resetting)
        #expect(try Self.count(h, kind: "sign_in_methods_removed") == 0)
    }

    /// An anonymous id is a guest's only way in: a regular account cannot take one (it would be
    /// a password-less way into it), while a guest may change its own.
    @Test func anAnonymousIdCannotBeLinkedToARegularAccount() throws {
        let h = try Harness()
        let alice = try AccountChangeTests.account(h, "alice")
        #expect(ProviderLogInTests.error(ProviderLogInTests.update(h, alice.id, ["authData": ["anonymous": ["id": "a1"]]], token: alice.token))
            == "142 An anonymous id can only be linked to a guest account.")
        #expect(try ProviderLogInTests.guest(h, "a1").id != alice.id)
        let guest = try ProviderLogInTests.guest(h, "g1")
        #expect(ProviderLogInTests.update(h, guest.id, ["authData": ["anonymous": ["id": "g2"]]], token: guest.token).errors.isEmpty)
        #expect(try ProviderLogInTests.guest(h, "g2").id == guest.id)
    }

    // MARK: Linking and unlinking

    /// A stolen old session cannot add a way in: linking, replacing and unlinking a provider need
    /// a recent authentication, as an email change does, and each change is mailed to the owner.
    @Test func providerChangesNeedRecentAuthenticationAndAreToldToTheOwner() throws {
        let provider = try OIDCTestProvider.start()
        let h = try ProviderTokenTests.harness(provider)
        let alice = try AccountChangeTests.account(h, "alice", email: "alice@example.com")
        h.clock.advance(by: 301)
        let link = try Self.google(provider, "g-mallory")
        #expect(ProviderLogInTests.error(ProviderLogInTests.update(h, alice.id, link, token: alice.token))
            == "206 Recent authentication required.")
        #expect(try h.count("SELECT count(*)::int FROM user_identities") == 0)
        #expect(try Self.count(h, kind: "sign_in_changed") == 0)

        let added = ProviderLogInTests.update(h, alice.id, link, token: alice.token, currentPassword: Harness.password)
        #expect(added.errors.isEmpty, "\(added.json)")
        #expect(try Self.notice(h, kind: "sign_in_changed")?.changes == [.providerAdded("google")])
        #expect(try Self.notice(h, kind: "sign_in_changed")?.recipient == "alice@example.com")

        let fresh = try h.loggedIn("alice")
        #expect(ProviderLogInTests.update(h, alice.id, try Self.google(provider, "g-alice"), token: fresh).errors.isEmpty)
        #expect(try Self.notice(h, kind: "sign_in_changed")?.changes == [.providerReplaced("google")])
        // The id it has already: nothing changes, nothing is sent.
        #expect(ProviderLogInTests.update(h, alice.id, try Self.google(provider, "g-alice"), token: fresh).errors.isEmpty)
        #expect(try Self.count(h, kind: "sign_in_changed") == 2)

        h.clock.advance(by: 301)
        #expect(ProviderLogInTests.error(ProviderLogInTests.update(h, alice.id, ["authData": ["google": .null]], token: fresh))
            == "206 Recent authentication required.")
        #expect(ProviderTokenTests.userId(ProviderLogInTests.logInWith(h, try ProviderTokenTests.authData(provider, subject: "g-alice")))
            == alice.id)
        let removed = ProviderLogInTests.update(h, alice.id, ["authData": ["google": .null]], token: fresh, currentPassword: Harness.password)
        #expect(removed.errors.isEmpty, "\(removed.json)")
        #expect(try Self.notice(h, kind: "sign_in_changed")?.changes == [.providerRemoved("google")])
        #expect(try Self.count(h, kind: "sign_in_changed") == 3)
    }

    /// With an email change in the same request, the notice goes to the address the owner had.
    @Test func theNoticeOfALinkGoesToTheAddressBeforeAnEmailChange() throws {
        let provider = try OIDCTestProvider.start()
        let h = try ProviderTokenTests.harness(provider)
        let alice = try AccountChangeTests.account(h, "alice", email: "alice@example.com")
        var fields = try Self.google(provider, "g-alice")
        fields["email"] = "alice@new.example"
        #expect(ProviderLogInTests.update(h, alice.id, fields, token: alice.token).errors.isEmpty)
        #expect(try Self.notice(h, kind: "sign_in_changed")?.recipient == "alice@example.com")
    }
}
