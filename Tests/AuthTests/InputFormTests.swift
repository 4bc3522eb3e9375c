import Auth
import GraphQL
import Testing

/// Inputs as literals in the document (not variables), and the password policy's bounds.
@Suite struct InputFormTests {
    struct LiteralCase: Sendable, CustomTestStringConvertible {
        let name: String
        let document: String
        let code: Int?
        var testDescription: String { name }
    }

    static let literalCases: [LiteralCase] = [
        LiteralCase(name: "signUp authData {}",
                    document: #"mutation { signUp(input: {fields: {username: "bob", password: "larch-ridge-11", authData: {}}}) { viewer { user { username } } } }"#,
                    code: nil),
        LiteralCase(name: "signUp authData {x: 1}",
                    document: #"mutation { signUp(input: {fields: {username: "bob", password: "larch-ridge-11", authData: {x: 1}}}) { viewer { user { username } } } }"#,
                    code: 252),
        LiteralCase(name: "signUp authData null",
                    document: #"mutation { signUp(input: {fields: {username: "bob", password: "larch-ridge-11", authData: null}}) { viewer { user { username } } } }"#,
                    code: nil),
        LiteralCase(name: "signUp without fields",
                    document: #"mutation { signUp(input: {clientMutationId: "c"}) { viewer { user { username } } } }"#,
                    code: 200),
        LiteralCase(name: "signUp emailVerified false",
                    document: #"mutation { signUp(input: {fields: {username: "bob", password: "larch-ridge-11", emailVerified: false}}) { viewer { user { username } } } }"#,
                    code: 119),
        LiteralCase(name: "signUp with an ACL",
                    document: #"mutation { signUp(input: {fields: {username: "bob", password: "larch-ridge-11", ACL: {public: {read: true, write: false}}}}) { viewer { user { username } } } }"#,
                    code: nil),
        LiteralCase(name: "logIn authData {}",
                    document: #"mutation { logIn(input: {username: "alice", password: "correct horse battery staple", authData: {}}) { viewer { user { username } } } }"#,
                    code: nil),
        LiteralCase(name: "logIn authData {x: 1}",
                    document: #"mutation { logIn(input: {username: "alice", password: "correct horse battery staple", authData: {x: 1}}) { viewer { user { username } } } }"#,
                    code: 252),
        LiteralCase(name: "logIn empty username",
                    document: #"mutation { logIn(input: {username: "", password: "x"}) { viewer { user { username } } } }"#,
                    code: 200),
    ]

    @Test(arguments: literalCases)
    func literalInputs(_ row: LiteralCase) throws {
        let h = try Harness()
        _ = try h.signedUp("alice")
        let result = h.graphql(row.document)
        if let code = row.code {
            #expect(onlyError(result)?.code == code, "\(result.json)")
        } else {
            #expect(result.errors.isEmpty, "\(result.json)")
            #expect(result.data?.objectValue?.values.first?["viewer"]?["user"]?["username"] != nil, "\(result.json)")
        }
    }

    /// Characters for the minimum, UTF-8 bytes for the maximum; both configurable.
    @Test(arguments: [
        (PasswordPolicy(), String(repeating: "a", count: 7), false),
        (PasswordPolicy(), String(repeating: "a", count: 7) + "b", true),  // 8 characters ("aaaaaaaa" is a common password)
        (PasswordPolicy(), String(repeating: "é", count: 7), false),  // 14 bytes, 7 characters
        (PasswordPolicy(), String(repeating: "👍", count: 8), true),
        (PasswordPolicy(), String(repeating: "a", count: 1024), true),
        (PasswordPolicy(), String(repeating: "a", count: 1025), false),
        (PasswordPolicy(), String(repeating: "é", count: 513), false),  // 1026 bytes
        (PasswordPolicy(minimumLength: 1), "a", true),
        (PasswordPolicy(minimumLength: 12, maximumBytes: 16), String(repeating: "a", count: 11), false),
        (PasswordPolicy(minimumLength: 12, maximumBytes: 16), String(repeating: "a", count: 17), false),
        (PasswordPolicy(minimumLength: 12, maximumBytes: 16), String(repeating: "a", count: 16), true),
    ] as [(PasswordPolicy, String, Bool)])
    func passwordPolicy(_ policy: PasswordPolicy, _ password: String, _ accepted: Bool) throws {
        let h = try Harness(configuration: AuthConfiguration(passwordPolicy: policy))
        let result = h.signUp(["username": "bob", "password": .string(password)])
        if accepted {
            #expect(result.errors.isEmpty, "\(result.json)")
            #expect(try h.loggedIn("bob", password).hasPrefix("r:"))
        } else {
            #expect(onlyError(result)?.code == 142)
            let expected = password.utf8.count > policy.maximumBytes
                ? "password is too long (at most \(policy.maximumBytes) bytes)."
                : "Password does not meet the Password Policy requirements."
            #expect(onlyError(result)?.message == expected)
        }
    }
}
