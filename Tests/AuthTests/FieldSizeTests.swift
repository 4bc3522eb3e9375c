import Auth
import JSON
import Testing

/// The contract's field sizes ("Hardening"): checked before any other work, 142 with a message
/// that names the field and its limit; a value at the limit is accepted.
@Suite struct FieldSizeTests {
    static func aclInput(entries: Int) -> JSON {
        .object(["users": .array((0..<entries).map { .object(["userId": .string("u\($0)"), "read": true, "write": false]) })])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let fields: JSONObject
        let installationId: String?
        /// nil: accepted.
        let message: String?
        var testDescription: String { name }
    }

    static let longEmail = String(repeating: "a", count: 242) + "@example.com"  // 254 bytes

    static let cases: [Case] = [
        Case(name: "username of 128 characters (256 bytes)",
             fields: ["username": .string(String(repeating: "é", count: 128))], installationId: nil, message: nil),
        Case(name: "username of 129 characters",
             fields: ["username": .string(String(repeating: "u", count: 129))], installationId: nil,
             message: "username is too long (at most 128 characters)."),
        Case(name: "email of 254 bytes", fields: ["email": .string(longEmail)], installationId: nil, message: nil),
        Case(name: "email of 255 bytes", fields: ["email": .string("a" + longEmail)], installationId: nil,
             message: "email is too long (at most 254 bytes)."),
        Case(name: "password over the maximum", fields: ["password": .string(String(repeating: "p", count: 1025))],
             installationId: nil, message: "password is too long (at most 1024 bytes)."),
        Case(name: "ACL of 64 entries", fields: ["ACL": aclInput(entries: 64)], installationId: nil, message: nil),
        Case(name: "ACL of 65 entries", fields: ["ACL": aclInput(entries: 65)], installationId: nil,
             message: "ACL is too long (at most 64 entries)."),
        Case(name: "installation id of 256 bytes", fields: [:], installationId: String(repeating: "i", count: 256), message: nil),
        Case(name: "installation id of 257 bytes", fields: [:], installationId: String(repeating: "i", count: 257),
             message: "X-Parse-Installation-Id is too long (at most 256 bytes)."),
    ]

    @Test(arguments: cases)
    func signUp(_ row: Case) throws {
        let h = try Harness()
        var fields: JSONObject = ["username": "bob", "password": .string(Harness.password)]
        for (key, value) in row.fields { fields[key] = value }
        let result = h.signUp(.object(fields), installationId: row.installationId)
        if let message = row.message {
            #expect(onlyError(result)?.code == 142, "\(result.json)")
            #expect(onlyError(result)?.message == message)
            #expect(try h.count("SELECT count(*) FROM users") == 0)
        } else {
            #expect(result.errors.isEmpty, "\(result.json)")
            #expect(try h.count("SELECT count(*) FROM users") == 1)
        }
    }

    /// Before any other check: a too-long username without a password is 142, not 201.
    @Test func sizesComeFirst() throws {
        let h = try Harness()
        let result = h.signUp(["username": .string(String(repeating: "u", count: 200))])
        #expect(onlyError(result)?.code == 142)
        #expect(onlyError(result)?.message == "username is too long (at most 128 characters).")
    }

    @Test func logInRefusesALongInstallationId() throws {
        let h = try Harness()
        _ = try h.signedUp("alice")
        let result = h.logIn("alice", Harness.password, installationId: String(repeating: "i", count: 257))
        #expect(onlyError(result)?.code == 142)
        #expect(onlyError(result)?.message == "X-Parse-Installation-Id is too long (at most 256 bytes).")
        #expect(try h.loggedIn("alice", installationId: String(repeating: "i", count: 256)).hasPrefix("r:"))
    }

    /// A log-in name longer than any email is a failed log-in (101), like an unknown name.
    @Test func logInWithANameOverTheLongestEmailFails() throws {
        let h = try Harness()
        _ = try h.signedUp("alice", email: Self.longEmail)
        #expect(try h.loggedIn(Self.longEmail).hasPrefix("r:"))
        let result = h.logIn(Self.longEmail + "x", Harness.password)
        #expect(onlyError(result)?.code == 101)
        #expect(onlyError(result)?.message == "Invalid username/password.")
    }
}
