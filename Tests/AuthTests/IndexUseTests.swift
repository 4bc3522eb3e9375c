import Auth
import AuthGraphQL
import Foundation
import GraphQL
import JSON
import Postgres
import Sodium
import Testing

/// Every statement of the hot paths is served by an index, so that its cost stays flat as the
/// tables grow to millions of rows. The database plans with sequential scans switched off: a
/// statement that still scans a table has no index it can use. The operations run through the
/// service (the statements they really send), and the tables' scan counters tell which were read
/// whole.
@Suite struct IndexUseTests {
    /// Tables that grow with users and sessions (not the few rows of signing keys or migrations).
    static let growingTables: Set = [
        "users", "sessions", "user_identities", "account_tokens", "known_installations", "login_attempts",
        "mail_outbox", "mail_requests", "passkeys", "webauthn_challenges", "user_totp", "user_recovery_codes",
    ]

    @Test func theHotPathsScanNoGrowingTable() throws {
        let setup = try Harness()
        let admin = try setup.database.connect()
        defer { admin.close() }
        try admin.unsafeExecuteScript(#"ALTER DATABASE "\#(setup.database.name)" SET enable_seqscan = off"#)
        // A harness on the same database with connections opened after the change.
        let h = try Harness(sharing: setup)
        _ = try sequentialScans(setup)  // the migrations' own scans, counted before the baseline
        let before = try sequentialScans(h)

        let signUpToken = try #require(try h.signedUp("alice", email: "alice@example.com")["sessionToken"]?.stringValue)
        let phone = try h.loggedIn("alice", installationId: "phone")
        _ = try h.loggedIn("alice@example.com", installationId: "laptop")
        #expect(onlyError(h.logIn("alice", "wrong password"))?.code == 101)
        #expect(onlyError(h.logIn("nobody", "wrong password"))?.code == 101)
        #expect(h.viewer(token: phone).errors.isEmpty)
        let revoked = h.graphql(UserSessionsTests.revokeOtherSessions, variables: ["input": [:]], token: phone)
        #expect(revoked.errors.isEmpty, "\(revoked.json)")
        #expect(onlyError(h.viewer(token: signUpToken)) != nil)
        #expect(h.logOut(token: phone).errors.isEmpty)
        #expect(PasswordResetTests.reset(h, "alice@example.com").errors.isEmpty)
        let token = try #require(try OutboxRow.latestToken(h, kind: "reset_password"))
        #expect(PasswordResetTests.confirm(h, "alice", "a new password 12", token).errors.isEmpty)
        _ = try h.loggedIn("alice", "a new password 12")
        #expect(ProviderLogInTests.logInWith(h, ["anonymous": ["id": "device-1"]]).errors.isEmpty)
        let export = [
            UserImportTests.parseUser("importedA", "importedA", email: "a@example.com", extra: #", "authData": {"facebook": {"id": "fb-9"}}"#),
            UserImportTests.parseUser("importedB", "alice"),
        ].joined(separator: "\n")
        let imported = try Array(export.utf8).withUnsafeBytes { try UserImporter(pool: h.pool).run($0, format: .parse) }
        #expect(imported == .init(imported: 1, refused: 1))
        try h.auth.core.refreshHashKinds()
        #expect(h.auth.core.hashKinds.kinds.contains("$2b$10"))
        h.clock.advance(by: 400 * 86400)
        try SessionJanitor(pool: h.pool, batchSize: 2).deleteExpired(now: h.clock.now())

        let after = try sequentialScans(h)
        let scanned = Self.growingTables.filter { (after[$0] ?? 0) > (before[$0] ?? 0) }.sorted()
        #expect(scanned.isEmpty, "read whole: \(scanned)")
    }

    /// `users` with every filter of `UserWhereInput` (each with the operators it takes, and
    /// several together), in every `UserOrder`: the first page and the page after its cursor.
    /// The filters are checked against the served schema, so that a filter added there is added
    /// here. `count` is left out: it reads every match (for `disabled: false`, nearly every user),
    /// by an index or not.
    static let userFilters: [JSONObject] = [
        [:],
        ["objectId": ["equalTo": "aaaaaaaaaa"]],
        ["username": ["equalTo": "ALICE"]],
        ["username": ["startsWith": "al"]],
        ["email": ["equalTo": "alice@example.com"]],
        ["email": ["startsWith": "AL"]],
        ["emailVerified": ["equalTo": true]],
        ["emailVerified": ["equalTo": false]],
        ["createdAt": ["greaterThan": "2000-01-01T00:00:00.000Z"]],
        ["createdAt": ["greaterThan": "2000-01-01T00:00:00.000Z", "lessThan": "2100-01-01T00:00:00.000Z"]],
        ["disabled": ["equalTo": true]],
        ["disabled": ["equalTo": false]],
        ["authProvider": ["equalTo": "anonymous"]],
        ["mfa": ["equalTo": true]],
        ["mfa": ["equalTo": false]],
        ["authProvider": ["equalTo": "anonymous"], "mfa": ["equalTo": false], "createdAt": ["lessThan": "2100-01-01T00:00:00.000Z"]],
        ["mfa": ["equalTo": true], "username": ["startsWith": "d"], "emailVerified": ["equalTo": false]],
        ["authProvider": ["equalTo": "anonymous"], "disabled": ["equalTo": false]],
    ]

    static let usersPage = """
        query U($where: UserWhereInput, $order: [UserOrder!], $first: Int, $after: String) {
          users(where: $where, order: $order, first: $first, after: $after) {
            pageInfo { hasNextPage endCursor } edges { cursor node { objectId username } }
          }
        }
        """

    @Test func theUsersSearchScansNoGrowingTable() throws {
        let schema = try AuthGraphQL.schema()
        guard case .inputObject(let whereInput)? = schema.type("UserWhereInput"),
            case .enumType(let orderEnum)? = schema.type("UserOrder")
        else { Issue.record("no UserWhereInput or UserOrder in the schema"); return }
        let filtered = Set(Self.userFilters.flatMap(\.keys))
        #expect(filtered == Set(whereInput.fields.map(\.name)), "every filter of UserWhereInput, and no other")

        let setup = try Harness()
        let admin = try setup.database.connect()
        defer { admin.close() }
        try admin.unsafeExecuteScript(#"ALTER DATABASE "\#(setup.database.name)" SET enable_seqscan = off"#)
        let h = try Harness(sharing: setup)
        // Two users for each filter's second page: in the order and on the index it walks.
        var ids: [String: String] = [:]
        for name in ["alice", "albert", "bob", "carol"] {
            ids[name] = try OperatorTests.member(h, name).id
        }
        try h.execute("UPDATE users SET email_verified = true WHERE username IN ('alice', 'albert')")
        for name in ["bob", "carol"] {
            let disabled = h.graphql(OperatorTests.disable, variables: ["id": .string(ids[name]!)], master: Harness.masterKey)
            #expect(disabled.errors.isEmpty, "\(disabled.json)")
        }
        _ = try ProviderLogInTests.guest(h, "device-1")
        _ = try ProviderLogInTests.guest(h, "device-2")
        for name in ["dave", "dora"] {
            _ = try TOTPLogInTests.enrol(h, try TOTPLogInTests.account(h, name))
        }
        _ = try sequentialScans(setup)
        let before = try sequentialScans(h)

        for conditions in Self.userFilters {
            for order in orderEnum.values.map(\.name) {
                let variables: JSONObject = ["where": .object(conditions), "order": [.string(order)], "first": 1]
                let first = h.graphql(Self.usersPage, variables: variables, master: Harness.masterKey)
                #expect(first.errors.isEmpty, "\(conditions) \(order): \(first.json)")
                let pageInfo = first.data?["users"]?["pageInfo"]
                guard pageInfo?["hasNextPage"] == true, let cursor = pageInfo?["endCursor"] else { continue }
                var next = variables
                next["after"] = cursor
                let second = h.graphql(Self.usersPage, variables: next, master: Harness.masterKey)
                #expect(second.errors.isEmpty, "\(conditions) \(order), after: \(second.json)")
                #expect(second.data?["users"]?["edges"]?.arrayValue?.isEmpty == false, "\(conditions) \(order), after")
            }
        }

        let after = try sequentialScans(h)
        let scanned = Self.growingTables.filter { (after[$0] ?? 0) > (before[$0] ?? 0) }.sorted()
        #expect(scanned.isEmpty, "read whole: \(scanned)")
    }

    /// Sequential scans per table so far, after every connection of the pool has flushed its
    /// counters: each is checked out at once and asked to flush before it next goes idle, which it
    /// does before answering (PostgreSQL reports statistics before ReadyForQuery).
    func sequentialScans(_ h: Harness) throws -> [String: Int] {
        func flush(_ depth: Int) throws {
            try h.pool.withConnection { connection in
                try connection.execute("SELECT pg_stat_force_next_flush()")
                if depth > 1 { try flush(depth - 1) }
            }
        }
        try flush(h.pool.configuration.size)
        return try h.pool.withConnection { connection in
            var scans: [String: Int] = [:]
            for row in try connection.query("SELECT relname::text, seq_scan FROM pg_stat_user_tables") {
                scans[try row.decode(String.self, at: 0)] = try row.decode(Int.self, at: 1)
            }
            return scans
        }
    }
}
