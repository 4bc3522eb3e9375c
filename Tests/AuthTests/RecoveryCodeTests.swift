import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Signatures
import Testing

/// Recovery codes as people type them: one case, no look-alike characters, accepted in any case
/// and with or without the dash; codes issued in mixed case keep working exactly as issued; and a
/// wrong one is refused as a recovery code, not as an app's code.
@Suite struct RecoveryCodeTests {
    static func harness() throws -> Harness {
        try Harness(configuration: AuthConfiguration(rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 0), masterKey: Harness.masterKey))
    }

    @Test func codesAreLowerCaseWithoutLookAlikes() throws {
        let h = try Self.harness()
        let alice = try TOTPLogInTests.account(h)
        let codes = try TOTPLogInTests.enrol(h, alice)
        // Digits and lower-case letters but 0, 1, i, l, o (and u).
        let alphabet = Set("23456789abcdefghjkmnpqrstvwxyz")
        for code in codes {
            let groups = code.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.map(\.count) == [5, 5] && groups.joined().allSatisfy(alphabet.contains), "\(code)")
        }
    }

    @Test func aCodeIsAcceptedInAnyCaseWithOrWithoutTheDash() throws {
        let h = try Self.harness()
        let alice = try TOTPLogInTests.account(h)
        let codes = try TOTPLogInTests.enrol(h, alice)
        let typed = [
            codes[0].uppercased(), codes[1].replacingOccurrences(of: "-", with: ""),
            codes[2].uppercased().replacingOccurrences(of: "-", with: ""), codes[3],
        ]
        for code in typed {
            let result = TOTPLogInTests.logIn(h, code)
            #expect(TOTPLogInTests.sessionToken(result) != nil, "\(code): \(result.json)")
        }
        // Each is used up, whichever way it was typed.
        #expect(TOTPLogInTests.error(TOTPLogInTests.logIn(h, codes[1])) == "141 Invalid recovery code.")
        #expect(TOTPLogInTests.error(TOTPLogInTests.logIn(h, codes[2].uppercased())) == "141 Invalid recovery code.")
        #expect(try h.count("SELECT count(*)::int FROM user_recovery_codes") == 6)
    }

    /// A code issued from `[A-Za-z0-9]` is stored as the digest of its exact text: it works as
    /// issued, with or without the dash, and not in another case (which its digest cannot tell).
    @Test func mixedCaseCodesIssuedEarlierStillWorkAsIssued() throws {
        let h = try Self.harness()
        let alice = try TOTPLogInTests.account(h)
        _ = try TOTPLogInTests.enrol(h, alice)
        for issued in ["AbCdE-12345", "XyZ0O-lI1aB"] {
            let digest = SHA256.digest("\(alice.id):\(issued)")
            try h.execute("INSERT INTO user_recovery_codes (user_id, code_digest) VALUES (\(alice.id), \(digest))")
        }
        #expect(TOTPLogInTests.error(TOTPLogInTests.logIn(h, "abcde-12345")) == "141 Invalid recovery code.")
        #expect(TOTPLogInTests.sessionToken(TOTPLogInTests.logIn(h, "AbCdE-12345")) != nil)
        #expect(TOTPLogInTests.sessionToken(TOTPLogInTests.logIn(h, "XyZ0OlI1aB")) != nil)
        #expect(try h.count("SELECT count(*)::int FROM user_recovery_codes") == 10)
    }

    /// The refusal names what was typed: a recovery code's form gets the recovery code's error,
    /// six digits the app code's; both count as failed log-ins.
    @Test func aWrongRecoveryCodeIsRefusedAsARecoveryCode() throws {
        let h = try Harness(configuration: AuthConfiguration(
            lockout: LockoutPolicy(threshold: 2, durationMinutes: 5), masterKey: Harness.masterKey))
        let alice = try TOTPLogInTests.account(h)
        _ = try TOTPLogInTests.enrol(h, alice)
        #expect(TOTPLogInTests.error(TOTPLogInTests.logIn(h, "zzzzz-zzzzz")) == "141 Invalid recovery code.")
        #expect(TOTPLogInTests.error(TOTPLogInTests.logIn(h, alice.code(h, offset: 90))) == "141 Invalid MFA token")
        #expect(try h.count("SELECT count(*)::int FROM users WHERE lockout_until IS NOT NULL") == 1)
    }
}
