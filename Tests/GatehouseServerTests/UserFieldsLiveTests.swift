import Foundation
import GatehouseServer
import JSON
import Postgres
import ServerTestSupport
import Testing
import TestSupport

/// `GATEHOUSE_USER_FIELDS` on a running server: its fields served over HTTP, a file with a
/// problem stopping the start with `file:line:column: message`, and a type change that stored
/// values do not fit stopping it with the field and the count of users.
@Suite struct UserFieldsLiveTests {
    /// `sdl` written to a file of its own; `@` and its path.
    static func setting(_ sdl: String) throws -> (setting: String, path: String) {
        let path = (TemporaryDirectory.make(prefix: "userfields") as NSString).appendingPathComponent("user-fields.graphql")
        try Data(sdl.utf8).write(to: URL(fileURLWithPath: path))
        return ("@" + path, path)
    }

    static let signUp = """
        mutation S($fields: CreateUserFieldsInput) { signUp(input: {fields: $fields}) { viewer { sessionToken user { bio } } } }
        """

    @Test func theDeclaredFieldsAreServed() throws {
        let file = try Self.setting("""
            enum Plan { FREE PRO }
            extend type User {
              "A few words."
              bio: String @maxLength(20)
              plan: Plan @serverOnly
            }
            """)
        let live = try LiveServer { $0.userFields = file.setting }
        let made = try live.graphQL(Self.signUp, variables: ["fields": ["username": "ann", "password": "larch-ridge-11", "bio": "Hello"]]).json()
        let token = try #require(made["data"]?["signUp"]?["viewer"]?["sessionToken"]?.stringValue, "\(made)")
        let viewer = try live.graphQL(
            "query { viewer { user { bio plan displayName } } }", headers: [("X-Parse-Session-Token", token)]).json()
        #expect(viewer["data"]?["viewer"]?["user"] == ["bio": "Hello", "plan": .null, "displayName": .null], "\(viewer)")
        let tooLong = try live.graphQL(Self.signUp, variables: ["fields": ["username": "bo", "password": "larch-ridge-11", "bio": .string(String(repeating: "b", count: 21))]]).json()
        #expect(tooLong["errors"]?[0]?["message"] == "bio is too long (at most 20 characters).", "\(tooLong)")
        let introspected = try live.graphQL(#"{ __type(name: "User") { fields { name description } } }"#).json()
        let bio = introspected["data"]?["__type"]?["fields"]?.arrayValue?.first { $0["name"] == "bio" }
        #expect(bio?["description"] == "A few words.", "\(introspected)")
    }

    @Test func aFileWithAProblemStopsTheStart() throws {
        let file = try Self.setting("extend type User {\n  bio: Strin\n  Bad: Int\n}\n")
        let error = try #require(throws: GatehouseServer.StartError.self) { _ = try LiveServer { $0.userFields = file.setting } }
        #expect(error.description == """
            GATEHOUSE_USER_FIELDS (--user-fields):
            \(file.path):2:8: Unknown type "Strin".
            \(file.path):3:3: Field name "Bad" must start with a lowercase letter and have only letters and digits (at most 64 characters).
            """)
    }

    /// A field whose type changed so that stored values no longer fit stops the start, naming it
    /// and the users holding such values; back to the old type, the server starts and has them.
    @Test func aTypeChangeThatStoredValuesDoNotFitStopsTheStart() throws {
        let database = try TestDatabase.create()
        let before = try Self.setting("extend type User { bio: String age: Int }")
        do {
            let server = try GatehouseServer(settings: { var s = Settings.forTest(databaseURL: database.connectionString); s.userFields = before.setting; return s }())
            defer { server.stop() }
            for (name, bio) in [("ann", "Hi"), ("bob", "Yo"), ("cid", nil)] as [(String, String?)] {
                var fields: JSONObject = ["username": .string(name), "password": "larch-ridge-11", "age": 30]
                if let bio { fields["bio"] = .string(bio) }
                let made = try HTTPConnection(port: server.port).graphQL(Self.signUp, variables: ["fields": .object(fields)]).json()
                #expect(made["errors"] == nil, "\(made)")
            }
        }
        let changed = try Self.setting("extend type User { bio: Int age: Float }")
        var settings = Settings.forTest(databaseURL: database.connectionString)
        settings.userFields = changed.setting
        let error = try #require(throws: GatehouseServer.StartError.self) { _ = try GatehouseServer(settings: settings) }
        #expect(error.description == """
            GATEHOUSE_USER_FIELDS (--user-fields): stored values do not fit the declared types:
            field "bio" is declared Int, but 2 users hold a stored value that is not
            Keep the earlier type, or change or clear those values (updateUser with the master key) under it first.
            """)
        settings.userFields = before.setting
        let server = try GatehouseServer(settings: settings)
        server.stop()
    }
}
