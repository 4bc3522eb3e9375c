import Auth
import Foundation
import JSON
import Postgres
import Sodium
import Testing

/// `gatehouse users import`: Firebase and Parse exports become users who log in with the
/// passwords they had (then rehashed to argon2id); bad records are refused with their line.
@Suite struct UserImportTests {
    /// The project and user of the vector in firebase/scrypt's README.
    static let firebase = ExportFormat.firebase(FirebaseScrypt.Parameters(
        signerKey: FirebaseScrypt.decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")!,
        saltSeparator: FirebaseScrypt.decode("Bw==")!, rounds: 8, memCost: 14))

    static let firebaseExport = """
        {"users": [
          {
            "localId": "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2", "email": "user1@test.com", "emailVerified": true,
            "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
            "salt": "42xEC+ixf3L2lw==", "displayName": "Test User 1", "photoUrl": "https://example.com/u1.png",
            "createdAt": "1508893925000", "lastSignedInAt": "1508893999000", "disabled": false,
            "customAttributes": "{\\"admin\\": true}",
            "providerUserInfo": [
              {"providerId": "password", "rawId": "user1@test.com", "email": "user1@test.com"},
              {"providerId": "google.com", "rawId": "1234567890", "email": "user1@gmail.com"},
              {"providerId": "apple.com", "rawId": "001122.abc"},
              {"providerId": "github.com", "rawId": "42"}
            ]
          },
          {"localId": "phone_only-user", "phoneNumber": "+15555550100", "createdAt": 1508893925000,
           "providerUserInfo": [{"providerId": "phone", "rawId": "+15555550100"}]}
        ]}
        """

    /// bcrypt of "correct horse battery staple" (see BcryptTests).
    static let bcrypt = "$2b$10$bDrHFVOxuTM0wIjl4G2ByOr1eBRR7OLsE35ojTCSP4YlJiubPK/WO"

    static func parseUser(_ id: String, _ name: String, email: String? = nil, extra: String = "") -> String {
        #"{"objectId": "\#(id)", "username": "\#(name)", "_hashed_password": "\#(bcrypt)""#
            + (email.map { #", "email": "\#($0)", "emailVerified": true"# } ?? "")
            + #", "createdAt": "2021-03-04T05:06:07.891Z", "updatedAt": "2022-01-01T00:00:00.000Z"\#(extra)}"#
    }

    func run(_ h: Harness, _ text: String, _ format: ExportFormat, batchSize: Int = 2000) throws -> (UserImporter.Summary, [UserImporter.Event]) {
        var events: [UserImporter.Event] = []
        let summary = try Array(text.utf8).withUnsafeBytes { bytes in
            try UserImporter(pool: h.pool, batchSize: batchSize).run(bytes, format: format, event: { events.append($0) })
        }
        return (summary, events)
    }

    /// Logs in with `password`, checks the stored hash became argon2id, and logs in again.
    func logsInAndIsRehashed(_ h: Harness, _ name: String, _ password: String, id: String) throws {
        _ = try h.loggedIn(name, password)
        let hash = try h.rows("SELECT password_hash FROM users WHERE object_id = \(id)").first?.decode(String.self, at: 0)
        #expect(hash?.hasPrefix("$argon2id$") == true)
        _ = try h.loggedIn(name, password)
        #expect(onlyError(h.logIn(name, password + "x"))?.code == 101)
    }

    @Test func firebaseExportWithEveryFieldAndProvider() throws {
        let h = try Harness()
        let (summary, events) = try run(h, Self.firebaseExport, Self.firebase)
        #expect(summary == .init(imported: 2))
        #expect(events == [.imported(line: 2), .imported(line: 15)])
        let row = try #require(try h.rows("""
            SELECT username, email, email_verified, display_name, photo_url, created_at, password_hash
            FROM users WHERE object_id = 'kYi4EvWQlQTKSfnJ3dRSP6IH3ed2'
            """).first)
        #expect(try row.decode(String.self, at: 0) == "user1@test.com")
        #expect(try row.decode(String?.self, at: 1) == "user1@test.com")
        #expect(try row.decode(Bool.self, at: 2))
        #expect(try row.decode(String?.self, at: 3) == "Test User 1")
        #expect(try row.decode(String?.self, at: 4) == "https://example.com/u1.png")
        #expect(try row.decode(Date.self, at: 5) == Date(timeIntervalSince1970: 1_508_893_925))
        #expect(try row.decode(String.self, at: 6).hasPrefix("$firebase-scrypt$r=8,m=14$"))
        let identities = try h.rows("""
            SELECT user_id, provider, provider_user_id FROM user_identities ORDER BY provider
            """).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1)) \(try $0.decode(String.self, at: 2))" }
        #expect(identities == [
            "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2 apple 001122.abc", "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2 github.com 42",
            "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2 google 1234567890", "phone_only-user phone +15555550100",
        ])
        // A user without email or password: named by its id, no hash.
        let other = try #require(try h.rows("SELECT username, email, password_hash FROM users WHERE object_id = 'phone_only-user'").first)
        #expect(try other.decode(String.self, at: 0) == "phone_only-user")
        #expect(try other.decode(String?.self, at: 2) == nil)
        try logsInAndIsRehashed(h, "user1@test.com", "user1password", id: "kYi4EvWQlQTKSfnJ3dRSP6IH3ed2")
    }

    /// A user Firebase had disabled is imported disabled: the right password gets the disabled
    /// answer, a wrong one the answer anyone gets; operators see why.
    @Test func aUserFirebaseHadDisabledIsImportedDisabled() throws {
        let h = try Harness()
        let export = Self.firebaseExport.replacingOccurrences(of: #""disabled": false"#, with: #""disabled": true"#)
        #expect(export != Self.firebaseExport)
        let (summary, _) = try run(h, export, Self.firebase)
        #expect(summary == .init(imported: 2))
        let row = try #require(try h.rows("""
            SELECT disabled_at IS NOT NULL, disabled_reason FROM users WHERE object_id = 'kYi4EvWQlQTKSfnJ3dRSP6IH3ed2'
            """).first)
        #expect(try row.decode(Bool.self, at: 0))
        #expect(try row.decode(String?.self, at: 1) == "disabled in Firebase before the import")
        #expect(OperatorTests.error(h.logIn("user1@test.com", "user1password")) == "101 This account has been disabled.")
        #expect(OperatorTests.error(h.logIn("user1@test.com", "not the password")) == "101 Invalid username/password.")
        // A record without the flag is an enabled user.
        #expect(try h.count("SELECT count(*) FROM users WHERE object_id = 'phone_only-user' AND disabled_at IS NULL") == 1)
    }

    @Test func aDisabledFlagThatIsNotABooleanIsRefused() throws {
        let h = try Harness()
        let (summary, events) = try run(h, #"{"users": [{"localId": "flagged", "disabled": "yes"}]}"#, Self.firebase)
        #expect(summary == .init(refused: 1))
        #expect(events == [.refused(line: 1, reason: "disabled must be true or false")])
    }

    @Test func firebaseHashWithoutParametersIsRefused() throws {
        let h = try Harness()
        let (summary, events) = try run(h, Self.firebaseExport, .firebase(nil))
        #expect(summary == .init(imported: 1, refused: 1))
        guard case .refused(2, let reason) = events.first else { Issue.record("\(events)"); return }
        #expect(reason.contains("hash parameters"))
    }

    @Test func parseJSONLinesWithBcryptAuthDataAndEmailVerified() throws {
        let h = try Harness()
        let text = [
            Self.parseUser("parseUser1", "ada", email: "ada@example.com",
                           extra: #", "authData": {"facebook": {"id": "fb-77", "access_token": "secret"}}"#),
            "",
            Self.parseUser("parseUser2", "bob", extra: #", "_auth_data_twitter": {"id": "tw-1"}"#),
        ].joined(separator: "\n")
        let (summary, events) = try run(h, text, .parse)
        #expect(summary == .init(imported: 2))
        #expect(events == [.imported(line: 1), .imported(line: 3)])
        let row = try #require(try h.rows("SELECT email, email_verified, created_at, updated_at FROM users WHERE object_id = 'parseUser1'").first)
        #expect(try row.decode(String?.self, at: 0) == "ada@example.com")
        #expect(try row.decode(Bool.self, at: 1))
        #expect(try row.decode(Date.self, at: 2) == ISO8601DateFormatter().date(from: "2021-03-04T05:06:07Z")!.addingTimeInterval(0.891))
        #expect(try h.count("SELECT count(*) FROM user_identities WHERE user_id = 'parseUser1' AND provider = 'facebook' AND provider_user_id = 'fb-77'") == 1)
        #expect(try h.count("SELECT count(*) FROM user_identities WHERE user_id = 'parseUser2' AND provider = 'twitter'") == 1)
        // Each id carries its user's imported creation time, by which the users search walks a provider's users.
        #expect(try h.count("""
            SELECT count(*) FROM user_identities i JOIN users u ON u.object_id = i.user_id WHERE i.user_created_at = u.created_at
            """) == 2)
        try logsInAndIsRehashed(h, "ada", "correct horse battery staple", id: "parseUser1")
    }

    @Test func parseResultsDocumentReportsEachRecordsLine() throws {
        let h = try Harness()
        let text = """
            {"results": [
              \(Self.parseUser("resultsA", "carol")),
              {
                "objectId": "resultsB",
                "username": "dave",
                "_hashed_password": "\(Self.bcrypt)"
              },
              {"objectId": "resultsC"}
            ]}
            """
        let (summary, events) = try run(h, text, .parse)
        #expect(summary == .init(imported: 2, refused: 1))
        #expect(events.map(\.line) == [2, 3, 8])
        try logsInAndIsRehashed(h, "dave", "correct horse battery staple", id: "resultsB")
    }

    @Test func badRecordsAreReportedWithTheirLineAndTheRestImported() throws {
        let h = try Harness()
        let text = [
            Self.parseUser("goodOne", "erin", email: "erin@example.com"),  // 1
            #"{"objectId": "broken", "username": }"#,  // 2
            #"{"username": "noid"}"#,  // 3
            Self.parseUser("dupEmail", "frank", email: "ERIN@example.com"),  // 4
            #"{"objectId": "md5hash", "username": "gina", "_hashed_password": "$1$saltsalt$abcdefghijklmnopqrstuv"}"#,  // 5
            #"{"objectId": "bad id!", "username": "hank"}"#,  // 6
            Self.parseUser("goodOne", "ivan"),  // 7
            Self.parseUser("goodTwo", "judy"),  // 8
            Self.parseUser("nulInId", "kim", extra: #", "authData": {"facebook": {"id": "a\u0000b"}}"#),  // 9
        ].joined(separator: "\n")
        let (summary, events) = try run(h, text, .parse, batchSize: 1)
        #expect(summary == .init(imported: 2, refused: 7))
        #expect(events.contains(.refused(line: 9, reason: "the facebook id contains a NUL character")))
        var reasons: [Int: String] = [:]
        for case .refused(let line, let reason) in events { reasons[line] = reason }
        #expect(reasons[2]?.hasPrefix("not valid JSON") == true)
        #expect(reasons[3] == "has no objectId")
        #expect(reasons[4] == "duplicate email erin@example.com: also on line 1")
        #expect(reasons[5]?.contains("kind Gatehouse does not verify") == true)
        #expect(reasons[6]?.contains("1 to 64 characters") == true)
        #expect(reasons[7] == "duplicate id goodOne: also on line 1")
        #expect(events.contains(.imported(line: 8)))
        // No reason quotes a hash.
        #expect(!reasons.values.contains { $0.contains("$") })
        #expect(try h.count("SELECT count(*) FROM users") == 2)
    }

    @Test func importingAgainSkipsUsersAlreadyThere() throws {
        let h = try Harness()
        let first = try run(h, Self.firebaseExport, Self.firebase)
        #expect(first.0 == .init(imported: 2))
        let again = try run(h, Self.firebaseExport, Self.firebase)
        #expect(again.0 == .init(skipped: 2))
        #expect(again.1 == [.skipped(line: 2), .skipped(line: 15)])
        #expect(try h.count("SELECT count(*) FROM users") == 2)
        #expect(try h.count("SELECT count(*) FROM user_identities") == 4)
    }

    @Test func conflictsWithUsersAlreadyThereAreRefusedWhole() throws {
        let h = try Harness()
        _ = try h.signedUp("taken", email: "taken@example.com")
        let text = [
            Self.parseUser("newUser01", "TAKEN"),
            Self.parseUser("newUser02", "fresh", email: "TAKEN@example.com"),
            Self.parseUser("newUser03", "other", extra: #", "authData": {"facebook": {"id": "fb-1"}}"#),
        ].joined(separator: "\n")
        _ = try run(h, Self.parseUser("linked", "linked", extra: #", "authData": {"facebook": {"id": "fb-1"}}"#), .parse)
        let (summary, events) = try run(h, text, .parse)
        #expect(summary == .init(refused: 3))
        var reasons: [Int: String] = [:]
        for case .refused(let line, let reason) in events { reasons[line] = reason }
        #expect(reasons[1]?.hasPrefix("the username is taken by user ") == true)
        #expect(reasons[2]?.hasPrefix("the email is taken by user ") == true)
        #expect(reasons[3] == "the facebook id is linked to user linked")
        // Never half a user: no identity row without its user.
        #expect(try h.count("SELECT count(*) FROM users WHERE object_id LIKE 'newUser%'") == 0)
        #expect(try h.count("SELECT count(*) FROM user_identities WHERE user_id LIKE 'newUser%'") == 0)
    }

    @Test func aFileThatBreaksOffEndsTheImportAfterTheRecordsBeforeIt() throws {
        let h = try Harness()
        let text = "{\"users\": [\n{\"localId\": \"first\"},\n{\"localId\": \"second\""
        #expect(throws: ExportReader.Failure.self) { try run(h, text, .firebase(nil), batchSize: 1) }
        #expect(try h.count("SELECT count(*) FROM users") == 1)
    }
}
