import Auth
import Foundation
import GraphQL
import JSON
import Postgres
import Testing

/// The audit log through the API: what each change, failed log-in and master-key mutation
/// records (actor, address, no secret), `auditEvents` with its filters and pages,
/// `webhookDeliveries` and `retryWebhookDelivery`, and a user's own `securityEvents`.
@Suite struct AuditTests {
    static let auditEvents = """
        query Audit($where: AuditEventWhereInput, $first: Int, $after: String) {
          auditEvents(where: $where, first: $first, after: $after) {
            pageInfo { hasNextPage endCursor }
            edges { cursor node { id at type actor userId sessionId ip userAgent data } }
          }
        }
        """
    static let updateUsername = """
        mutation Update($id: ID!, $username: String) { updateUser(input: {id: $id, fields: {username: $username}}) { user { username } } }
        """

    static func harness(webhooks: Bool = false) throws -> Harness {
        try Harness(
            configuration: AuthConfiguration(lockout: LockoutPolicy(threshold: 3, durationMinutes: 5), masterKey: Harness.masterKey),
            events: EventLog(
                subscribers: webhooks ? [.init(endpoint: "https://hooks.example.com/in", kinds: nil)] : [], auditing: true))
    }

    /// Every entry, oldest first, through `auditEvents` (master key) page by page.
    static func allEntries(_ h: Harness, where filter: JSON = .null, pageSize: Int = 100) throws -> [JSON] {
        var entries: [JSON] = []
        var after: JSON = .null
        while true {
            let result = h.graphql(auditEvents, variables: ["where": filter, "first": .int(pageSize), "after": after], master: Harness.masterKey)
            #expect(result.errors.isEmpty, "\(result.json)")
            let connection = try #require(result.data?["auditEvents"])
            entries += connection["edges"]?.arrayValue?.compactMap { $0["node"] } ?? []
            guard connection["pageInfo"]?["hasNextPage"] == .bool(true) else { break }
            after = connection["pageInfo"]?["endCursor"] ?? .null
        }
        return entries.reversed()
    }

    @Test func eachChangeAndFailedLogInIsRecordedWithItsActorAndNoSecret() throws {
        let h = try Self.harness()
        let viewer = try h.signedUp("alice", email: "alice@example.com")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        let aliceId = try #require(viewer["user"]?["objectId"]?.stringValue)
        let wrong = "not the password at all"
        // A second between requests: entries of different chains are listed in time order.
        h.clock.advance(by: 1)
        #expect(onlyError(h.logIn("alice", wrong))?.code == 101)
        h.clock.advance(by: 1)
        #expect(onlyError(h.logIn("nobody", wrong))?.code == 101)
        h.clock.advance(by: 1)
        #expect(onlyError(h.logIn("alice", wrong))?.code == 101)
        #expect(onlyError(h.logIn("alice", wrong))?.code == 101, "the third wrong password starts the lock")
        #expect(onlyError(h.logIn("alice", Harness.password))?.message.hasPrefix("Your account is locked") == true)
        let renamed = h.graphql(Self.updateUsername, variables: ["id": .string(aliceId), "username": "alice2"], master: Harness.masterKey)
        #expect(renamed.errors.isEmpty, "\(renamed.json)")

        let entries = try Self.allEntries(h)
        let summary = entries.map { entry -> String in
            let reason = entry["data"]?["reason"]?.stringValue.map { " " + $0 } ?? ""
            return "\(entry["type"]?.stringValue ?? "") \(entry["actor"]?.stringValue ?? "")\(reason) \(entry["userId"]?.stringValue ?? "-")"
        }
        #expect(summary == [
            "user.created user \(aliceId)", "session.created user \(aliceId)",
            "session.failed user password \(aliceId)", "session.failed user password -", "session.failed user password \(aliceId)",
            "user.locked user \(aliceId)", "session.failed user password \(aliceId)", "session.failed user locked \(aliceId)",
            "user.updated master \(aliceId)", "admin.action master \(aliceId)",
        ], "\(summary)")
        #expect(entries.allSatisfy { $0["ip"] == "192.0.2.1" })
        #expect(entries[1]["sessionId"]?.stringValue != nil && entries[1]["sessionId"] == entries[1]["data"]?["sessionId"])
        #expect(entries.last?["data"] == ["userId": .string(aliceId), "operation": "updateUser", "ok": true, "code": .null])
        let text = JSON.array(entries).serializedString()
        for secret in [Harness.password, wrong, token, Harness.masterKey] { #expect(!text.contains(secret)) }
        #expect(try h.auth.audit.log.verify().problem == nil)
    }

    /// The other kinds of failed log-in (a provider's authData, a passkey, the per-account
    /// limit), a log-out and a deletion by the master key: each recorded once, with its actor.
    @Test func otherFailuresLogOutAndDeletionAreRecorded() throws {
        let h = try Harness(
            configuration: AuthConfiguration(rateLimits: RateLimitPolicy(perAccount: 1), masterKey: Harness.masterKey),
            events: EventLog(auditing: true))
        let viewer = try h.signedUp("ann")
        let token = try #require(viewer["sessionToken"]?.stringValue)
        let annId = try #require(viewer["user"]?["objectId"]?.stringValue)
        let sessionId = try #require(try Self.allEntries(h).last?["sessionId"]?.stringValue)
        h.clock.advance(by: 1)
        let provider = h.graphql(
            "mutation { logInWith(input: {authData: {anonymous: {id: \"\"}}}) { viewer { sessionToken } } }")
        #expect(onlyError(provider)?.code == 101, "\(provider.json)")
        h.clock.advance(by: 1)
        let passkey = h.graphql("mutation { logInWithPasskey(input: {credential: {id: \"x\"}}) { viewer { sessionToken } } }")
        #expect(onlyError(passkey)?.code == 101, "\(passkey.json)")
        h.clock.advance(by: 1)
        #expect(onlyError(h.logIn("ann", "wrong password here"))?.code == 101)
        #expect(onlyError(h.logIn("ann", "wrong password here"))?.code == 155, "past the per-account limit")
        h.clock.advance(by: 1)
        #expect(h.graphql(Queries.logOut, variables: ["input": [:]], token: token).errors.isEmpty)
        h.clock.advance(by: 1)
        let second = try h.signedUp("ben")
        let benId = try #require(second["user"]?["objectId"]?.stringValue)
        h.clock.advance(by: 1)
        let deleted = h.graphql(
            "mutation D($id: ID!) { deleteUser(input: {id: $id}) { user { objectId } } }", variables: ["id": .string(benId)],
            master: Harness.masterKey)
        #expect(deleted.errors.isEmpty, "\(deleted.json)")

        let summary = try Self.allEntries(h).dropFirst(2).map { entry -> String in
            let detail = (entry["data"]?["reason"] ?? entry["data"]?["authProvider"] ?? entry["data"]?["operation"])?.stringValue ?? ""
            return "\(entry["type"]?.stringValue ?? "") \(entry["actor"]?.stringValue ?? "") \(detail) \(entry["userId"]?.stringValue ?? "-")"
        }
        #expect(summary == [
            "session.failed user provider -", "session.failed user passkey -", "session.failed user password \(annId)",
            "session.failed user rate_limited \(annId)", "session.ended user logout \(annId)",
            "user.created user password \(benId)", "session.created user password \(benId)",
            "session.ended master user_deleted \(benId)", "user.deleted master  \(benId)", "admin.action master deleteUser \(benId)",
        ], "\(summary)")
        let ended = try Self.allEntries(h, where: ["type": ["in": ["session.ended"]]])
        #expect(ended.first?["sessionId"] == .string(sessionId), "the ended session, from its event")
    }

    @Test func auditEventsNeedTheMasterKeyAndFilterAndPageWithoutGapsOrRepeats() throws {
        let h = try Self.harness()
        let refused = h.graphql(Self.auditEvents)
        #expect(onlyError(refused)?.code == 119 && onlyError(refused)?.message == "Permission denied: master key required.")
        var ids: [String] = []
        for name in ["ann", "ben", "cat"] {
            h.clock.advance(by: 1)
            ids.append(try #require(try h.signedUp(name)["user"]?["objectId"]?.stringValue))
        }
        let all = try Self.allEntries(h)
        #expect(all.count == 6)
        let paged = try Self.allEntries(h, pageSize: 4)
        #expect(paged.map { $0["id"] } == all.map { $0["id"] }, "pages of 4 give the same entries, each once")
        let ben = try Self.allEntries(h, where: ["userId": .string(ids[1])])
        #expect(ben.map { $0["type"] } == ["user.created", "session.created"] && ben.allSatisfy { $0["userId"] == .string(ids[1]) })
        let created = try Self.allEntries(h, where: ["type": ["in": ["user.created"]]], pageSize: 2)
        #expect(created.map { $0["userId"] } == ids.map(JSON.string))
        #expect(try Self.allEntries(h, where: ["at": ["greaterThan": "2999-01-01T00:00:00.000Z"]]).isEmpty)
        #expect(try Self.allEntries(h, where: ["at": ["lessThan": "2999-01-01T00:00:00.000Z"]]).count == 6)
        let badCursor = h.graphql(Self.auditEvents, variables: ["after": "nope"], master: Harness.masterKey)
        #expect(onlyError(badCursor)?.code == 142)
    }

    static let deliveries = """
        query Deliveries($state: WebhookDeliveryState) {
          webhookDeliveries(where: {state: {equalTo: $state}}) {
            edges { node { id eventId eventType url state attempts lastError nextAttemptAt createdAt } }
          }
        }
        """
    static let retry = """
        mutation Retry($id: ID!) { retryWebhookDelivery(input: {id: $id}) { delivery { id state attempts lastError nextAttemptAt } } }
        """

    @Test func webhookDeliveriesAreListedByStateAndAFailedOneIsRetried() throws {
        let h = try Self.harness(webhooks: true)
        let userId = try #require(try h.signedUp("ann")["user"]?["objectId"]?.stringValue)
        try h.execute("""
            UPDATE webhook_outbox SET state = 'failed', attempts = 7, last_error = 'HTTP 500'
            WHERE id = (SELECT min(id) FROM webhook_outbox)
            """)
        #expect(onlyError(h.graphql(Self.deliveries))?.code == 119)
        let failed = h.graphql(Self.deliveries, variables: ["state": "FAILED"], master: Harness.masterKey)
        let nodes = failed.data?["webhookDeliveries"]?["edges"]?.arrayValue?.compactMap { $0["node"] } ?? []
        let node = try #require(nodes.first, "\(failed.json)")
        #expect(nodes.count == 1 && node["eventType"] == "user.created" && node["state"] == "FAILED" && node["attempts"] == 7)
        #expect(node["lastError"] == "HTTP 500" && node["nextAttemptAt"] == .null && node["url"] == "https://hooks.example.com/in")
        let audited = try Self.allEntries(h, where: ["userId": .string(userId)])
        #expect(audited.first?["id"] == node["eventId"], "a delivery's eventId is its audit entry's id")
        let pending = h.graphql(Self.deliveries, variables: ["state": "PENDING"], master: Harness.masterKey)
        #expect(pending.data?["webhookDeliveries"]?["edges"]?.arrayValue?.count == 1)

        #expect(onlyError(h.graphql(Self.retry, variables: ["id": node["id"]!]))?.code == 119)
        let retried = h.graphql(Self.retry, variables: ["id": node["id"]!], master: Harness.masterKey)
        let delivery = try #require(retried.data?["retryWebhookDelivery"]?["delivery"], "\(retried.json)")
        #expect(delivery["state"] == "PENDING" && delivery["attempts"] == 0 && delivery["nextAttemptAt"] != .null)
        #expect(h.graphql(Self.deliveries, variables: ["state": "FAILED"], master: Harness.masterKey)
            .data?["webhookDeliveries"]?["edges"]?.arrayValue?.isEmpty == true)
        #expect(onlyError(h.graphql(Self.retry, variables: ["id": "999999"], master: Harness.masterKey))?.code == 101)
    }

    static let securityEvents = "query { viewer { securityEvents { at type ip userAgent } } }"

    @Test func securityEventsAreTheUsersOwnOnly() throws {
        let h = try Self.harness()
        let ann = try #require(try h.signedUp("ann")["sessionToken"]?.stringValue)
        let ben = try #require(try h.signedUp("ben")["sessionToken"]?.stringValue)
        #expect(onlyError(h.logIn("ann", "wrong password here"))?.code == 101)
        #expect(onlyError(h.logIn("ben", "wrong password here"))?.code == 101)
        _ = try h.loggedIn("ben")
        let annEvents = h.graphql(Self.securityEvents, token: ann).data?["viewer"]?["securityEvents"]?.arrayValue ?? []
        #expect(annEvents.map { $0["type"] } == ["session.failed", "session.created", "user.created"], "\(annEvents)")
        let benEvents = h.graphql(Self.securityEvents, token: ben).data?["viewer"]?["securityEvents"]?.arrayValue ?? []
        #expect(benEvents.map { $0["type"] } == ["session.created", "session.failed", "session.created", "user.created"])
        #expect(annEvents.allSatisfy { $0["ip"] == "192.0.2.1" })
    }
}
