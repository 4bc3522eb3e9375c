import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Signatures
import Testing

/// sendVerificationEmail, verifyEmail and GATEHOUSE_VERIFY_EMAILS (contract: accounts.md).
@Suite struct EmailVerificationTests {
    static let send = """
        mutation S($input: SendVerificationEmailInput!) { sendVerificationEmail(input: $input) { ok } }
        """
    static let verify = """
        mutation V($input: VerifyEmailInput!) { verifyEmail(input: $input) { ok clientMutationId } }
        """

    static func send(_ h: Harness, _ email: String, address: String = "192.0.2.1") -> ExecutionResult {
        h.graphql(send, variables: ["input": ["email": .string(email)]], address: address)
    }

    static func verify(_ h: Harness, _ username: String, _ token: String) -> ExecutionResult {
        h.graphql(verify, variables: ["input": ["username": .string(username), "token": .string(token)]])
    }

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code!) \($0.message)" } }

    static func verified(_ h: Harness, _ username: String) throws -> Bool {
        try h.rows("SELECT email_verified FROM users WHERE username = \(username)").first!.decode(Bool.self, at: 0)
    }

    static func latestToken(_ h: Harness) throws -> String {
        try #require(try OutboxRow.latestToken(h, kind: "verify_email"))
    }

    static let invalid = "-1 Invalid or expired verification link."

    @Test func aVerificationLinkVerifiesAndMayBeRepeatedUntilItExpires() throws {
        let h = try Harness()
        _ = try h.signedUp("alice", email: "alice@example.com")
        #expect(try h.count("SELECT count(*) FROM mail_outbox") == 0, "mode off: no mail at sign-up")
        #expect(Self.send(h, "ALICE@example.com").data?["sendVerificationEmail"]?["ok"] == true)
        let mail = try #require(try OutboxRow.latest(h, kind: "verify_email"))
        #expect(mail.link?.hasPrefix("http://127.0.0.1:1337/verify-email?token=") == true)
        let token = try Self.latestToken(h)
        #expect(try h.count("SELECT count(*) FROM account_tokens WHERE token_digest = \(SHA256.digest(token))") == 1)
        let result = Self.verify(h, "alice", token)
        #expect(result.errors.isEmpty && result.data?["verifyEmail"]?["ok"] == true, "\(result.json)")
        #expect(try Self.verified(h, "alice"))
        #expect(Self.verify(h, "alice@example.com", token).errors.isEmpty, "again, by email, while it works")
        // Verified: no more mail.
        _ = Self.send(h, "alice@example.com")
        #expect(try h.count("SELECT count(*) FROM mail_outbox") == 1)
        h.clock.advance(by: 86_401)
        #expect(Self.error(Self.verify(h, "alice", token)) == Self.invalid)
    }

    @Test func errorsOfTheContract() throws {
        let h = try Harness()
        _ = try h.signedUp("bob", email: "bob@example.com")
        _ = try h.signedUp("carol", email: "carol@example.com")
        #expect(Self.error(Self.send(h, "")) == "204 you must provide an email")
        #expect(Self.send(h, "nobody@example.com").data?["sendVerificationEmail"]?["ok"] == true)
        #expect(try h.count("SELECT count(*) FROM mail_outbox") == 0)
        _ = Self.send(h, "bob@example.com")
        let token = try Self.latestToken(h)
        #expect(Self.error(Self.verify(h, "", token)) == "200 you must provide a username")
        #expect(Self.error(Self.verify(h, "bob", "")) == "-1 you must provide a token")
        #expect(Self.error(Self.verify(h, "bob", "unknown")) == Self.invalid)
        #expect(Self.error(Self.verify(h, "carol", token)) == Self.invalid, "another user's name")
        #expect(!(try Self.verified(h, "bob")))
    }

    @Test func aTokenForAnAddressTheUserNoLongerHasFails() throws {
        let h = try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey))
        _ = try h.signedUp("dave", email: "dave@example.com")
        _ = Self.send(h, "dave@example.com")
        let token = try Self.latestToken(h)
        let id = try h.rows("SELECT object_id FROM users WHERE username = 'dave'").first!.decode(String.self, at: 0)
        let changed = h.graphql(
            "mutation { updateUser(input: {id: \"\(id)\", fields: {email: \"dave@other.example\"}}) { user { email } } }",
            master: Harness.masterKey)
        #expect(changed.errors.isEmpty, "\(changed.json)")
        #expect(Self.error(Self.verify(h, "dave", token)) == Self.invalid)
    }

    @Test func modeOnSendsAtSignUp() throws {
        let h = try Harness(configuration: AuthConfiguration(accounts: AccountPolicy(verifyEmails: .on)))
        let viewer = try h.signedUp("erin", email: "erin@example.com")
        #expect(viewer["sessionToken"]?.stringValue != nil, "on: sign-up still gets a session")
        #expect(try OutboxRow.latest(h, kind: "verify_email")?.recipient == "erin@example.com")
        _ = try h.signedUp("frank")
        #expect(try h.count("SELECT count(*) FROM mail_outbox") == 1, "no email, no mail")
    }

    @Test func modeRequiredWithholdsSessionsUntilVerified() throws {
        let h = try Harness(configuration: AuthConfiguration(accounts: AccountPolicy(verifyEmails: .required)))
        let signUp = h.signUp(["username": "gina", "password": .string(Harness.password), "email": "gina@example.com"])
        #expect(Self.error(signUp) == "205 User email is not verified.")
        #expect(try h.count("SELECT count(*) FROM users WHERE username = 'gina'") == 1)
        #expect(try h.count("SELECT count(*) FROM sessions") == 0)
        #expect(Self.error(h.logIn("gina", "wrong password 1")) == "101 Invalid username/password.")
        #expect(Self.error(h.logIn("gina", Harness.password)) == "205 User email is not verified.")
        #expect(try h.count("SELECT count(*) FROM sessions") == 0)
        #expect(Self.verify(h, "gina", try Self.latestToken(h)).errors.isEmpty)
        _ = try h.loggedIn("gina")
        // Users without an email are not affected.
        _ = try h.signedUp("hank")
        _ = try h.loggedIn("hank")
    }
}
