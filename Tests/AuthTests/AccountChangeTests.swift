import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Testing

/// updateUser, deleteUser, user(id) and node(id) (contract: accounts.md).
@Suite struct AccountChangeTests {
    static let update = """
        mutation U($input: UpdateUserInput!) {
          updateUser(input: $input) { clientMutationId user { objectId username email emailVerified } }
        }
        """
    static let delete = """
        mutation D($input: DeleteUserInput!) { deleteUser(input: $input) { user { objectId username email } } }
        """

    static func update(
        _ h: Harness, _ id: String, _ fields: JSONObject, currentPassword: String? = nil, token: String? = nil, master: Bool = false
    ) -> ExecutionResult {
        var input: JSONObject = ["id": .string(id), "fields": .object(fields)]
        if let currentPassword { input["currentPassword"] = .string(currentPassword) }
        return h.graphql(update, variables: ["input": .object(input)], token: token, master: master ? Harness.masterKey : nil)
    }

    static func delete(_ h: Harness, _ id: String, currentPassword: String? = nil, token: String? = nil, master: Bool = false) -> ExecutionResult {
        var input: JSONObject = ["id": .string(id)]
        if let currentPassword { input["currentPassword"] = .string(currentPassword) }
        return h.graphql(delete, variables: ["input": .object(input)], token: token, master: master ? Harness.masterKey : nil)
    }

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code!) \($0.message)" } }

    /// Signs up; the objectId, global id and session token.
    static func account(_ h: Harness, _ name: String, email: String? = nil) throws -> (id: String, globalId: String, token: String) {
        let viewer = try h.signedUp(name, email: email)
        return (try #require(viewer["user"]?["objectId"]?.stringValue), try #require(viewer["user"]?["id"]?.stringValue),
                try #require(viewer["sessionToken"]?.stringValue))
    }

    @Test func authorizationErrors() throws {
        let h = try Harness()
        let alice = try Self.account(h, "alice")
        let bob = try Self.account(h, "bob")
        #expect(Self.error(Self.update(h, alice.id, ["username": "x1"])) == "206 Cannot modify user \(alice.id).")
        #expect(Self.error(Self.update(h, bob.id, ["username": "x1"], token: alice.token)) == "206 Insufficient auth.")
        #expect(Self.error(Self.update(h, "zzzzzzzzzz", ["username": "x1"], token: alice.token)) == "206 Insufficient auth.")
        #expect(Self.error(Self.update(h, "zzzzzzzzzz", ["username": "x1"], master: true)) == "101 Object not found.")
        #expect(Self.error(Self.update(h, alice.id, ["username": "x1"], token: "r:unknown")) == "209 Invalid session token")
        #expect(Self.error(Self.delete(h, alice.id)) == "206 Insufficient auth to delete user")
        #expect(Self.error(Self.delete(h, bob.id, token: alice.token)) == "206 Insufficient auth.")
        #expect(Self.error(Self.delete(h, "zzzzzzzzzz", master: true)) == "101 Object not found.")
    }

    @Test func fieldErrors() throws {
        let h = try Harness()
        let alice = try Self.account(h, "alice", email: "alice@example.com")
        _ = try Self.account(h, "bob", email: "bob@example.com")
        _ = try Self.account(h, "dan@example.org")
        func update(_ fields: JSONObject) -> String? { Self.error(Self.update(h, alice.globalId, fields, token: alice.token)) }
        #expect(update(["emailVerified": true]) == "119 Clients aren't allowed to manually update email verification.")
        #expect(update(["username": ""]) == "200 bad or missing username")
        #expect(update(["username": "BOB"]) == "202 Account already exists for this username.")
        #expect(update(["username": "bob@example.com"]) == "202 Account already exists for this username.")
        #expect(update(["email": "Bob@Example.com"]) == "203 Account already exists for this email address.")
        #expect(update(["email": "DAN@example.org"]) == "203 Account already exists for this email address.", "another's username")
        #expect(update(["email": "not an email"]) == "125 Email address format is invalid.")
        #expect(update(["password": "short"]) == "142 Password does not meet the Password Policy requirements.")
        #expect(update(["password": "password"]) == "142 Password is too common.")
        #expect(update(["authData": ["facebook": ["id": "1"]]]) == "252 This authentication method is unsupported.")
        #expect(update(["username": .string(String(repeating: "u", count: 129))])?.hasPrefix("142 username is too long") == true)
        // Unchanged by all of that.
        #expect(h.viewer(token: alice.token).data?["viewer"]?["user"]?["username"] == "alice")
    }

    @Test func usernameAndAclChangesNeedNoRecentLogIn() throws {
        let h = try Harness()
        let alice = try Self.account(h, "alice")
        h.clock.advance(by: 3600)
        let result = Self.update(h, alice.globalId, ["username": "alice2", "ACL": ["public": ["read": true, "write": false]]], token: alice.token)
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data?["updateUser"]?["user"]?["username"] == "alice2")
        #expect(h.viewer(token: alice.token).data?["viewer"]?["user"]?["username"] == "alice2")
        _ = try h.loggedIn("alice2")
    }

    @Test func passwordChangeKeepsTheCallersSessionAndEndsTheOthers() throws {
        let h = try Harness()
        let alice = try Self.account(h, "alice", email: "alice@example.com")
        let phone = try h.loggedIn("alice", installationId: "phone")
        _ = PasswordResetTests.reset(h, "alice@example.com")
        let resetToken = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        let result = Self.update(h, alice.id, ["password": "brand new pass 1"], token: alice.token)
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(h.viewer(token: alice.token).errors.isEmpty, "the caller's session stays")
        #expect(onlyError(h.viewer(token: phone))?.code == 209)
        #expect(onlyError(h.logIn("alice", Harness.password))?.code == 101)
        _ = try h.loggedIn("alice", "brand new pass 1")
        #expect(try OutboxRow.latest(h, kind: "password_changed")?.recipient == "alice@example.com")
        #expect(onlyError(PasswordResetTests.confirm(h, "alice", "other pass 11", resetToken))?.code == -1, "reset tokens invalidated")
    }

    @Test func recentAuthentication() throws {
        let h = try Harness()
        let alice = try Self.account(h, "alice", email: "alice@example.com")
        h.clock.advance(by: 301)
        #expect(Self.error(Self.update(h, alice.id, ["password": "brand new pass 1"], token: alice.token)) == "206 Recent authentication required.")
        #expect(Self.error(Self.update(h, alice.id, ["email": "a2@example.com"], token: alice.token)) == "206 Recent authentication required.")
        #expect(Self.error(Self.delete(h, alice.id, token: alice.token)) == "206 Recent authentication required.")
        #expect(Self.error(Self.update(h, alice.id, ["email": "a2@example.com"], currentPassword: "wrong password", token: alice.token))
            == "101 Invalid username/password.")
        #expect(Self.error(Self.delete(h, alice.id, currentPassword: "wrong password", token: alice.token)) == "101 Invalid username/password.")
        let result = Self.update(h, alice.id, ["email": "a2@example.com"], currentPassword: Harness.password, token: alice.token)
        #expect(result.errors.isEmpty, "\(result.json)")
        // Same email (ignoring case) is no change: no re-authentication.
        #expect(Self.update(h, alice.id, ["email": "A2@example.com"], token: alice.token).errors.isEmpty)
        // A fresh log-in is recent; the master key needs none.
        let fresh = try h.loggedIn("alice")
        #expect(Self.update(h, alice.id, ["password": "brand new pass 1"], token: fresh).errors.isEmpty)
        #expect(Self.update(h, alice.id, ["password": "brand new pass 2"], master: true).errors.isEmpty)
    }

    @Test func recentAuthenticationZeroIsParsesBehaviour() throws {
        let h = try Harness(configuration: AuthConfiguration(accounts: AccountPolicy(recentAuthentication: 0)))
        let alice = try Self.account(h, "alice")
        h.clock.advance(by: 86_400)
        #expect(Self.update(h, alice.id, ["password": "brand new pass 1"], token: alice.token).errors.isEmpty)
    }

    @Test func emailChangeUnverifiesAndTellsTheOldAddress() throws {
        let h = try Harness(configuration: AuthConfiguration(masterKey: Harness.masterKey, accounts: AccountPolicy(verifyEmails: .on)))
        let alice = try Self.account(h, "alice", email: "alice@example.com")
        #expect(Self.update(h, alice.id, ["emailVerified": true], master: true).errors.isEmpty)
        let result = Self.update(h, alice.id, ["email": "alice@new.example"], token: alice.token)
        #expect(result.data?["updateUser"]?["user"]?["emailVerified"] == false, "\(result.json)")
        #expect(try OutboxRow.latest(h, kind: "email_changed")?.recipient == "alice@example.com")
        #expect(try OutboxRow.latest(h, kind: "verify_email")?.recipient == "alice@new.example")
        let token = try #require(try OutboxRow.latestToken(h, kind: "verify_email"))
        #expect(EmailVerificationTests.verify(h, "alice", token).errors.isEmpty)
        _ = try h.loggedIn("alice@new.example")
    }

    @Test func deletionTakesEverythingAndFreesTheNames() throws {
        let h = try Harness()
        let alice = try Self.account(h, "alice", email: "alice@example.com")
        let phone = try h.loggedIn("alice", installationId: "phone")
        _ = PasswordResetTests.reset(h, "alice@example.com")
        let result = Self.delete(h, alice.globalId, token: alice.token)
        #expect(result.errors.isEmpty, "\(result.json)")
        #expect(result.data?["deleteUser"]?["user"]?["username"] == "alice")
        for token in [alice.token, phone] { #expect(onlyError(h.viewer(token: token))?.code == 209) }
        for table in ["users", "sessions", "account_tokens", "known_installations", "login_attempts"] as [PostgresQuery] {
            #expect(try h.count(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table.sql)")) == 0, "\(table.sql)")
        }
        let mail = try h.rows("SELECT kind FROM mail_outbox WHERE state = 'pending'").map { try $0.decode(String.self, at: 0) }
        #expect(mail == ["account_deleted"], "pending mail goes but the notice")
        _ = try h.signedUp("alice", email: "alice@example.com")
    }

    @Test func userAndNodeAnswerOnlyTheOwnerAndTheMasterKey() throws {
        let h = try Harness()
        let alice = try Self.account(h, "alice")
        let bob = try Self.account(h, "bob")
        for id in [alice.id, alice.globalId] {
            #expect(h.graphql("{ user(id: \"\(id)\") { username } }", token: alice.token).data?["user"]?["username"] == "alice")
            #expect(h.graphql("{ node(id: \"\(id)\") { id ... on User { username } } }", token: alice.token)
                .data?["node"]?["username"] == "alice")
            #expect(h.graphql("{ user(id: \"\(id)\") { username } }", master: Harness.masterKey).data?["user"]?["username"] == "alice")
            #expect(Self.error(h.graphql("{ user(id: \"\(id)\") { username } }", token: bob.token)) == "101 Object not found.")
            #expect(Self.error(h.graphql("{ node(id: \"\(id)\") { id } }", token: bob.token)) == "101 Object not found.")
            #expect(Self.error(h.graphql("{ user(id: \"\(id)\") { username } }")) == "101 Object not found.")
        }
        #expect(Self.error(h.graphql("{ user(id: \"zzzzzzzzzz\") { username } }", master: Harness.masterKey)) == "101 Object not found.")
    }
}
