import Auth
import JSON
import Testing

/// The contract's error table, row by row, with the exact code and message, and the order
/// of checks on signUp: 200, 201, 252, 119, 142, 202, 125, 203.
@Suite struct ErrorTableTests {
    struct SignUpCase: Sendable, CustomTestStringConvertible {
        let name: String
        /// The `fields` JSON text, or nil for no `fields` at all.
        let fields: String?
        let master: String?
        let code: Int?
        var testDescription: String { name }

        init(_ name: String, _ fields: String?, master: String? = nil, _ code: Int?) {
            self.name = name
            self.fields = fields
            self.master = master
            self.code = code
        }
    }

    static let messages: [Int: String] = [
        200: "bad or missing username",
        201: "password is required",
        202: "Account already exists for this username.",
        203: "Account already exists for this email address.",
        125: "Email address format is invalid.",
        142: "Password does not meet the Password Policy requirements.",
        119: "Clients aren't allowed to manually update email verification.",
        252: "This authentication method is unsupported.",
    ]

    /// Each test first signs up `Taken` / `taken@example.com`.
    static let signUpCases: [SignUpCase] = [
        // 200
        SignUpCase("fields absent", nil, 200),
        SignUpCase("fields null", "null", 200),
        SignUpCase("fields empty", "{}", 200),
        SignUpCase("username absent", #"{"password":"larch-ridge-11"}"#, 200),
        SignUpCase("username null", #"{"username":null,"password":"larch-ridge-11"}"#, 200),
        SignUpCase("username empty", #"{"username":"","password":"larch-ridge-11"}"#, 200),
        // 201
        SignUpCase("password absent", #"{"username":"bob"}"#, 201),
        SignUpCase("password null", #"{"username":"bob","password":null}"#, 201),
        SignUpCase("password empty", #"{"username":"bob","password":""}"#, 201),
        // 252, and {} ignored
        SignUpCase("authData non-empty", #"{"username":"bob","password":"larch-ridge-11","authData":{"x":1}}"#, 252),
        SignUpCase("authData empty is ignored", #"{"username":"bob","password":"larch-ridge-11","authData":{}}"#, nil),
        // 119
        SignUpCase("emailVerified true", #"{"username":"bob","password":"larch-ridge-11","emailVerified":true}"#, 119),
        SignUpCase("emailVerified false", #"{"username":"bob","password":"larch-ridge-11","emailVerified":false}"#, 119),
        SignUpCase("emailVerified with a wrong master key",
                   #"{"username":"bob","password":"larch-ridge-11","emailVerified":true}"#, master: "wrong", 119),
        SignUpCase("emailVerified with the master key",
                   #"{"username":"bob","password":"larch-ridge-11","emailVerified":true}"#, master: Harness.masterKey, nil),
        // 142
        SignUpCase("password too short", #"{"username":"bob","password":"1234567"}"#, 142),
        SignUpCase("password 8 characters", #"{"username":"bob","password":"7654321z"}"#, nil),
        // 202, 125, 203
        SignUpCase("username taken", #"{"username":"Taken","password":"larch-ridge-11"}"#, 202),
        SignUpCase("username taken in another case", #"{"username":"tAKEN","password":"larch-ridge-11"}"#, 202),
        SignUpCase("email invalid", #"{"username":"bob","password":"larch-ridge-11","email":"bob.example.com"}"#, 125),
        SignUpCase("email with nothing before @", #"{"username":"bob","password":"larch-ridge-11","email":"@example.com"}"#, 125),
        SignUpCase("email with nothing after @", #"{"username":"bob","password":"larch-ridge-11","email":"bob@"}"#, 125),
        SignUpCase("email on two lines", #"{"username":"bob","password":"larch-ridge-11","email":"bob@example\n.com"}"#, 125),
        SignUpCase("email taken", #"{"username":"bob","password":"larch-ridge-11","email":"taken@example.com"}"#, 203),
        SignUpCase("email taken in another case", #"{"username":"bob","password":"larch-ridge-11","email":"TAKEN@Example.COM"}"#, 203),
        // Order of checks: each input breaks two rules; the earlier one wins.
        SignUpCase("200 before 201", #"{"username":"","password":""}"#, 200),
        SignUpCase("200 before 252", #"{"authData":{"x":1},"password":"larch-ridge-11"}"#, 200),
        SignUpCase("201 before 252", #"{"username":"bob","authData":{"x":1}}"#, 201),
        SignUpCase("252 before 119", #"{"username":"bob","password":"larch-ridge-11","authData":{"x":1},"emailVerified":true}"#, 252),
        SignUpCase("119 before 142", #"{"username":"bob","password":"short","emailVerified":false}"#, 119),
        SignUpCase("142 before 202", #"{"username":"taken","password":"short"}"#, 142),
        SignUpCase("202 before 125", #"{"username":"taken","password":"larch-ridge-11","email":"invalid"}"#, 202),
        SignUpCase("202 before 203", #"{"username":"taken","password":"larch-ridge-11","email":"taken@example.com"}"#, 202),
        SignUpCase("142 before 203", #"{"username":"bob","password":"short","email":"taken@example.com"}"#, 142),
        SignUpCase("125 before 203", #"{"username":"bob","password":"larch-ridge-11","email":"taken@example.com\n"}"#, 125),
    ]

    @Test(arguments: signUpCases)
    func signUp(_ row: SignUpCase) throws {
        let h = try Harness()
        _ = try h.signedUp("Taken", email: "taken@example.com")
        let fields = try row.fields.map { try JSON.parse($0) }
        let result = h.signUp(fields, master: row.master)
        if let code = row.code {
            let error = try #require(onlyError(result), "\(result.json)")
            #expect(error.code == code)
            #expect(error.message == Self.messages[code])
            #expect(result.errors[0].path == [.key("signUp")])
            #expect(result.data == ["signUp": .null])
            #expect(try h.count("SELECT count(*) FROM users") == 1)
        } else {
            #expect(result.errors.isEmpty, "\(result.json)")
            #expect(result.data?["signUp"]?["viewer"]?["user"]?["username"] == "bob")
            #expect(try h.count("SELECT count(*) FROM users") == 2)
        }
    }

    struct LogInCase: Sendable, CustomTestStringConvertible {
        let name: String
        let username: String
        let password: String
        let authData: String?
        let code: Int?
        let message: String?
        var testDescription: String { name }
    }

    static let logInCases: [LogInCase] = [
        LogInCase(name: "username empty", username: "", password: Harness.password, authData: nil,
                  code: 200, message: "username/email is required."),
        LogInCase(name: "password empty", username: "alice", password: "", authData: nil,
                  code: 201, message: "password is required."),
        LogInCase(name: "both empty: 200 first", username: "", password: "", authData: nil,
                  code: 200, message: "username/email is required."),
        LogInCase(name: "authData non-empty", username: "alice", password: Harness.password, authData: #"{"x":1}"#,
                  code: 252, message: "This authentication method is unsupported."),
        LogInCase(name: "201 before 252", username: "alice", password: "", authData: #"{"x":1}"#,
                  code: 201, message: "password is required."),
        LogInCase(name: "authData empty is ignored", username: "alice", password: Harness.password, authData: "{}",
                  code: nil, message: nil),
        LogInCase(name: "wrong password", username: "alice", password: "wrong password", authData: nil,
                  code: 101, message: "Invalid username/password."),
        LogInCase(name: "unknown user", username: "nobody", password: Harness.password, authData: nil,
                  code: 101, message: "Invalid username/password."),
        LogInCase(name: "unknown email", username: "nobody@example.com", password: Harness.password, authData: nil,
                  code: 101, message: "Invalid username/password."),
        LogInCase(name: "username with a NUL", username: "alice\u{0}", password: Harness.password, authData: nil,
                  code: 101, message: "Invalid username/password."),
    ]

    @Test(arguments: logInCases)
    func logIn(_ row: LogInCase) throws {
        let h = try Harness()
        _ = try h.signedUp("alice", email: "alice@example.com")
        let result = h.logIn(row.username, row.password, authData: try row.authData.map { try JSON.parse($0) })
        if let code = row.code {
            let error = try #require(onlyError(result), "\(result.json)")
            #expect(error.code == code)
            #expect(error.message == row.message)
            #expect(result.errors[0].path == [.key("logIn")])
            #expect(result.data == ["logIn": .null])
            #expect(try h.count("SELECT count(*) FROM sessions") == 1)
        } else {
            #expect(result.errors.isEmpty, "\(result.json)")
            #expect(result.data?["logIn"]?["viewer"]?["user"]?["username"] == "alice")
            #expect(try h.count("SELECT count(*) FROM sessions") == 2)
        }
    }

    @Test(arguments: [nil, "", "r:00000000000000000000000000000000", "not a token"] as [String?])
    func viewerWithoutAValidToken(_ token: String?) throws {
        let h = try Harness()
        _ = try h.signedUp()
        let result = h.viewer(token: token)
        let error = try #require(onlyError(result), "\(result.json)")
        #expect(error.code == 209)
        #expect(error.message == "Invalid session token")
        #expect(result.errors[0].path == [.key("viewer")])
        #expect(result.data == .null)  // viewer is non-null
    }

    /// Any unexpected failure: code 1, `Internal server error`; the detail only in the log.
    @Test func unexpectedFailureIsCodeOne() throws {
        let h = try Harness()
        try h.execute("ALTER TABLE sessions ADD CONSTRAINT sabotage CHECK (false) NOT VALID")
        let result = h.signUp(["username": "bob", "password": "larch-ridge-11"])
        let error = try #require(onlyError(result), "\(result.json)")
        #expect(error.code == 1)
        #expect(error.message == "Internal server error")
        #expect(!result.json.serializedString().contains("sabotage"))
        #expect(h.capturedLogs.contains { $0.contains("sabotage") }, "\(h.capturedLogs)")
        #expect(try h.count("SELECT count(*) FROM users") == 0)
    }
}
