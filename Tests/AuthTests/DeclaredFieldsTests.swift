import Auth
import AuthGraphQL
import Foundation
import GraphQL
import JSON
import Testing

/// Fields the app declares (`GATEHOUSE_USER_FIELDS`), end to end over a database: every type set
/// and read back, each directive at its limit and one past it, who may write and read
/// `@serverOnly` and `@hidden`, values kept when a field is removed, stored values that a changed
/// type does not take, and sign-up and logInWith making the user and its fields together.
@Suite struct DeclaredFieldsTests {
    static let fields = UserFieldsFileTests.contractExample + """

        extend type User {
          age: Int
          height: Float
          tags: [String!]
          plans: [Plan!]
          notes: [Object!] @maxItems(3) @maxBytes(20)
          motto: String
          blob: Object
        }
        """
    static let selection = "bio birthday newsletter favoriteColors plan supportNotes preferences age height tags plans notes motto blob"
    static let viewer = "query { viewer { user { \(selection) } } }"
    static func update(selecting selection: String) -> String {
        "mutation U($input: UpdateUserInput!) { updateUser(input: $input) { user { \(selection) } } }"
    }
    static let signUp = """
        mutation S($input: SignUpInput!) { signUp(input: $input) { viewer { sessionToken user { objectId \(selection) } } } }
        """

    static func harness(_ fields: String = DeclaredFieldsTests.fields, sharing: Harness? = nil) throws -> Harness {
        try Harness(userFields: fields, sharing: sharing)
    }

    /// A user signed up on `h`: its objectId and session token.
    static func account(_ h: Harness, _ name: String = "alice") throws -> (id: String, token: String) {
        let viewer = try h.signedUp(name)
        return (try #require(viewer["user"]?["objectId"]?.stringValue), try #require(viewer["sessionToken"]?.stringValue))
    }

    static func update(
        _ h: Harness, _ id: String, _ fields: JSONObject, token: String? = nil, master: Bool = false, selecting: String = "objectId"
    ) -> ExecutionResult {
        h.graphql(
            update(selecting: selecting), variables: ["input": ["id": .string(id), "fields": .object(fields)]], token: token,
            master: master ? Harness.masterKey : nil)
    }

    static func user(_ h: Harness, _ token: String, master: Bool = false) -> JSON? {
        h.graphql(viewer, token: token, master: master ? Harness.masterKey : nil).data?["viewer"]?["user"]
    }

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code!) \($0.message)" } }

    static let everyType: JSONObject = [
        "bio": "Hello", "birthday": "1990-05-17T00:00:00Z", "newsletter": true, "favoriteColors": ["red", "teal"],
        "preferences": ["sizes": [1, 2], "theme": "dark"], "age": 36, "height": 1.75, "tags": [], "plans": ["FREE", "TEAM"],
        "notes": [["a": 1]], "motto": "Carpe diem", "blob": [:],
    ]

    @Test func everyTypeIsSetAndReadBack() throws {
        let h = try Self.harness()
        let alice = try Self.account(h)
        let result = Self.update(h, alice.id, Self.everyType, token: alice.token)
        #expect(result.errors.isEmpty, "\(result.json)")
        let user = try #require(Self.user(h, alice.token))
        for (name, value) in zip(Self.everyType.keys, Self.everyType.values) where name != "birthday" {
            #expect(user[name] == value, "\(name)")
        }
        #expect(user["birthday"] == "1990-05-17T00:00:00.000Z", "stored in the Date scalar's form")
        #expect(user["plan"] == .null)
        // As stored: one JSON object, keyed by field name.
        let stored = try h.rows("SELECT custom_fields::text FROM users").map { try $0.decode(String.self, at: 0) }
        #expect(stored.count == 1 && stored[0].contains("\"favoriteColors\": [\"red\", \"teal\"]"), "\(stored)")
        // null clears one; the others stay.
        #expect(Self.update(h, alice.id, ["bio": .null, "tags": .null], token: alice.token).errors.isEmpty)
        let after = try #require(Self.user(h, alice.token))
        #expect(after["bio"] == .null && after["tags"] == .null && after["motto"] == "Carpe diem")
        #expect(try h.count("SELECT count(*)::int FROM users WHERE custom_fields ? 'bio'") == 0, "cleared, not stored as null")
    }

    @Test func aValueOfTheWrongTypeIsACoercionError() throws {
        let h = try Self.harness()
        let alice = try Self.account(h)
        let wrong = Self.update(h, alice.id, ["age": "old", "plans": ["GOLD"]], token: alice.token)
        #expect(wrong.data == nil)
        #expect(wrong.errors.map(\.message).contains { $0.contains("Int cannot represent non-integer value: \"old\"") }, "\(wrong.json)")
        #expect(wrong.errors.map(\.message).contains { $0.contains("Value \"GOLD\" does not exist in \"Plan\" enum.") }, "\(wrong.json)")
        let date = Self.update(h, alice.id, ["birthday": "yesterday"], token: alice.token)
        #expect(date.errors.first?.message.contains("Date cannot represent value") == true, "\(date.json)")
    }

    struct Limit: Sendable {
        let name: String
        let fields: JSONObject
        let error: String?
        init(_ name: String, _ fields: JSONObject, _ error: String? = nil) {
            self.name = name
            self.fields = fields
            self.error = error
        }
    }

    static func text(_ count: Int) -> JSON { .string(String(repeating: "ñ", count: count)) }
    static func list(_ count: Int) -> JSON { .array((0..<count).map { .string("c\($0)") }) }
    /// An object of exactly `bytes` bytes as JSON: `{"k":"…"}`.
    static func object(bytes: Int) -> JSON { .object(["k": .string(String(repeating: "x", count: bytes - 8))]) }

    /// Each directive, and each default, at its limit and one past it.
    static let limits: [Limit] = [
        Limit("@maxLength(500) at 500", ["bio": text(500)]),
        Limit("@maxLength(500) at 501", ["bio": text(501)], "142 bio is too long (at most 500 characters)."),
        Limit("default maxLength at 1024", ["motto": text(1024)]),
        Limit("default maxLength at 1025", ["motto": text(1025)], "142 motto is too long (at most 1024 characters)."),
        Limit("maxLength of a list's strings at 1024", ["favoriteColors": [text(1024)]]),
        Limit("maxLength of a list's strings at 1025", ["favoriteColors": [text(1025)]], "142 favoriteColors is too long (at most 1024 characters)."),
        Limit("@maxItems(10) at 10", ["favoriteColors": list(10)]),
        Limit("@maxItems(10) at 11", ["favoriteColors": list(11)], "142 favoriteColors has too many items (at most 10)."),
        Limit("default maxItems at 100", ["tags": list(100)]),
        Limit("default maxItems at 101", ["tags": list(101)], "142 tags has too many items (at most 100)."),
        Limit("@maxBytes(4096) at 4096", ["preferences": object(bytes: 4096)]),
        Limit("@maxBytes(4096) at 4097", ["preferences": object(bytes: 4097)], "142 preferences is too large (at most 4096 bytes)."),
        Limit("default maxBytes at 16384", ["blob": object(bytes: 16384)]),
        Limit("default maxBytes at 16385", ["blob": object(bytes: 16385)], "142 blob is too large (at most 16384 bytes)."),
        Limit("maxBytes of a list's objects at 20", ["notes": [object(bytes: 20)]]),
        Limit("maxBytes of a list's objects at 21", ["notes": [object(bytes: 21)]], "142 notes is too large (at most 20 bytes)."),
        Limit("a NUL in a string", ["motto": "a\u{0}"], "142 motto must not contain a NUL character."),
        Limit("a NUL in an object's key", ["blob": ["a\u{0}": 1]], "142 blob must not contain a NUL character."),
    ]

    /// One harness for every case (a database each would be 36 at once): each case on a user of its own.
    @Test func limitsOnUpdateUser() throws {
        let h = try Self.harness()
        for (index, limit) in Self.limits.enumerated() {
            let user = try Self.account(h, "user\(index)")
            let result = Self.update(h, user.id, limit.fields, token: user.token)
            #expect(Self.error(result) == limit.error, "\(limit.name): \(result.json)")
            let stored = try h.count("SELECT count(*)::int FROM users WHERE object_id = \(user.id) AND custom_fields <> '{}'")
            #expect(stored == (limit.error == nil ? 1 : 0), "\(limit.name): a refused value changes nothing")
        }
    }

    @Test func limitsOnSignUp() throws {
        let h = try Self.harness()
        for (index, limit) in Self.limits.enumerated() {
            var fields: JSONObject = ["username": .string("user\(index)"), "password": .string(Harness.password)]
            for (key, value) in zip(limit.fields.keys, limit.fields.values) { fields[key] = value }
            let result = h.graphql(Self.signUp, variables: ["input": ["fields": .object(fields)]])
            #expect(Self.error(result) == limit.error, "\(limit.name): \(result.json)")
            #expect(try h.count("SELECT count(*)::int FROM users WHERE username = \("user\(index)")") == (limit.error == nil ? 1 : 0),
                    "\(limit.name)")
        }
    }

    /// A user's declared fields together: 64 KiB of JSON at most.
    @Test func aUsersFieldsAreAtMost64KiB() throws {
        let h = try Self.harness()
        let alice = try Self.account(h)
        // Four objects of about 16 KiB each, the last cut so that with the keys and braces they are 64 KiB.
        let keysAndBraces = #"{"blob":,"a":,"b":,"c":}"#.utf8.count
        let quarter = 16_384
        var fields: JSONObject = ["blob": Self.object(bytes: quarter)]
        let h2 = try Self.harness(Self.fields + "\nextend type User { a: Object b: Object c: Object }", sharing: h)
        fields["a"] = Self.object(bytes: quarter)
        fields["b"] = Self.object(bytes: quarter)
        fields["c"] = Self.object(bytes: quarter - keysAndBraces)
        #expect(JSON.object(fields).serialized().count == UserFields.maxTotalBytes)
        #expect(Self.update(h2, alice.id, fields, token: alice.token).errors.isEmpty)
        fields["c"] = Self.object(bytes: quarter - keysAndBraces + 1)
        #expect(Self.error(Self.update(h2, alice.id, fields, token: alice.token)) == "142 fields is too large (at most 65536 bytes).")
        #expect(Self.error(Self.update(h2, alice.id, ["motto": "x"], token: alice.token)) == "142 fields is too large (at most 65536 bytes).")
        // Making room is always allowed.
        #expect(Self.update(h2, alice.id, ["c": .null], token: alice.token).errors.isEmpty)
        #expect(Self.update(h2, alice.id, ["motto": "x"], token: alice.token).errors.isEmpty)
    }

    @Test func serverOnlyFieldsAreWrittenByTheMasterKeyAndReadByTheOwner() throws {
        let h = try Self.harness()
        let alice = try Self.account(h)
        let refused = Self.update(h, alice.id, ["bio": "mine", "plan": "PRO"], token: alice.token)
        #expect(Self.error(refused) == "119 Permission denied to set plan.")
        #expect(Self.user(h, alice.token)?["bio"] == .null, "nothing changed")
        #expect(Self.update(h, alice.id, ["plan": "PRO"], master: true).errors.isEmpty)
        #expect(Self.user(h, alice.token)?["plan"] == "PRO", "the owner reads it")
        #expect(Self.error(Self.update(h, alice.id, ["plan": .null], token: alice.token)) == "119 Permission denied to set plan.")
        #expect(Self.user(h, alice.token)?["plan"] == "PRO")
        // A wrong master key is no master key.
        let wrongKey = h.graphql(Self.update(selecting: "objectId"), variables: ["input": ["id": .string(alice.id), "fields": ["plan": "TEAM"]]], token: alice.token, master: "wrong")
        #expect(Self.error(wrongKey) == "119 Permission denied to set plan.")
    }

    @Test func hiddenFieldsAreTheMasterKeysAlone() throws {
        let h = try Self.harness()
        let alice = try Self.account(h)
        #expect(Self.error(Self.update(h, alice.id, ["supportNotes": "asked twice"], token: alice.token))
            == "119 Permission denied to set supportNotes.")
        #expect(try h.count("SELECT count(*)::int FROM users WHERE custom_fields <> '{}'") == 0, "nothing changed")
        let set = Self.update(h, alice.id, ["supportNotes": "asked twice"], master: true, selecting: "supportNotes")
        #expect(set.data?["updateUser"]?["user"]?["supportNotes"] == "asked twice", "\(set.json)")
        #expect(Self.user(h, alice.token)?["supportNotes"] == .null, "the owner reads null")
        #expect(Self.user(h, alice.token, master: true)?["supportNotes"] == "asked twice")
        let id = GlobalID.encode(type: "_User", id: alice.id)
        let byOwner = h.graphql("query($id: ID!) { user(id: $id) { supportNotes } }", variables: ["id": .string(id)], token: alice.token)
        #expect(byOwner.data?["user"]?["supportNotes"] == .null, "\(byOwner.json)")
        let byMaster = h.graphql("query($id: ID!) { node(id: $id) { ... on User { supportNotes } } }", variables: ["id": .string(id)], master: Harness.masterKey)
        #expect(byMaster.data?["node"]?["supportNotes"] == "asked twice", "\(byMaster.json)")
    }

    @Test func signUpWithAServerOnlyFieldNeedsTheMasterKey() throws {
        let h = try Self.harness()
        let fields: JSONObject = ["username": "carol", "password": .string(Harness.password), "plan": "TEAM", "bio": "hi"]
        #expect(Self.error(h.graphql(Self.signUp, variables: ["input": ["fields": .object(fields)]])) == "119 Permission denied to set plan.")
        #expect(try h.count("SELECT count(*)::int FROM users") == 0)
        let made = h.graphql(Self.signUp, variables: ["input": ["fields": .object(fields)]], master: Harness.masterKey)
        #expect(made.data?["signUp"]?["viewer"]?["user"]?["plan"] == "TEAM", "\(made.json)")
        #expect(made.data?["signUp"]?["viewer"]?["user"]?["bio"] == "hi")
    }

    /// signUp and logInWith write the user and its fields in one statement: a user exists with
    /// its fields or not at all.
    @Test func signUpAndLogInWithMakeTheUserWithItsFields() throws {
        let h = try Self.harness()
        let fields: JSONObject = ["username": "dave", "password": .string(Harness.password), "bio": "Hi", "plans": ["PRO"]]
        let made = h.graphql(Self.signUp, variables: ["input": ["fields": .object(fields)]])
        let token = try #require(made.data?["signUp"]?["viewer"]?["sessionToken"]?.stringValue, "\(made.json)")
        #expect(Self.user(h, token)?["bio"] == "Hi")
        #expect(try h.count("SELECT count(*)::int FROM users WHERE custom_fields = '{\"bio\": \"Hi\", \"plans\": [\"PRO\"]}'::jsonb") == 1)
        // A taken username: no user, so no fields either.
        let taken = h.graphql(Self.signUp, variables: ["input": ["fields": .object(fields)]])
        #expect(Self.error(taken) == "202 Account already exists for this username.")
        #expect(try h.count("SELECT count(*)::int FROM users") == 1)

        let guest = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]], fields: ["bio": "Guest", "age": 9])
        let guestToken = try #require(guest.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue, "\(guest.json)")
        #expect(Self.user(h, guestToken)?["bio"] == "Guest")
        #expect(Self.user(h, guestToken)?["age"] == 9)
        // A refused field: neither the user nor its provider link is made.
        let refused = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-2"]], fields: ["plan": "PRO"])
        #expect(Self.error(refused) == "119 Permission denied to set plan.")
        let tooLong = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-2"]], fields: ["bio": Self.text(501)])
        #expect(Self.error(tooLong) == "142 bio is too long (at most 500 characters).")
        #expect(try h.count("SELECT count(*)::int FROM users") == 2)
        #expect(try h.count("SELECT count(*)::int FROM user_identities") == 1)
        // The fields of a new user only: a later log-in with the same id leaves them.
        let again = ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]], fields: ["bio": "Changed"])
        #expect(again.errors.isEmpty, "\(again.json)")
        #expect(Self.user(h, guestToken)?["bio"] == "Guest")
    }

    /// A field removed from the file leaves the schema and keeps its stored values, through other
    /// changes of the user; declared again, it has them.
    @Test func aRemovedFieldKeepsItsValuesAndTheyComeBack() throws {
        let h = try Self.harness("extend type User { bio: String motto: String }")
        let alice = try Self.account(h)
        #expect(Self.update(h, alice.id, ["bio": "Kept", "motto": "First"], token: alice.token).errors.isEmpty)

        let without = try Self.harness("extend type User { motto: String }", sharing: h)
        let asked = without.graphql("query { viewer { user { bio } } }", token: alice.token)
        #expect(asked.errors.first?.message.hasPrefix("Cannot query field \"bio\" on type \"User\".") == true, "gone from the schema")
        #expect(Self.update(without, alice.id, ["motto": "Second"], token: alice.token).errors.isEmpty)
        let write = Self.update(without, alice.id, ["bio": "x"], token: alice.token)
        #expect(write.errors.first?.message.contains("Field \"bio\" is not defined by type \"UpdateUserFieldsInput\".") == true, "\(write.json)")

        let back = try Self.harness("extend type User { bio: String motto: String }", sharing: h)
        let user = back.graphql("query { viewer { user { bio motto } } }", token: alice.token).data?["viewer"]?["user"]
        #expect(user == ["bio": "Kept", "motto": "Second"])
    }

    /// Stored values a new declaration's type does not take are counted per field (start-up
    /// refuses them: GatehouseServerTests); values that fit are not.
    @Test func storedValuesThatDoNotFitAChangedType() throws {
        let h = try Self.harness("""
            enum Plan { FREE PRO TEAM }
            extend type User { bio: String age: Int height: Float plan: Plan tags: [String!] when: Date prefs: Object }
            """)
        for (index, values) in ([
            ["bio": "text", "age": 30, "height": 2, "plan": "TEAM", "tags": ["a", "b"], "when": "2020-01-02T03:04:05Z", "prefs": ["a": 1]],
            ["bio": "more", "age": 41, "height": 1.5, "plan": "FREE", "tags": [], "prefs": [:]],
            ["age": 7, "plan": "FREE"],
        ] as [JSONObject]).enumerated() {
            let user = try Self.account(h, "user\(index)")
            #expect(Self.update(h, user.id, values, master: true).errors.isEmpty)
        }
        func misfits(_ sdl: String) throws -> [String] {
            let other = try Self.harness(sdl, sharing: h)
            do { return try other.auth.accounts.fieldsNotFittingStoredValues().map { "\($0.field) \($0.users)" } } catch {
                Issue.record("\(other.capturedLogs)"); throw error
            }
        }
        #expect(try misfits("""
            enum Plan { FREE PRO TEAM }
            extend type User { bio: String age: Int height: Float plan: Plan tags: [String!] when: Date prefs: Object }
            """) == [], "the same declarations")
        #expect(try misfits("extend type User { age: Float height: Float bio: String }") == [], "an Int is a Float")
        #expect(try misfits("extend type User { bio: Int height: Int age: String }") == ["bio 2", "height 1", "age 3"])
        #expect(try misfits("enum Plan { FREE PRO }\nextend type User { plan: Plan }") == ["plan 1"], "TEAM is gone")
        #expect(try misfits("enum Tier { FREE PRO TEAM }\nextend type User { plan: Tier }") == [], "the values fit the renamed enum")
        #expect(try misfits("extend type User { tags: [Int!] bio: [String!] when: String prefs: [Object!] }") == ["tags 1", "bio 2", "prefs 2"],
                "the empty list fits any list")
        #expect(try misfits("extend type User { when: Date age: Boolean plan: Object }") == ["age 3", "plan 3"])
    }

    /// The declared fields' resolvers read the user already loaded: a viewer selecting them does
    /// not block (the cached viewer stays on the event thread).
    @Test func declaredFieldsResolveWithoutBlocking() throws {
        let h = try Self.harness()
        guard case .success(let prepared) = h.service.prepare(Self.viewer),
            let operation = h.service.operation(of: prepared, named: nil)
        else {
            Issue.record("did not prepare")
            return
        }
        #expect(prepared.placement(of: operation) == .pureOnceSettled)
    }
}
