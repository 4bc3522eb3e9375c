import Auth
import AuthGraphQL
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Synchronization
import Testing
import WebAuthnTestSupport

/// What operators do with the master keys (docs/operators.md): `users` with each filter and
/// order, paging under inserts, the read-only key, `disableUser`/`enableUser`,
/// `revokeUserSessions` and `logInAs`.
@Suite struct OperatorTests {
    static let readOnlyKey = "test-read-only-key-0123456789"

    static func harness() throws -> Harness {
        var configuration = AuthConfiguration(
            rateLimits: RateLimitPolicy(perAddress: 0, perAccount: 0), masterKey: Harness.masterKey)
        configuration.readOnlyMasterKey = readOnlyKey
        return try Harness(configuration: configuration)
    }

    static let users = """
        query U($where: UserWhereInput, $order: [UserOrder!], $first: Int, $after: String) {
          users(where: $where, order: $order, first: $first, after: $after) {
            count pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
            edges { cursor node { objectId username email disabled disabledReason } }
          }
        }
        """
    static let disable = """
        mutation D($id: ID!, $reason: String) { disableUser(input: {id: $id, reason: $reason}) { user { username disabled disabledReason } } }
        """
    static let enable = "mutation E($id: ID!) { enableUser(input: {id: $id}) { user { username disabled disabledReason } } }"
    static let revokeAll = "mutation R($id: ID!) { revokeUserSessions(input: {id: $id}) { revoked } }"
    static let logInAs = """
        mutation L($id: ID!, $reason: String!) {
          logInAs(input: {id: $id, reason: $reason}) { viewer { sessionToken user { username } session { expiresAt createdWith } } }
        }
        """
    static let userSessions = "query S($id: ID!) { user(id: $id) { sessions { objectId createdWith userAgent } passkeys { name } } }"

    static func error(_ result: ExecutionResult) -> String? { onlyError(result).map { "\($0.code ?? 0) \($0.message)" } }

    nonisolated(unsafe) static let formatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
    static func iso(_ date: Date) -> String { formatter.string(from: date) }

    /// The usernames of one page of `users` with `where` (master key).
    static func usernames(_ h: Harness, _ conditions: JSON, order: String? = nil) throws -> [String] {
        var variables: JSONObject = ["where": conditions]
        if let order { variables["order"] = [.string(order)] }
        let result = h.graphql(users, variables: variables, master: Harness.masterKey)
        let edges = try #require(result.data?["users"]?["edges"]?.arrayValue, "\(result.json)")
        #expect(result.data?["users"]?["count"]?.intValue == edges.count)
        return edges.compactMap { $0["node"]?["username"]?.stringValue }
    }

    /// Signs `username` up with an email; its object id and session token.
    static func member(_ h: Harness, _ username: String, email: String? = nil) throws -> (id: String, token: String) {
        let viewer = try h.signedUp(username, email: email ?? "\(username)@example.com")
        return (try #require(viewer["user"]?["objectId"]?.stringValue), try #require(viewer["sessionToken"]?.stringValue))
    }

    // MARK: Finding users

    @Test func eachFilterFindsItsUsers() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice", email: "Alice@Example.com")
        h.clock.advance(by: 10)
        let cutoff = Self.iso(h.clock.now())
        h.clock.advance(by: 10)
        _ = try Self.member(h, "albert", email: "albert@example.org")
        let bob = try Self.member(h, "bob_1", email: "bob@example.net")
        let guest = try ProviderLogInTests.guest(h, "device-7")
        // A guest's username is random and may begin with any prefix the cases below search:
        // a fixed one keeps every case exact.
        try h.execute("UPDATE users SET username = 'zz-guest' WHERE object_id = \(guest.id)")
        let dave = try TOTPLogInTests.account(h, "dave")
        _ = try TOTPLogInTests.enrol(h, dave)
        try h.execute("UPDATE users SET email_verified = true WHERE object_id = \(alice.id)")
        #expect(Self.error(h.graphql(Self.disable, variables: ["id": .string(bob.id)], master: Harness.masterKey)) == nil)

        let cases: [(JSON, [String])] = [
            (["objectId": ["equalTo": .string(alice.id)]], ["alice"]),
            (["objectId": ["equalTo": .string(GlobalID.encode(type: "_User", id: alice.id))]], ["alice"]),
            (["username": ["equalTo": "ALICE"]], ["alice"]),
            (["username": ["startsWith": "Al"]], ["albert", "alice"]),
            // LIKE's wildcards in a prefix are plain characters.
            (["username": ["startsWith": "bob_"]], ["bob_1"]),
            (["username": ["startsWith": "bo%"]], []),
            (["email": ["equalTo": "alice@example.com"]], ["alice"]),
            (["email": ["startsWith": "ALBERT@"]], ["albert"]),
            (["emailVerified": ["equalTo": true]], ["alice"]),
            (["disabled": ["equalTo": true]], ["bob_1"]),
            (["createdAt": ["lessThan": .string(cutoff)]], ["alice"]),
            (["createdAt": ["greaterThan": .string(cutoff)], "username": ["startsWith": "a"]], ["albert"]),
            (["authProvider": ["equalTo": "anonymous"]], ["zz-guest"]),
            (["mfa": ["equalTo": true]], ["dave"]),
            (["mfa": ["equalTo": false], "username": ["startsWith": "d"]], []),
        ]
        for (conditions, expected) in cases {
            #expect(try Set(Self.usernames(h, conditions)) == Set(expected), "\(conditions)")
        }
        #expect(try Self.usernames(h, ["username": ["startsWith": "a"]], order: "username_ASC") == ["albert", "alice"])
        #expect(try Self.usernames(h, ["username": ["startsWith": "a"]], order: "createdAt_ASC") == ["alice", "albert"])
        #expect(try Self.usernames(h, ["username": ["startsWith": "a"]]) == ["albert", "alice"], "createdAt_DESC by default")
        #expect(try Self.usernames(h, ["disabled": ["equalTo": false]]).count == 4)
    }

    @Test func pagesHaveNoGapsOrRepeatsWhileUsersAreInserted() throws {
        let h = try Self.harness()
        var original: Set<String> = []
        for index in 0..<13 {
            _ = try h.signedUp("user\(index)")
            original.insert("user\(index)")
        }
        var inserted = 0
        for order in ["createdAt_DESC", "createdAt_ASC", "username_ASC"] {
            var seen: [String] = []
            var after: JSON = .null
            var pages = 0
            while true {
                let result = h.graphql(
                    Self.users, variables: ["order": [.string(order)], "first": 4, "after": after], master: Harness.masterKey)
                let connection = try #require(result.data?["users"], "\(result.json)")
                let edges = try #require(connection["edges"]?.arrayValue)
                seen += edges.compactMap { $0["node"]?["username"]?.stringValue }
                #expect(connection["pageInfo"]?["hasPreviousPage"]?.boolValue == (after != .null))
                #expect(connection["pageInfo"]?["endCursor"] == edges.last?["cursor"] ?? .null)
                pages += 1
                // Users arrive between pages, sorting before, among and after those shown.
                for name in ["a-new\(inserted)", "user5-new\(inserted)", "zz-new\(inserted)"] {
                    _ = try h.signedUp(name)
                }
                inserted += 1
                guard connection["pageInfo"]?["hasNextPage"] == true else { break }
                after = try #require(connection["pageInfo"]?["endCursor"])
                #expect(pages < 40)
            }
            #expect(Set(seen).count == seen.count, "\(order): repeats in \(seen)")
            #expect(original.isSubset(of: Set(seen)), "\(order): missing \(original.subtracting(seen))")
        }
    }

    @Test func pagingArgumentsAreChecked() throws {
        let h = try Self.harness()
        _ = try h.signedUp("alice")
        func error(_ variables: JSONObject) -> String? { Self.error(h.graphql(Self.users, variables: variables, master: Harness.masterKey)) }
        #expect(error(["first": 0]) == "142 first must be between 1 and 100.")
        #expect(error(["first": 101]) == "142 first must be between 1 and 100.")
        #expect(error(["after": "not-a-cursor"]) == "142 after is not a cursor of this search's order.")
        let page = h.graphql(Self.users, variables: ["first": 1], master: Harness.masterKey)
        let cursor = try #require(page.data?["users"]?["pageInfo"]?["endCursor"])
        #expect(error(["after": cursor, "order": ["username_ASC"]]) == "142 after is not a cursor of this search's order.")
        #expect(error(["order": ["username_ASC", "createdAt_ASC"]]) == "142 order takes one value.")
        #expect(error(["where": ["authProvider": ["startsWith": "anon"]]]) == "142 authProvider takes equalTo only.")
    }

    // MARK: Keys

    @Test func withoutAMasterKeyTheOperatorsFieldsAnswer119() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        let refused = "119 Permission denied: master key required."
        #expect(Self.error(h.graphql(Self.users, token: alice.token)) == refused)
        #expect(Self.error(h.graphql(Self.users, master: "wrong key")) == refused)
        #expect(Self.error(h.graphql(Self.disable, variables: ["id": .string(alice.id)], token: alice.token)) == refused)
        #expect(Self.error(h.graphql(Self.revokeAll, variables: ["id": .string(alice.id)], token: alice.token)) == refused)
        #expect(Self.error(h.graphql(Self.logInAs, variables: ["id": .string(alice.id), "reason": "x"], token: alice.token)) == refused)
        #expect(Self.error(h.graphql(Self.enable, variables: ["id": .string(alice.id)])) == refused)
        // The owner reads its user, but not its sessions through it, nor why it was disabled.
        let own = h.graphql(Self.userSessions, variables: ["id": .string(alice.id)], token: alice.token)
        #expect(own.errors.map(\.message) == [String](repeating: "Permission denied: master key required.", count: 2), "\(own.json)")
        #expect(own.data?["user"]?["sessions"] == .null)
        #expect(own.data?["user"]?["passkeys"] == .null)
    }

    @Test func theReadOnlyKeyReadsEverything() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        _ = h.graphql(Self.disable, variables: ["id": .string(alice.id), "reason": "spam"], master: Harness.masterKey)
        let found = h.graphql(Self.users, master: Self.readOnlyKey)
        #expect(found.errors.isEmpty, "\(found.json)")
        #expect(found.data?["users"]?["edges"]?[0]?["node"]?["disabledReason"] == "spam")
        let read = h.graphql("query U($id: ID!) { user(id: $id) { username disabledReason } }", variables: ["id": .string(alice.id)], master: Self.readOnlyKey)
        #expect(read.data?["user"]?["disabledReason"] == "spam", "\(read.json)")
    }

    /// Every mutation of the schema, with the smallest input its types accept: each is refused
    /// with the read-only key before it runs.
    @Test func theReadOnlyKeyIsRefusedOnEveryMutation() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        let schema = try AuthGraphQL.schema()
        let mutations = try #require(schema.mutationType?.fields)
        #expect(mutations.count > 20)
        for field in mutations {
            var variables: JSONObject = [:]
            var declarations: [String] = []
            var arguments: [String] = []
            for argument in field.arguments where argument.type.isNonNull {
                variables[argument.name] = Self.smallest(argument.type, in: schema, id: alice.id)
                declarations.append("$\(argument.name): \(argument.type)")
                arguments.append("\(argument.name): $\(argument.name)")
            }
            let document = "mutation M\(declarations.isEmpty ? "" : "(\(declarations.joined(separator: ", ")))") { "
                + "\(field.name)\(arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))") { __typename } }"
            let result = h.graphql(document, variables: variables, token: alice.token, master: Self.readOnlyKey)
            #expect(Self.error(result) == "119 Permission denied: read-only master key.", "\(field.name): \(result.json)")
        }
        // Nothing ran: alice still has her session and is not disabled.
        #expect(h.viewer(token: alice.token).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM users WHERE disabled_at IS NOT NULL") == 0)
    }

    /// The smallest value of `type`: a required input object's required fields, the first enum
    /// value, and for scalars a value each accepts (`id` for IDs).
    static func smallest(_ type: TypeRef, in schema: GraphQLSchema, id: String) -> JSON {
        switch type {
        case .nonNull(let inner): return smallest(inner, in: schema, id: id)
        case .list: return []
        case .named(let name):
            switch schema.type(name) {
            case .inputObject(let object)?:
                var value = JSONObject()
                for field in object.fields where field.type.isNonNull {
                    value[field.name] = smallest(field.type, in: schema, id: id)
                }
                return .object(value)
            case .enumType(let enumeration)?: return .string(enumeration.values[0].name)
            default:
                switch name {
                case "ID": return .string(id)
                case "Int": return 1
                case "Float": return 1.5
                case "Boolean": return false
                case "Object": return [:]
                case "Date": return "2026-11-30T08:00:00.000Z"
                default: return "x"
                }
            }
        }
    }

    // MARK: Disabling

    @Test func disablingEndsEverySessionAndEnablingLetsTheUserBackIn() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        let other = try h.loggedIn("alice")
        let bob = try Self.member(h, "bob")
        let disabled = h.graphql(Self.disable, variables: ["id": .string(alice.id), "reason": "  chargeback  "], master: Harness.masterKey)
        #expect(disabled.data?["disableUser"]?["user"] == ["username": "alice", "disabled": true, "disabledReason": "chargeback"], "\(disabled.json)")
        for token in [alice.token, other] { #expect(Self.error(h.viewer(token: token)) == "209 Invalid session token") }
        #expect(h.viewer(token: bob.token).errors.isEmpty)
        #expect(try h.count("SELECT count(*) FROM sessions WHERE user_id = \(alice.id)") == 0)
        #expect(Self.error(h.logIn("alice", Harness.password)) == "101 This account has been disabled.")
        // A wrong password answers as for anyone.
        #expect(Self.error(h.logIn("alice", "wrong password")) == "101 Invalid username/password.")
        // The owner does not see why.
        #expect(Self.error(h.graphql(Self.disable, variables: ["id": .string("nope123456")], master: Harness.masterKey)) == "101 Object not found.")

        let enabled = h.graphql(Self.enable, variables: ["id": .string(alice.id)], master: Harness.masterKey)
        #expect(enabled.data?["enableUser"]?["user"] == ["username": "alice", "disabled": false, "disabledReason": .null], "\(enabled.json)")
        let token = try h.loggedIn("alice")
        let viewer = h.graphql("query { viewer { user { disabled disabledReason } } }", token: token)
        #expect(viewer.data?["viewer"]?["user"] == ["disabled": false, "disabledReason": .null])
    }

    @Test func everyLogInKindIsRefusedOnlyAfterItsCredentialChecks() throws {
        let h = try Self.harness()
        // A password with TOTP.
        let dave = try TOTPLogInTests.account(h, "dave")
        _ = try TOTPLogInTests.enrol(h, dave)
        // A guest (the anonymous provider).
        let guest = try ProviderLogInTests.guest(h, "device-9")
        // A passkey.
        let erin = try Self.member(h, "erin")
        var credential = try PasskeyTests.registered(h, token: erin.token)
        for id in [dave.id, guest.id, erin.id] {
            #expect(Self.error(h.graphql(Self.disable, variables: ["id": .string(id)], master: Harness.masterKey)) == nil)
        }
        let disabled = "101 This account has been disabled."

        // Password, then the TOTP step: a wrong password or code answers as for anyone.
        #expect(Self.error(TOTPLogInTests.logIn(h, nil, name: "dave", password: "wrong")) == "101 Invalid username/password.")
        #expect(Self.error(TOTPLogInTests.logIn(h, nil, name: "dave")) == "-1 Missing additional authData mfa")
        h.clock.advance(by: 30)
        #expect(Self.error(TOTPLogInTests.logIn(h, "000000", name: "dave")) == "141 Invalid MFA token")
        #expect(Self.error(TOTPLogInTests.logIn(h, dave.code(h), name: "dave")) == disabled)

        // A provider.
        #expect(Self.error(ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-9"]])) == disabled)

        // A passkey: a wrong signature is the contract's one message; a good one is refused.
        let options = try PasskeyTests.loginOptions(h, username: "erin")
        let forged = try PasskeyTests.authenticator.assert(
            options: options, credential: &credential, SoftwareAuthenticator.Variation(badSignature: true))
        #expect(PasskeyTests.error(PasskeyTests.logIn(h, forged)) == "101 Invalid passkey.")
        let good = try PasskeyTests.authenticator.assert(options: try PasskeyTests.loginOptions(h, username: "erin"), credential: &credential)
        #expect(PasskeyTests.error(PasskeyTests.logIn(h, good)) == disabled)
        #expect(try h.count("SELECT count(*) FROM sessions") == 0)
    }

    /// A log-in whose checks passed just before a disabling, and whose session comes after it,
    /// makes no session (it would otherwise work again after `enableUser`): it waits for the
    /// disabling and is refused with the contract's message. By password, and by a provider (the
    /// returning guest's batched statement).
    @Test func aLogInRacingADisablingMakesNoSession() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        let disabling = "UPDATE users SET disabled_at = now(), disabled_reason = 'race' WHERE object_id = $1"
        let refused = try Self.racing(h, userId: alice.id, change: disabling) { h.logIn("alice", Harness.password) }
        #expect(Self.error(refused) == "101 This account has been disabled.", "\(refused.json)")
        let guest = try ProviderLogInTests.guest(h, "device-7")
        let refusedGuest = try Self.racing(h, userId: guest.id, change: disabling) {
            ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-7"]])
        }
        #expect(Self.error(refusedGuest) == "101 This account has been disabled.", "\(refusedGuest.json)")
        for id in [alice.id, guest.id] {
            #expect(Self.error(h.graphql(Self.enable, variables: ["id": .string(id)], master: Harness.masterKey)) == nil)
        }
        #expect(try h.count("SELECT count(*) FROM sessions WHERE user_id IN (\(alice.id), \(guest.id))") == 0)
    }

    /// A log-in by the old password whose check passed just before a password reset makes no
    /// session after the reset ended the others: it waits for the reset and answers as a wrong
    /// password would. Also when the old hash was an imported bcrypt one, which the log-in
    /// replaces: its rehash of the old password does not overwrite the reset's.
    @Test(arguments: [nil, UserImportTests.bcrypt])
    func aLogInRacingAPasswordResetMakesNoSession(_ importedHash: String?) throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        if let importedHash { try h.execute("UPDATE users SET password_hash = \(importedHash) WHERE object_id = \(alice.id)") }
        // Another hash of the right form: its last character changed.
        let reset = """
            UPDATE users SET updated_at = now(), password_hash = overlay(password_hash
                PLACING CASE WHEN right(password_hash, 1) = 'A' THEN 'B' ELSE 'A' END FROM length(password_hash))
            WHERE object_id = $1
            """
        let refused = try Self.racing(h, userId: alice.id, change: reset) { h.logIn("alice", Harness.password) }
        #expect(Self.error(refused) == "101 Invalid username/password.", "\(refused.json)")
        #expect(try h.count("SELECT count(*) FROM sessions WHERE user_id = \(alice.id)") == 0)
        // The reset's password stands.
        #expect(Self.error(h.logIn("alice", Harness.password)) == "101 Invalid username/password.")
    }

    /// Two first log-ins of an imported user at once each want to replace its bcrypt hash: the
    /// second finds the first's rehash instead of the hash it checked, checks its password
    /// against that, and gets its session (writing no rehash of its own).
    @Test func aLogInWhoseRehashLostToAnotherLogInsStillGetsItsSession() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        try h.execute("UPDATE users SET password_hash = \(UserImportTests.bcrypt) WHERE object_id = \(alice.id)")
        let othersRehash = try PasswordHasher(cost: .minimum).hash(Harness.password)
        let racing = try Self.racing(h, userId: alice.id, change: "UPDATE users SET password_hash = '\(othersRehash)' WHERE object_id = $1") {
            h.logIn("alice", Harness.password)
        }
        #expect(racing.errors.isEmpty, "\(racing.json)")
        #expect(try h.count("SELECT count(*) FROM sessions WHERE user_id = \(alice.id)") == 1)
        #expect(try h.rows("SELECT password_hash FROM users WHERE object_id = \(alice.id)").first?.decode(String.self, at: 0) == othersRehash)
    }

    /// Runs `logIn` on another thread while a change of `userId` that ends its sessions holds the
    /// user's row (locked for update, `change` made with the user's id as `$1`, not committed), as
    /// `disableUser` and a password reset do; once the log-in waits for that row, ends the user's
    /// sessions and commits. The log-in's result.
    static func racing(
        _ h: Harness, userId: String, change: String, _ logIn: @escaping @Sendable () -> ExecutionResult
    ) throws -> ExecutionResult {
        let result = Mutex<ExecutionResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        let changing = try h.database.connect()
        try changing.transaction { tx in
            _ = try tx.queryFirst("SELECT 1 FROM users WHERE object_id = \(userId) FOR UPDATE")
            var bindings = PostgresBindings()
            bindings.append(userId)
            try tx.execute(PostgresQuery(unsafeSQL: change, bindings: bindings))
            Thread {
                let outcome = logIn()
                result.withLock { $0 = outcome }
                done.signal()
            }.start()
            let deadline = Date().addingTimeInterval(30)
            while try h.count("""
                SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()
                """) == 0
            {
                guard Date() < deadline else { throw HarnessError("the log-in never waited for the user's row") }
                Thread.sleep(forTimeInterval: 0.01)
            }
            try tx.execute("DELETE FROM sessions WHERE user_id = \(userId)")
        }
        done.wait()
        return try #require(result.withLock { $0 })
    }

    @Test func revokeUserSessionsEndsEveryOneOfThem() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        let other = try h.loggedIn("alice")
        let revoked = h.graphql(Self.revokeAll, variables: ["id": .string(alice.id)], master: Harness.masterKey)
        #expect(revoked.data?["revokeUserSessions"]?["revoked"] == 2, "\(revoked.json)")
        for token in [alice.token, other] { #expect(Self.error(h.viewer(token: token)) == "209 Invalid session token") }
        // The user can log in again.
        _ = try h.loggedIn("alice")
        #expect(Self.error(h.graphql(Self.revokeAll, variables: ["id": "nope123456"], master: Harness.masterKey)) == "101 Object not found.")
    }

    // MARK: logInAs

    @Test func logInAsGivesAListedOneHourSession() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        let result = h.graphql(
            Self.logInAs, variables: ["id": .string(alice.id), "reason": "ticket 42"], master: Harness.masterKey, userAgent: "Console/1.0")
        let viewer = try #require(result.data?["logInAs"]?["viewer"], "\(result.json)")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        #expect(viewer["user"]?["username"] == "alice")
        #expect(viewer["session"]?["createdWith"] == ["action": "login", "authProvider": "masterkey", "factors": ["masterkey"]])
        let expiresAt = try #require(viewer["session"]?["expiresAt"]?.stringValue.flatMap { Self.formatter.date(from: $0) })
        #expect(abs(expiresAt.timeIntervalSince(h.clock.now()) - 3600) < 60)

        // Listed among the user's sessions, to the user and to the master key.
        let listed = h.graphql(Self.userSessions, variables: ["id": .string(alice.id)], master: Harness.masterKey)
        let sessions = try #require(listed.data?["user"]?["sessions"]?.arrayValue, "\(listed.json)")
        #expect(sessions.count == 2)
        #expect(sessions.contains { $0["createdWith"]?["authProvider"] == "masterkey" && $0["userAgent"] == "Console/1.0" })
        let own = h.graphql("query { viewer { sessions { createdWith } } }", token: alice.token)
        #expect(own.data?["viewer"]?["sessions"]?.arrayValue?.count == 2)

        // It works for the hour, and not after.
        #expect(h.viewer(token: token).errors.isEmpty)
        h.clock.advance(by: 3590)
        #expect(h.viewer(token: token).errors.isEmpty)
        h.clock.advance(by: 20)
        #expect(Self.error(h.viewer(token: token)) == "209 Session token is expired.")
        #expect(h.viewer(token: alice.token).errors.isEmpty)
    }

    @Test func logInAsIsRefusedForADisabledUserAndWithoutAReason() throws {
        let h = try Self.harness()
        let alice = try Self.member(h, "alice")
        #expect(Self.error(h.graphql(Self.logInAs, variables: ["id": .string(alice.id), "reason": " "], master: Harness.masterKey))
            == "142 reason is required.")
        _ = h.graphql(Self.disable, variables: ["id": .string(alice.id)], master: Harness.masterKey)
        #expect(Self.error(h.graphql(Self.logInAs, variables: ["id": .string(alice.id), "reason": "help"], master: Harness.masterKey))
            == "101 This account has been disabled.")
        #expect(try h.count("SELECT count(*) FROM sessions") == 0)
        #expect(Self.error(h.graphql(Self.logInAs, variables: ["id": "nope123456", "reason": "help"], master: Harness.masterKey))
            == "101 Object not found.")
    }
}
