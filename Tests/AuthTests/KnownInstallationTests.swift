import Auth
import Foundation
import GraphQL
import JSON
import Sodium
import Testing

/// Installation ids are the secret behind the owner's exemption from the per-account limit and
/// lockout: no one reads another session's id, and an installation is forgotten when its session
/// is revoked, when the password changes or a required second factor is enrolled (all but the
/// caller's) and on a reset.
@Suite struct KnownInstallationTests {
    /// Two attempts per account and network; the sessions are made from `elsewhere`, the
    /// guesses from the harness's default address.
    static let configuration = AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 2), masterKey: Harness.masterKey)
    static let elsewhere = "203.0.113.5"

    /// Fills alice's count from the default address, so that only a known installation is let in.
    static func reachTheLimit(_ h: Harness) {
        for _ in 0..<2 { #expect(onlyError(h.logIn("alice", "wrong"))?.code == 101) }
    }

    /// The right `password` from the installation, past the limit: nil when let in, else the error code.
    static func exemption(_ h: Harness, _ installationId: String, password: String = Harness.password) -> Int? {
        onlyError(h.logIn("alice", password, installationId: installationId))?.code
    }

    static let session = """
        query Session($id: ID!) { node(id: $id) { ... on Session { objectId installationId current } } }
        """

    @Test func onlyTheCallersOwnSessionShowsItsInstallationId() throws {
        let h = try Harness()
        let laptop = try #require(try h.signedUp("alice", installationId: "laptop")["sessionToken"]?.stringValue)
        h.clock.advance(by: 1)
        let phone = try h.loggedIn("alice", installationId: "phone")
        let listed = h.graphql(UserSessionsTests.sessions, token: laptop)
        #expect(listed.errors.isEmpty, "\(listed.json)")
        #expect(listed.data?["viewer"]?["sessions"]?.arrayValue?.map { $0["installationId"] } == [.null, "laptop"])
        #expect(listed.data?["viewer"]?["session"]?["installationId"] == "laptop")
        for (token, installationId) in [(phone, JSON.null), (laptop, "laptop")] {
            let id = GlobalID.encode(type: "_Session", id: try UserSessionsTests.sessionId(h, token))
            let node = h.graphql(Self.session, variables: ["id": .string(id)], token: laptop)
            #expect(node.data?["node"]?["installationId"] == installationId, "\(node.json)")
        }
        // The phone sees its own.
        let fromPhone = h.graphql(UserSessionsTests.sessions, token: phone)
        #expect(fromPhone.data?["viewer"]?["sessions"]?.arrayValue?.map { $0["installationId"] } == ["phone", .null])
    }

    /// The other sessions' installations, live or logged out, are forgotten; the caller's stays known.
    @Test func aPasswordChangeForgetsEveryOtherInstallation() throws {
        let h = try Harness(configuration: Self.configuration)
        AccountLimitTests.startWindow(h)
        let viewer = try h.signedUp("alice", installationId: "laptop")
        let laptop = try #require(viewer["sessionToken"]?.stringValue)
        _ = try h.loggedIn("alice", installationId: "phone", address: Self.elsewhere)
        let tablet = try h.loggedIn("alice", installationId: "tablet", address: Self.elsewhere)
        #expect(h.logOut(token: tablet).errors.isEmpty)
        let id = try #require(viewer["user"]?["objectId"]?.stringValue)
        let changed = AccountChangeTests.update(h, id, ["password": "brand new pass 1"], token: laptop)
        #expect(changed.errors.isEmpty, "\(changed.json)")
        Self.reachTheLimit(h)
        #expect(Self.exemption(h, "phone", password: "brand new pass 1") == 155)
        #expect(Self.exemption(h, "tablet", password: "brand new pass 1") == 155)
        #expect(Self.exemption(h, "laptop", password: "brand new pass 1") == nil)
    }

    @Test func revokingASessionForgetsItsInstallation() throws {
        let h = try Harness(configuration: Self.configuration)
        AccountLimitTests.startWindow(h)
        let laptop = try #require(try h.signedUp("alice", installationId: "laptop")["sessionToken"]?.stringValue)
        let phone = try h.loggedIn("alice", installationId: "phone", address: Self.elsewhere)
        let revoked = UserSessionsTests.revoke(h, try UserSessionsTests.sessionId(h, phone), token: laptop)
        #expect(revoked.errors.isEmpty, "\(revoked.json)")
        Self.reachTheLimit(h)
        #expect(Self.exemption(h, "phone") == 155)
        #expect(Self.exemption(h, "laptop") == nil)
    }

    @Test func revokingOtherSessionsForgetsEveryOtherInstallation() throws {
        let h = try Harness(configuration: Self.configuration)
        AccountLimitTests.startWindow(h)
        let laptop = try #require(try h.signedUp("alice", installationId: "laptop")["sessionToken"]?.stringValue)
        _ = try h.loggedIn("alice", installationId: "phone", address: Self.elsewhere)
        let tablet = try h.loggedIn("alice", installationId: "tablet", address: Self.elsewhere)
        #expect(h.logOut(token: tablet).errors.isEmpty)
        let revoked = h.graphql(UserSessionsTests.revokeOtherSessions, variables: ["input": [:]], token: laptop)
        #expect(revoked.data?["revokeOtherSessions"]?["revoked"] == 1, "\(revoked.json)")
        Self.reachTheLimit(h)
        #expect(Self.exemption(h, "phone") == 155)
        #expect(Self.exemption(h, "tablet") == 155)
        #expect(Self.exemption(h, "laptop") == nil)
    }

    /// With `GATEHOUSE_MFA=required` an enrolment (TOTP or a passkey) ends the user's other
    /// sessions and forgets their installations, live or logged out; the enrolling session's
    /// stays known.
    @Test(arguments: ["totp", "passkey"])
    func aRequiredEnrolmentForgetsEveryOtherInstallation(factor: String) throws {
        let h = try Harness(configuration: AuthConfiguration(
            rateLimits: Self.configuration.rateLimits, masterKey: Harness.masterKey, mfa: .required))
        AccountLimitTests.startWindow(h)
        let viewer = try h.signedUp("alice", installationId: "laptop")
        let laptop = try #require(viewer["sessionToken"]?.stringValue)
        let phone = try h.loggedIn("alice", installationId: "phone", address: Self.elsewhere)
        let tablet = try h.loggedIn("alice", installationId: "tablet", address: Self.elsewhere)
        #expect(h.logOut(token: tablet).errors.isEmpty)
        #expect(try h.count("SELECT count(*)::int FROM known_installations") == 3)
        if factor == "totp" {
            let id = try #require(viewer["user"]?["objectId"]?.stringValue)
            _ = try TOTPLogInTests.enrol(h, TOTPLogInTests.Account(id: id, token: laptop, secret: SecureRandom.bytes(20)))
        } else {
            _ = try PasskeyTests.registered(h, token: laptop)
        }
        #expect(onlyError(h.viewer(token: phone))?.code == 209)
        #expect(try h.count("SELECT count(*)::int FROM known_installations") == 1)
        #expect(try h.count("""
            SELECT count(*)::int FROM known_installations WHERE installation_digest = sha256(convert_to('laptop', 'UTF8'))
            """) == 1)
        if factor == "passkey" {
            // The password alone logs in a user whose second factor is a passkey: the exemption shows.
            Self.reachTheLimit(h)
            #expect(Self.exemption(h, "phone") == 155)
            #expect(Self.exemption(h, "laptop") == nil)
        }
    }

    @Test func aResetForgetsEveryInstallation() throws {
        let h = try Harness(configuration: Self.configuration)
        AccountLimitTests.startWindow(h)
        _ = try h.signedUp("alice", email: "alice@example.com", installationId: "laptop")
        #expect(PasswordResetTests.reset(h, "alice@example.com").errors.isEmpty)
        let token = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        #expect(PasswordResetTests.confirm(h, "alice", "brand new pass 1", token).errors.isEmpty)
        Self.reachTheLimit(h)
        #expect(Self.exemption(h, "laptop", password: "brand new pass 1") == 155)
    }
}
