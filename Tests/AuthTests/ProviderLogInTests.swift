import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Testing

/// logInWith, anonymous users, linking and unlinking, `User.authData` (contract: providers.md).
@Suite struct ProviderLogInTests {
    static let logInWith = """
        mutation L($input: LogInWithInput!) {
          logInWith(input: $input) {
            clientMutationId
            viewer { sessionToken user { objectId username email emailVerified authData ACL { users { userId read write } public { read write } } } }
          }
        }
        """
    static let update = """
        mutation U($input: UpdateUserInput!) { updateUser(input: $input) { user { objectId username authData } } }
        """
    static let viewer = """
        query { viewer { user { objectId username authData } session { createdWith } } }
        """

    static func logInWith(
        _ h: Harness, _ authData: JSONObject, fields: JSONObject? = nil, master: Bool = false, address: String = "192.0.2.1",
        installationId: String? = nil
    ) -> ExecutionResult {
        var input: JSONObject = ["authData": .object(authData), "clientMutationId": "c1"]
        if let fields { input["fields"] = .object(fields) }
        return h.graphql(
            logInWith, variables: ["input": .object(input)], installationId: installationId, master: master ? Harness.masterKey : nil,
            address: address)
    }

    static func update(_ h: Harness, _ id: String, _ fields: JSONObject, token: String?, currentPassword: String? = nil) -> ExecutionResult {
        var input: JSONObject = ["id": .string(id), "fields": .object(fields)]
        if let currentPassword { input["currentPassword"] = .string(currentPassword) }
        return h.graphql(update, variables: ["input": .object(input)], token: token)
    }

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code!) \($0.message)" } }

    /// A guest's logInWith: its objectId, username and session token.
    static func guest(_ h: Harness, _ id: String) throws -> (id: String, username: String, token: String) {
        let result = logInWith(h, ["anonymous": ["id": .string(id)]])
        let viewer = try #require(result.data?["logInWith"]?["viewer"], "\(result.json)")
        return (try #require(viewer["user"]?["objectId"]?.stringValue), try #require(viewer["user"]?["username"]?.stringValue),
                try #require(viewer["sessionToken"]?.stringValue))
    }

    static func createdWith(_ h: Harness, _ token: String) -> JSON? {
        h.graphql(viewer, token: token).data?["viewer"]?["session"]?["createdWith"]
    }

    @Test func anonymousCreatesTheUserOnceThenLogsIn() throws {
        let h = try Harness()
        let first = Self.logInWith(h, ["anonymous": ["id": "device-1"]])
        #expect(first.errors.isEmpty, "\(first.json)")
        #expect(first.data?["logInWith"]?["clientMutationId"] == "c1")
        let user = try #require(first.data?["logInWith"]?["viewer"]?["user"])
        let username = try #require(user["username"]?.stringValue)
        #expect(username.count == 25 && username.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }, "\(username)")
        #expect(user["authData"] == ["anonymous": ["id": "device-1"]])
        #expect(user["email"] == .null && user["emailVerified"] == false)
        let firstToken = try #require(first.data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue)
        #expect(Self.createdWith(h, firstToken) == ["action": "signup", "authProvider": "anonymous", "factors": ["anonymous"]])

        let again = try Self.guest(h, "device-1")
        #expect(again.id == user["objectId"]?.stringValue && again.username == username)
        #expect(Self.createdWith(h, again.token) == ["action": "login", "authProvider": "anonymous", "factors": ["anonymous"]])
        #expect(try h.count("SELECT count(*)::int FROM users") == 1)
        // Another id is another user.
        #expect(try Self.guest(h, "device-2").id != again.id)
        // The ids only: nothing else of authData is kept.
        let stored = try h.rows("SELECT provider, provider_user_id FROM user_identities ORDER BY provider_user_id")
        #expect(try stored.map { [try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)] }
            == [["anonymous", "device-1"], ["anonymous", "device-2"]])
    }

    @Test func concurrentFirstLogInsMakeOneUser() throws {
        let h = try Harness(poolSize: 8)
        let ids = try #require(simultaneously(8) { _ in try? Self.guest(h, "same-device").id })
        #expect(ids.count == 8 && Set(ids).count == 1, "\(ids)")
        #expect(try h.count("SELECT count(*)::int FROM users") == 1)
    }

    /// Concurrent log-ins of linked users share statements (``ProviderService``'s provider log-in
    /// batches): each still gets its own user and a session that works.
    @Test func concurrentLogInsOfLinkedUsersEachGetTheirSession() throws {
        let h = try Harness(poolSize: 4)
        let users = try (0..<4).map { try Self.guest(h, "device-\($0)").id }
        let grants = try #require(simultaneously(24) { index -> (Int, String?, String?) in
            let viewer = Self.logInWith(h, ["anonymous": ["id": .string("device-\(index % 4)")]]).data?["logInWith"]?["viewer"]
            return (index % 4, viewer?["user"]?["objectId"]?.stringValue, viewer?["sessionToken"]?.stringValue)
        })
        for (device, id, token) in grants {
            #expect(id == users[device])
            let token = try #require(token)
            #expect(h.graphql(Self.viewer, token: token).data?["viewer"]?["user"]?["objectId"]?.stringValue == users[device])
        }
        #expect(try h.count("SELECT count(*)::int FROM sessions") == 4 + 24)
    }

    /// A log-in from an installation replaces the user's session from it, also when several
    /// arrive at once (they may share a batch): one session per installation is left, and it works.
    @Test func concurrentLogInsFromOneInstallationLeaveOneSession() throws {
        let h = try Harness(poolSize: 4)
        let guest = try Self.guest(h, "device-1")
        let tokens = try #require(simultaneously(12) { _ in
            Self.logInWith(h, ["anonymous": ["id": "device-1"]], installationId: "install-1")
                .data?["logInWith"]?["viewer"]?["sessionToken"]?.stringValue
        })
        #expect(tokens.allSatisfy { $0 != nil })
        #expect(try h.count("SELECT count(*)::int FROM sessions WHERE installation_id = 'install-1'") == 1)
        let working = tokens.compactMap { $0 }.filter {
            h.graphql(Self.viewer, token: $0).data?["viewer"]?["user"]?["objectId"]?.stringValue == guest.id
        }
        #expect(working.count == 1)
        // The session made without an installation id is not replaced.
        #expect(h.graphql(Self.viewer, token: guest.token).errors.isEmpty)
    }

    /// A provider log-in leaves the account's password lockout and failed count as they are.
    @Test func aProviderLogInLeavesThePasswordLockout() throws {
        let h = try Harness()
        let guest = try Self.guest(h, "device-1")
        _ = try h.rows("UPDATE users SET failed_login_count = 2, lockout_until = now() + interval '5 minutes'")
        #expect(try Self.guest(h, "device-1").id == guest.id)
        #expect(try h.count("SELECT count(*)::int FROM users WHERE failed_login_count = 2 AND lockout_until > now()") == 1)
    }

    @Test func anonymousCountsAgainstTheAddressLimit() throws {
        let h = try Harness(configuration: AbuseLimitTests.configuration(perAddress: 2, perAccount: 0))
        #expect(Self.logInWith(h, ["anonymous": ["id": "a"]]).errors.isEmpty)
        #expect(Self.logInWith(h, ["anonymous": ["id": "a"]]).errors.isEmpty)
        #expect(Self.error(Self.logInWith(h, ["anonymous": ["id": "b"]])) == "155 Too many requests.")
        #expect(Self.logInWith(h, ["anonymous": ["id": "b"]], address: "192.0.2.2").errors.isEmpty)
    }

    static let unsupported = "252 This authentication method is unsupported."
    static let invalidAnonymous = "101 Invalid authData for provider anonymous."

    @Test(arguments: [
        ("not configured", #"{"facebook": {"id": "1", "access_token": "x"}}"#, unsupported),
        ("none", "{}", unsupported),
        ("two", #"{"anonymous": {"id": "1"}, "facebook": {"id": "1"}}"#, unsupported),
        ("empty id", #"{"anonymous": {"id": ""}}"#, invalidAnonymous),
        ("no id", #"{"anonymous": {}}"#, invalidAnonymous),
        ("id not a string", #"{"anonymous": {"id": 7}}"#, invalidAnonymous),
        ("id too long", #"{"anonymous": {"id": "\#(String(repeating: "x", count: 129))"}}"#, invalidAnonymous),
        ("not an object", #"{"anonymous": "device-1"}"#, invalidAnonymous),
    ] as [(String, String, String)])
    func refusedAuthData(_ name: String, _ authData: String, _ expected: String) throws {
        let h = try Harness()
        let object = try #require(try JSON.parse(authData).objectValue)
        #expect(Self.error(Self.logInWith(h, object)) == expected, "\(name)")
        #expect(try h.count("SELECT count(*)::int FROM users") == 0)
        // Which check failed goes to the log only.
        #expect(h.capturedLogs.contains { $0.hasPrefix("invalid authData for provider anonymous") } == (expected == Self.invalidAnonymous))
    }

    @Test func disabledAnonymousIsUnsupported() throws {
        let h = try Harness(providers: #"{"anonymous": {"enabled": false}}"#)
        #expect(Self.error(Self.logInWith(h, ["anonymous": ["id": "a"]])) == "252 This authentication method is unsupported.")
    }

    @Test func newUserFieldsAreCheckedAsAtSignUp() throws {
        let h = try Harness()
        _ = try h.signedUp("alice", email: "alice@example.com")
        func error(_ fields: JSONObject, master: Bool = false) -> String? {
            Self.error(Self.logInWith(h, ["anonymous": ["id": "g1"]], fields: fields, master: master))
        }
        #expect(error(["email": "not an email"]) == "125 Email address format is invalid.")
        // Never linked to an existing account by a matching email.
        #expect(error(["email": "ALICE@example.com"]) == "203 Account already exists for this email address.")
        #expect(error(["emailVerified": true]) == "119 Clients aren't allowed to manually update email verification.")
        let result = Self.logInWith(
            h, ["anonymous": ["id": "g1"]], fields: ["email": "g1@example.com", "emailVerified": true, "ACL": ["public": ["read": true, "write": false]]],
            master: true)
        let user = try #require(result.data?["logInWith"]?["viewer"]?["user"], "\(result.json)")
        #expect(user["email"] == "g1@example.com" && user["emailVerified"] == true)
        #expect(user["ACL"]?["public"] == ["read": true, "write": false])
        #expect(user["ACL"]?["users"]?[0]?["write"] == true)
        // Fields are ignored once the id has a user.
        let again = Self.logInWith(h, ["anonymous": ["id": "g1"]], fields: ["email": "other@example.com"])
        #expect(again.data?["logInWith"]?["viewer"]?["user"]?["email"] == "g1@example.com", "\(again.json)")
    }

    @Test func aUserWithoutAPasswordCannotLogInWithOne() throws {
        let h = try Harness()
        let result = Self.logInWith(h, ["anonymous": ["id": "g1"]], fields: ["email": "g1@example.com"])
        let username = try #require(result.data?["logInWith"]?["viewer"]?["user"]?["username"]?.stringValue)
        for name in [username, "g1@example.com"] {
            for password in ["larch-ridge-11", "7654321z"] {
                #expect(Self.error(h.logIn(name, password)) == "101 Invalid username/password.")
            }
        }
        #expect(try h.count("SELECT count(*)::int FROM users WHERE password_hash IS NULL") == 1)
    }

    @Test func linkAndUnlink() throws {
        let h = try Harness()
        let guest = try Self.guest(h, "a1")
        // Linking again replaces the provider's id: the new one logs the guest in, the old one no longer.
        let linked = Self.update(h, guest.id, ["authData": ["anonymous": ["id": "a2"]]], token: guest.token)
        #expect(linked.data?["updateUser"]?["user"]?["authData"] == ["anonymous": ["id": "a2"]], "\(linked.json)")
        #expect(h.graphql(Self.viewer, token: guest.token).data?["viewer"]?["user"]?["authData"] == ["anonymous": ["id": "a2"]])
        #expect(try Self.guest(h, "a2").id == guest.id)
        #expect(try Self.guest(h, "a1").id != guest.id)
        // Unlinking what is not linked changes nothing.
        #expect(Self.update(h, guest.id, ["authData": ["google": .null]], token: guest.token).errors.isEmpty)
        #expect(try Self.guest(h, "a2").id == guest.id)
        // Checked as logInWith checks.
        #expect(Self.error(Self.update(h, guest.id, ["authData": ["anonymous": ["id": ""]]], token: guest.token))
            == "101 Invalid authData for provider anonymous.")
        #expect(Self.error(Self.update(h, guest.id, ["authData": ["facebook": ["id": "1"]]], token: guest.token))
            == "252 This authentication method is unsupported.")
    }

    @Test func anIdLinkedToAnotherUserIsRefused() throws {
        let h = try Harness(poolSize: 8)
        let guest = try Self.guest(h, "taken")
        let alice = try Self.guest(h, "alice-device")
        #expect(Self.error(Self.update(h, alice.id, ["authData": ["anonymous": ["id": "taken"]]], token: alice.token))
            == "208 this auth is already used")
        #expect(try Self.guest(h, "taken").id == guest.id)
        // Two users linking one new id at once: one wins.
        let bob = try Self.guest(h, "bob-device")
        let users = [alice, bob]
        let results = try #require(simultaneously(2) { index in
            Self.error(Self.update(h, users[index].id, ["authData": ["anonymous": ["id": "fresh"]]], token: users[index].token))
        })
        #expect(results.filter { $0 == nil }.count == 1 && results.contains("208 this auth is already used"), "\(results)")
    }

    @Test func theLastWayToLogInCannotBeRemoved() throws {
        let h = try Harness()
        let guest = try Self.guest(h, "g1")
        #expect(Self.error(Self.update(h, guest.id, ["authData": ["anonymous": .null]], token: guest.token))
            == "142 The last way to log in cannot be removed.")
        #expect(try Self.guest(h, "g1").id == guest.id)
    }

    @Test func aGuestGivenAUsernameAndPasswordBecomesARegularUser() throws {
        let h = try Harness()
        let guest = try Self.guest(h, "g1")
        let result = Self.update(h, guest.id, ["username": "carol", "password": "larch-ridge-11"], token: guest.token)
        #expect(result.errors.isEmpty && result.data?["updateUser"]?["user"]?["authData"] == .null, "\(result.json)")
        // The session stays; the password logs in; the anonymous id no longer does.
        #expect(h.graphql(Self.viewer, token: guest.token).data?["viewer"]?["user"]?["username"] == "carol")
        #expect(h.logIn("carol", "larch-ridge-11").errors.isEmpty)
        #expect(try Self.guest(h, "g1").id != guest.id)
    }

    @Test func aFirstPasswordNeedsARecentSession() throws {
        let h = try Harness()
        let guest = try Self.guest(h, "g1")
        h.clock.advance(by: 301)
        #expect(Self.error(Self.update(h, guest.id, ["password": "larch-ridge-11"], token: guest.token)) == "206 Recent authentication required.")
        // There is no password to give.
        #expect(Self.error(Self.update(h, guest.id, ["password": "larch-ridge-11"], token: guest.token, currentPassword: "larch-ridge-11"))
            == "101 Invalid username/password.")
        // A new logInWith is recent.
        let fresh = try Self.guest(h, "g1")
        #expect(Self.update(h, guest.id, ["password": "larch-ridge-11"], token: fresh.token).errors.isEmpty)
    }

    @Test func authDataIsTheOwnersOnly() throws {
        let h = try Harness()
        let guest = try Self.guest(h, "g1")
        let alice = try AccountChangeTests.account(h, "alice")
        let query = "query U($id: ID!) { user(id: $id) { authData } }"
        #expect(h.graphql(query, variables: ["id": .string(guest.id)], token: guest.token).data?["user"]?["authData"]
            == ["anonymous": ["id": "g1"]])
        #expect(h.graphql(query, variables: ["id": .string(guest.id)], master: Harness.masterKey).data?["user"]?["authData"]
            == ["anonymous": ["id": "g1"]])
        #expect(Self.error(h.graphql(query, variables: ["id": .string(guest.id)], token: alice.token)) == "101 Object not found.")
    }

    @Test func deletingAUserFreesItsProviderIds() throws {
        let h = try Harness()
        let guest = try Self.guest(h, "g1")
        #expect(AccountChangeTests.delete(h, guest.id, token: guest.token).errors.isEmpty)
        #expect(try h.count("SELECT count(*)::int FROM user_identities") == 0)
        #expect(try Self.guest(h, "g1").id != guest.id)
    }
}
