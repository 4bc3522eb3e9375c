import Auth
import Foundation
import JSON
import Postgres
import Sodium
import Signatures
import Testing

/// The outbox keeps a link mail's link sealed under the server's key: a read of the database
/// (a dump, a replica) gives no token away, and only that key opens it.
@Suite struct SealedMailLinkTests {
    static let sendVerification = "mutation V($e: String!) { sendVerificationEmail(input: {email: $e}) { ok } }"

    /// Every row of the outbox as JSON, bytea as hex.
    static func dump(_ h: Harness) throws -> [String] {
        try h.rows("SELECT row_to_json(m)::text FROM mail_outbox m").map { try $0.decode(String.self, at: 0) }
    }

    @Test(arguments: ["reset_password", "verify_email"])
    func theOutboxRowHoldsNoToken(kind: String) throws {
        let h = try Harness()
        _ = try h.signedUp("alice", email: "alice@example.com")
        let result = kind == "reset_password"
            ? PasswordResetTests.reset(h, "alice@example.com")
            : h.graphql(Self.sendVerification, variables: ["e": "alice@example.com"])
        #expect(result.errors.isEmpty, "\(result.json)")
        let token = try #require(try OutboxRow.latestToken(h, kind: kind))
        let link = try #require(try OutboxRow.latest(h, kind: kind)?.link)
        let hex = Array(token.utf8).map { String($0, radix: 16) }.joined()
        let dump = try Self.dump(h)
        #expect(dump.count == 1)
        #expect(!dump.contains { $0.contains(token) || $0.contains(hex) || $0.contains("token=") })
        // What is stored instead: the token's digest (as account_tokens has it) and the link's expiry.
        #expect(try h.count("SELECT count(*) FROM mail_outbox WHERE token_digest = \(SHA256.digest(token))") == 1)
        #expect(try h.count("SELECT count(*) FROM mail_outbox WHERE link_expires_at > created_at") == 1)
        #expect(link.contains("token=\(token)"))
    }

    /// Another key, or the same key for another purpose (TOTP secrets), cannot open the link.
    @Test func onlyTheServersLinkKeyOpensIt() throws {
        let h = try Harness()
        _ = try h.signedUp("alice", email: "alice@example.com")
        _ = PasswordResetTests.reset(h, "alice@example.com")
        let sealed = try #require(try h.rows("SELECT sealed_link FROM mail_outbox").first?.decode([UInt8].self, at: 0))
        #expect(h.linkBox.open(sealed) != nil)
        #expect(try SecretBox(secretKey: SecretBox.newSecretKey(), purpose: .mailLinks).open(sealed) == nil)
    }

    /// A server without the key cannot send a link mail at all rather than store the link as it is.
    @Test func withoutAKeyALinkMailIsAnInternalErrorAndNothingIsStored() throws {
        let h = try Harness()
        _ = try h.signedUp("alice", email: "alice@example.com")
        let keyless = AuthService(pool: h.pool, hashing: h.hashing)
        let error = #expect(throws: AuthError.self) {
            try keyless.accounts.resetPassword(email: "alice@example.com", request: AuthRequest(clientAddress: "192.0.2.1"))
        }
        guard case .internalError(let detail)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(detail.contains("GATEHOUSE_SECRET_KEY"))
        #expect(try Self.dump(h).isEmpty)
        #expect(try h.count("SELECT count(*) FROM account_tokens") == 0)
    }
}
