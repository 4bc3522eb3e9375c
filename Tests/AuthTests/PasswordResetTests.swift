import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Signatures
import Testing

/// resetPassword and confirmResetPassword (contract: accounts.md), with the mail read from the outbox.
@Suite struct PasswordResetTests {
    static let resetPassword = """
        mutation R($input: ResetPasswordInput!) { resetPassword(input: $input) { ok clientMutationId } }
        """
    static let confirm = """
        mutation C($input: ConfirmResetPasswordInput!) { confirmResetPassword(input: $input) { ok } }
        """

    static func reset(_ h: Harness, _ email: String, address: String = "192.0.2.1") -> ExecutionResult {
        h.graphql(resetPassword, variables: ["input": ["email": .string(email)]], address: address)
    }

    static func confirm(_ h: Harness, _ username: String, _ password: String, _ token: String) -> ExecutionResult {
        h.graphql(confirm, variables: ["input": ["username": .string(username), "password": .string(password), "token": .string(token)]])
    }

    @Test func aResetLinkSetsANewPasswordOnceAndEndsEverySession() throws {
        let h = try Harness()
        let signUpToken = try #require(try h.signedUp("alice", email: "Alice@Example.com")["sessionToken"]?.stringValue)
        let other = try h.loggedIn("alice", installationId: "phone")
        let result = Self.reset(h, "alice@example.COM")
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data?["resetPassword"]?["ok"] == true)
        let mail = try #require(try OutboxRow.latest(h, kind: "reset_password"))
        #expect(mail.recipient == "Alice@Example.com" && mail.username == "alice" && mail.language == "en")
        let link = try #require(mail.link)
        #expect(link.hasPrefix("http://127.0.0.1:1337/reset-password?token="))
        #expect(link.hasSuffix("&username=alice"))
        let token = try #require(OutboxRow.token(in: link))
        #expect(token.count >= 43, "at least 256 bits")
        // Stored only as its digest.
        #expect(try h.count("SELECT count(*) FROM account_tokens WHERE token_digest = \(SHA256.digest(token))") == 1)
        let dump = try h.rows("SELECT row_to_json(t)::text FROM account_tokens t").map { try $0.decode(String.self, at: 0) }
        #expect(!dump.contains { $0.contains(token) })

        let confirmed = Self.confirm(h, "alice", "new password 11", token)
        #expect(confirmed.errors.isEmpty, "\(confirmed.json)")
        #expect(confirmed.data?["confirmResetPassword"]?["ok"] == true)
        #expect(onlyError(h.logIn("alice", Harness.password))?.code == 101)
        let fresh = try h.loggedIn("alice", "new password 11")
        for old in [signUpToken, other] { #expect(onlyError(h.viewer(token: old))?.code == 209) }
        #expect(h.viewer(token: fresh).data?["viewer"]?["user"]?["emailVerified"] == true, "the link proved the mailbox")
        #expect(try OutboxRow.latest(h, kind: "password_changed")?.recipient == "Alice@Example.com")
        // Used up.
        #expect(onlyError(Self.confirm(h, "alice", "another pass 11", token))?.message
            == "Failed to reset password: username / email / token is invalid")
    }

    @Test func errorsOfTheContract() throws {
        let h = try Harness()
        _ = try h.signedUp("bob", email: "bob@example.com")
        _ = try h.signedUp("carol", email: "carol@example.com")
        #expect(onlyError(Self.reset(h, "")).map { "\($0.code!) \($0.message)" } == "204 you must provide an email")
        #expect(Self.reset(h, "nobody@example.com").data?["resetPassword"]?["ok"] == true)
        #expect(try h.count("SELECT count(*) FROM mail_outbox") == 0, "an unknown email gets nothing")
        _ = Self.reset(h, "bob@example.com")
        let token = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        let invalid = "-1 Failed to reset password: username / email / token is invalid"
        func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code!) \($0.message)" } }
        #expect(error(Self.confirm(h, "", "new password 11", token)) == "200 you must provide a username")
        #expect(error(Self.confirm(h, "bob", "", token)) == "201 you must provide a password")
        #expect(error(Self.confirm(h, "bob", "new password 11", "")) == "-1 you must provide a token")
        #expect(error(Self.confirm(h, "bob", "new password 11", "not-a-token")) == invalid)
        #expect(error(Self.confirm(h, "carol", "new password 11", token)) == invalid, "another user's name")
        #expect(error(Self.confirm(h, "bob", "short", token))?.hasPrefix("142 ") == true)
        #expect(error(Self.confirm(h, "bob", "password", token)) == "142 Password is too common.")
        // A new link replaces the previous one.
        _ = Self.reset(h, "bob@example.com")
        let second = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        #expect(second != token)
        #expect(error(Self.confirm(h, "bob", "new password 11", token)) == invalid)
        // Expired.
        h.clock.advance(by: 3601)
        #expect(error(Self.confirm(h, "bob@example.com", "new password 11", second)) == "-1 The password reset link has expired")
    }

    /// An unknown address costs the same write as a known one (the request is counted either
    /// way), and only its digest is kept.
    @Test func unknownAddressesAreCountedLikeKnownOnes() throws {
        let h = try Harness()
        _ = try h.signedUp("zoe", email: "zoe@example.com")
        for email in ["zoe@example.com", "Nobody@Example.com"] { _ = Self.reset(h, email) }
        #expect(try h.count("SELECT count(*) FROM mail_requests WHERE kind = 'reset_password'") == 2)
        #expect(try h.count("SELECT count(*) FROM mail_requests WHERE address_digest = \(SHA256.digest("nobody@example.com"))") == 1)
        #expect(try h.count("SELECT count(*) FROM mail_outbox") == 1)
        for _ in 0..<3 { _ = Self.reset(h, "nobody@example.com") }
        #expect(try h.count("SELECT count(*) FROM mail_requests WHERE address_digest = \(SHA256.digest("nobody@example.com"))") == 4)
    }

    /// The mail speaks the language of the request that caused it.
    @Test(arguments: [("fr-CA,fr;q=0.9,en;q=0.5", "fr"), ("ko", "ko"), ("es-MX", "es"), ("de-DE", "en"), (nil, "en")] as [(String?, String)])
    func theMailsLanguageIsTheRequests(_ acceptLanguage: String?, _ language: String) throws {
        let h = try Harness()
        _ = try h.signedUp("lea", email: "lea@example.com")
        _ = h.graphql(Self.resetPassword, variables: ["input": ["email": "lea@example.com"]], acceptLanguage: acceptLanguage)
        #expect(try OutboxRow.latest(h, kind: "reset_password")?.language == language)
    }

    /// resetPassword, sendVerificationEmail and confirmResetPassword count against the client
    /// address limit, as signUp does.
    @Test func linkMutationsCountAgainstTheAddressLimit() throws {
        let h = try Harness(configuration: AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: 3)))
        _ = Self.reset(h, "a@example.com", address: "198.51.100.7")
        _ = EmailVerificationTests.send(h, "a@example.com", address: "198.51.100.7")
        _ = h.graphql(Self.confirm, variables: ["input": ["username": "a", "password": "new password 11", "token": "x"]], address: "198.51.100.7")
        #expect(onlyError(Self.reset(h, "a@example.com", address: "198.51.100.7"))?.code == 155)
        #expect(Self.reset(h, "a@example.com", address: "198.51.100.8").errors.isEmpty, "another address")
    }

    /// A reset link proves the mailbox it was sent to and nothing else: after an email change it
    /// no longer works, so it cannot mark the new, unproven address verified (nor let the old
    /// mailbox back in), and its pending mail is not delivered.
    @Test func anEmailChangeVoidsTheResetLinksSentBefore() throws {
        let h = try Harness()
        let mallory = try AccountChangeTests.account(h, "mallory", email: "mallory@evil.example")
        _ = Self.reset(h, "mallory@evil.example")
        let token = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        let changed = AccountChangeTests.update(h, mallory.id, ["email": "ceo@victim.example"], token: mallory.token)
        #expect(changed.errors.isEmpty, "\(changed.json)")
        #expect(onlyError(Self.confirm(h, "mallory", "new password 11", token))?.message
            == "Failed to reset password: username / email / token is invalid")
        #expect(h.viewer(token: mallory.token).data?["viewer"]?["user"]?["emailVerified"] == false)
        _ = try h.loggedIn("mallory")
        #expect(try h.count("SELECT count(*) FROM account_tokens") == 0)
        #expect(try h.count("SELECT count(*) FROM mail_outbox WHERE kind = 'reset_password' AND state = 'pending'") == 0)
        // Back to the first address: the link stays void.
        #expect(AccountChangeTests.update(h, mallory.id, ["email": "mallory@evil.example"], token: mallory.token).errors.isEmpty)
        #expect(onlyError(Self.confirm(h, "mallory", "new password 11", token))?.code == -1)
    }

    /// The token is bound to the address it was sent to, however the user's address changes (an
    /// operator's SQL, an import): it works only while that is the user's email, ignoring case.
    @Test func aResetLinkWorksOnlyForTheAddressItWasSentTo() throws {
        let h = try Harness()
        _ = try h.signedUp("nina", email: "nina@example.com")
        _ = Self.reset(h, "nina@example.com")
        let token = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        func verified() throws -> Bool {
            try h.count("SELECT count(*) FROM users WHERE username = 'nina' AND email_verified") == 1
        }
        try h.execute("UPDATE users SET email = 'nina@elsewhere.example' WHERE username = 'nina'")
        #expect(onlyError(Self.confirm(h, "nina", "new password 11", token))?.message
            == "Failed to reset password: username / email / token is invalid")
        #expect(try !verified())
        try h.execute("UPDATE users SET email = 'NINA@Example.com' WHERE username = 'nina'")
        let confirmed = Self.confirm(h, "nina", "new password 11", token)
        #expect(confirmed.errors.isEmpty, "\(confirmed.json)")
        #expect(try verified())
    }

    @Test func twoConcurrentUsesOfOneTokenOneWins() throws {
        let h = try Harness()
        _ = try h.signedUp("dave", email: "dave@example.com")
        _ = Self.reset(h, "dave@example.com")
        let token = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        let results = try #require(simultaneously(4) { i in Self.confirm(h, "dave", "winner pass \(i)x", token) })
        let winners = results.enumerated().filter { $0.element.errors.isEmpty }.map(\.offset)
        #expect(winners.count == 1, "\(results.map(\.json))")
        #expect(results.filter { onlyError($0)?.code == -1 }.count == 3)
        _ = try h.loggedIn("dave", "winner pass \(winners[0])x")
    }

    @Test func atMostThreeMessagesOfOneKindPerAddressPerHour() throws {
        let h = try Harness()
        _ = try h.signedUp("erin", email: "erin@example.com")
        for _ in 0..<5 { #expect(Self.reset(h, "ERIN@example.com").data?["resetPassword"]?["ok"] == true) }
        #expect(try h.count("SELECT count(*) FROM mail_outbox WHERE kind = 'reset_password'") == 3)
        h.clock.advance(by: 3601)
        _ = Self.reset(h, "erin@example.com")
        #expect(try h.count("SELECT count(*) FROM mail_outbox WHERE kind = 'reset_password'") == 4)
    }
}

/// A row of the mail outbox, as tests read it.
struct OutboxRow {
    var kind: String
    var recipient: String
    var username: String
    var language: String
    /// The link, opened from its seal with the harness's key.
    var link: String?

    /// The newest message of `kind`.
    static func latest(_ h: Harness, kind: String) throws -> OutboxRow? {
        try h.rows("""
            SELECT kind, recipient, username, language, sealed_link FROM mail_outbox WHERE kind = \(kind) ORDER BY id DESC LIMIT 1
            """).first.map { row in
                OutboxRow(
                    kind: try row.decode(String.self, at: 0), recipient: try row.decode(String.self, at: 1),
                    username: try row.decode(String.self, at: 2), language: try row.decode(String.self, at: 3),
                    link: try row.decode([UInt8]?.self, at: 4).map { String(decoding: try #require(h.linkBox.open($0)), as: UTF8.self) })
            }
    }

    /// The token of the newest message of `kind`'s link.
    static func latestToken(_ h: Harness, kind: String) throws -> String? {
        try latest(h, kind: kind)?.link.flatMap(token(in:))
    }

    /// The `token` query value of a link.
    static func token(in link: String) -> String? {
        URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value
    }
}
