import Foundation
import GatehouseServer
import JSON
import OneTimeCodes
import Sodium
import Postgres
import ServerTestSupport
import TestSupport
import Testing

/// Webhook deliveries and hooks against a receiver that verifies each request with the Standard
/// Webhooks reference library (``WebhookReceiver``), not with Gatehouse's signer.
@Suite struct WebhookTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    static func webhooks(_ receiver: WebhookReceiver, events: String = #"["*"]"#) -> String {
        #"[{"url": "\#(receiver.url())", "secret": "\#(secret)", "events": \#(events)}]"#
    }

    static let signUp = """
        mutation SignUp($username: String!, $password: String!, $email: String) {
          signUp(input: {fields: {username: $username, password: $password, email: $email}}) {
            viewer { sessionToken user { objectId } }
          }
        }
        """
    static let update = """
        mutation Update($id: ID!, $username: String, $password: String) {
          updateUser(input: {id: $id, fields: {username: $username, password: $password}}) { user { username } }
        }
        """
    static let delete = "mutation Delete($id: ID!) { deleteUser(input: {id: $id}) { user { username } } }"

    /// Signs up `username`; its objectId and session token.
    static func signUp(_ live: LiveServer, _ username: String, password: String = "correct horse 1", email: String? = nil) throws
        -> (id: String, token: String)
    {
        var variables = Documents.credentials(username, password)
        if let email { variables["email"] = .string(email) }
        let json = try live.graphQL(signUp, variables: variables).json()
        let id = try #require(json.at("data", "signUp", "viewer", "user", "objectId")?.stringValue, "\(json)")
        return (id, try #require(json.at("data", "signUp", "viewer", "sessionToken")?.stringValue))
    }

    static func connection(_ live: LiveServer) throws -> Connection { try Connection(live.server.settings.databaseURL!) }

    /// The webhook outbox's rows: (event_id, type, state, attempts, seconds until due, last_error), oldest first.
    static func rows(_ live: LiveServer) throws -> [(id: String, type: String, state: String, attempts: Int, dueIn: Double, error: String?)] {
        let connection = try connection(live)
        defer { connection.close() }
        return try connection.query("""
            SELECT event_id, type, state, attempts, extract(epoch FROM next_attempt_at - now())::float8, last_error
            FROM webhook_outbox ORDER BY id
            """).map {
            (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(String.self, at: 2),
             Int(try $0.decode(Int32.self, at: 3)), try $0.decode(Double.self, at: 4), try $0.decode(String?.self, at: 5))
        }
    }

    /// Brings every pending delivery's next attempt forward to now (as if its retry's time had come).
    static func makeDue(_ live: LiveServer) throws {
        let connection = try connection(live)
        defer { connection.close() }
        _ = try connection.execute("UPDATE webhook_outbox SET next_attempt_at = now() WHERE state = 'pending' AND leased_by IS NULL")
    }

    @Test func eventsAreDeliveredSignedInOrderWithTheirDataAndNoSecrets() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        let live = try LiveServer { settings in
            settings.webhooks = Self.webhooks(receiver)
            settings.lockoutThreshold = 2
            settings.recentAuth = 3600
        }
        let password = "correct horse 1"
        let (id, token) = try Self.signUp(live, "ann", password: password, email: "ann@example.com")
        let logIn = try live.graphQL(Documents.logIn, variables: Documents.credentials("ann", password)).json()
        let secondToken = try #require(logIn.at("data", "logIn", "viewer", "sessionToken")?.stringValue)
        let newPassword = "battery staple 2"
        let updated = try live.graphQL(
            Self.update, variables: ["id": .string(id), "username": "ann2", "password": .string(newPassword)],
            headers: [("X-Parse-Session-Token", token)]).json()
        #expect(updated.at("data", "updateUser", "user", "username") == "ann2", "\(updated)")
        #expect(try live.graphQL(Documents.logOut, headers: [("X-Parse-Session-Token", token)]).status == 200)
        // Two wrong passwords: the second starts the lockout.
        for _ in 0..<2 { _ = try live.graphQL(Documents.logIn, variables: Documents.credentials("ann2", "wrong password 9")) }
        let other = try Self.signUp(live, "bob")
        _ = try live.graphQL(Self.delete, variables: ["id": .string(other.id)], headers: [("X-Parse-Session-Token", other.token)])

        let expected: [(String, String)] = [
            ("user.created", id), ("session.created", id), ("session.created", id), ("user.updated", id),
            ("user.password_changed", id), ("session.ended", id), ("session.ended", id), ("user.locked", id),
            ("user.created", other.id), ("session.created", other.id), ("session.ended", other.id), ("user.deleted", other.id),
        ]
        #expect(eventually(timeout: .seconds(120)) { receiver.requests().count >= expected.count }, "\(receiver.requests().map(\.type))")
        let requests = receiver.requests()
        #expect(requests.allSatisfy { $0.verified }, "\(requests.filter { !$0.verified }.map(\.error))")
        #expect(requests.allSatisfy { $0.contentType == "application/json" })
        #expect(Set(requests.map(\.id)).count == requests.count, "one webhook-id per event")
        // Per user, in the order the changes happened.
        for user in [id, other.id] {
            #expect(requests.filter { $0.data["userId"]?.stringValue == user }.map(\.type)
                    == expected.filter { $0.1 == user }.map(\.0))
        }
        func data(_ type: String, _ user: String) -> [JSONObject] {
            requests.filter { $0.type == type && $0.data["userId"]?.stringValue == user }.map(\.data)
        }
        #expect(data("user.created", id).first?["username"] == "ann" && data("user.created", id).first?["email"] == "ann@example.com")
        #expect(data("user.created", id).first?["authProvider"] == "password")
        let sessions = data("session.created", id)
        #expect(sessions.count == 2 && sessions.allSatisfy { $0["ip"] == "127.0.0.1" && $0["factors"] == .array(["password"]) })
        #expect(data("user.updated", id).first?["changed"] == .array(["username", "password"]))
        #expect(data("user.password_changed", id).first?["via"] == "update")
        let ended = data("session.ended", id)
        #expect(ended.map { $0["reason"] } == [.string("password_changed"), .string("logout")], "\(ended)")
        #expect(Set(ended.compactMap { $0["sessionId"]?.stringValue }) == Set(sessions.compactMap { $0["sessionId"]?.stringValue }))
        #expect(data("user.locked", id).first?["until"]?.stringValue != nil)
        #expect(data("session.ended", other.id).first?["reason"] == "user_deleted")
        #expect(data("user.deleted", other.id).first?["username"] == "bob")
        for request in requests {
            for secret in [password, newPassword, token, secondToken, other.token, "wrong password 9", "$argon2"] {
                #expect(!request.line.contains(secret), "\(request.type) holds a secret")
            }
            let timestamp = try #require(request.body?["timestamp"]?.stringValue)
            #expect(timestamp.hasSuffix("Z") && timestamp.count == 24)
        }
        #expect(eventually { (try? live.metric("gatehouse_webhook_delivered_total{endpoint=\"0\"}")) == Double(expected.count) })
        #expect(eventually { (try? live.metric("gatehouse_webhook_pending")) == 0 })
    }

    /// 503, then 200: the same webhook-id again, after the backoff; the user's next event waits
    /// for it (per-user order across a retry) while another user's goes out.
    @Test func aRefusedDeliveryIsRetriedLaterWithTheSameIdAndTheUsersNextEventWaits() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        try receiver.answer("/hooks", with: [["status": 503, "body": ""]])
        let live = try LiveServer { $0.webhooks = Self.webhooks(receiver) }
        let ann = try Self.signUp(live, "ann")
        #expect(eventually { (try? Self.rows(live).first?.error) == "HTTP 503" })
        let failed = try #require(try Self.rows(live).first)
        #expect(failed.type == "user.created" && failed.state == "pending" && failed.attempts == 1)
        #expect(failed.dueIn > 2 && failed.dueIn <= 5, "backed off 5 s: \(failed.dueIn)")
        // Another user's events do not wait.
        let bob = try Self.signUp(live, "bob")
        #expect(eventually { receiver.requests().filter { $0.data["userId"]?.stringValue == bob.id }.count == 2 })
        #expect(receiver.requests().filter { $0.data["userId"]?.stringValue == ann.id }.count == 1, "ann's session.created waits")
        try Self.makeDue(live)
        #expect(eventually { receiver.requests().filter { $0.data["userId"]?.stringValue == ann.id }.count == 3 })
        let anns = receiver.requests().filter { $0.data["userId"]?.stringValue == ann.id }
        #expect(anns.map(\.type) == ["user.created", "user.created", "session.created"])
        #expect(anns[0].id == anns[1].id && anns[1].id != anns[2].id, "the retry keeps its webhook-id")
        #expect(anns.allSatisfy { $0.verified })
        #expect(eventually { (try? live.metric("gatehouse_webhook_retries_total{endpoint=\"0\"}")) == 1 })
        #expect(eventually { (try? live.metric("gatehouse_webhook_delivered_total{endpoint=\"0\"}")) == 4 })
    }

    /// No answer within 10 s is a failed attempt, retried.
    @Test func aReceiverThatTimesOutIsRetried() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        try receiver.answer("/hooks", with: [["delay": 15, "status": 200, "body": ""]])
        let live = try LiveServer { $0.webhooks = Self.webhooks(receiver, events: #"["user.created"]"#) }
        _ = try Self.signUp(live, "ann")
        #expect(eventually(timeout: .seconds(90)) { (try? Self.rows(live).first?.error)?.contains("curl error 28") == true },
                "\(String(describing: try? Self.rows(live)))")
        try Self.makeDue(live)
        #expect(eventually { (try? Self.rows(live).first?.state) == "sent" })
        let requests = receiver.requests()
        #expect(requests.count == 2 && requests[0].id == requests[1].id && requests.allSatisfy { $0.verified })
        #expect(try Self.rows(live).count == 1, "session.created is not taken by this endpoint: nothing stored")
    }

    /// Two instances on one database: every event delivered once.
    @Test func twoInstancesDeliverEachEventOnce() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        let first = try LiveServer { $0.webhooks = Self.webhooks(receiver) }
        let second = try LiveServer { settings in
            settings.webhooks = Self.webhooks(receiver)
            settings.databaseURL = first.server.settings.databaseURL
        }
        for index in 0..<15 { _ = try Self.signUp(index % 2 == 0 ? first : second, "user\(index)") }
        #expect(eventually(timeout: .seconds(120)) { (try? Self.rows(first).allSatisfy { $0.state == "sent" }) == true })
        let requests = receiver.requests()
        #expect(requests.count == 30 && Set(requests.map(\.id)).count == 30, "each event once: \(requests.count)")
        let byFirst = try #require(try first.metric("gatehouse_webhook_delivered_total{endpoint=\"0\"}"))
        let bySecond = try #require(try second.metric("gatehouse_webhook_delivered_total{endpoint=\"0\"}"))
        #expect(byFirst + bySecond == 30)
    }

    /// `kill -9` of a process in the middle of a delivery: another instance delivers it once the
    /// killed one's lease (renewed while it lived) runs out, without anyone making it due.
    @Test func anotherInstanceDeliversAfterKillMidDelivery() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        try receiver.answer("/hooks", with: [["delay": 120, "status": 200, "body": ""]])
        let database = try TestDatabase.create()
        let environment = childEnvironment([
            "DATABASE_URL": database.connectionString, "GATEHOUSE_SECRET_KEY": InProcessServer.secretKey,
            "GATEHOUSE_HASH_COST": "minimum", "GATEHOUSE_WEBHOOKS": Self.webhooks(receiver, events: #"["user.created"]"#),
        ])
        let first = try Child(["--port", "0"], environment: environment)
        defer { first.kill() }
        try #require(first.stdout.wait(timeout: 60) { $0.contains("listening") } != nil, "stderr: \(first.stderr.text)")
        let connection = try Connection(database.connectionString)
        defer { connection.close() }
        _ = try connection.execute("""
            INSERT INTO webhook_outbox (event_id, endpoint, user_id, type, body, created_at, next_attempt_at)
            VALUES ('msg_killed', \(receiver.url()), 'uuuuuuuuu1', 'user.created',
                    '{"type":"user.created","timestamp":"2026-12-06T00:00:00.000Z","data":{"userId":"uuuuuuuuu1"}}', now(), now())
            """)
        // A row written outside a server wakes the senders as the gatehouse tool's writes do (a
        // server wakes its own after its commits), not at their next poll, up to 30 s away.
        _ = try connection.execute("SELECT gatehouse_notify('gatehouse_webhooks', '')")
        #expect(eventually { receiver.requests().count == 1 }, "stderr: \(first.stderr.text)")
        // The lease renewed while the first process waits for the answer.
        #expect(eventually { (try? connection.queryFirst(
            "SELECT next_attempt_at - now() > interval '10 seconds' AND next_attempt_at - created_at > interval '22 seconds' FROM webhook_outbox")?
            .decode(Bool.self, at: 0)) == true }, "renewed")
        kill(first.pid, SIGKILL)
        #expect(first.waitForExit(timeout: 30) == 128 + SIGKILL)
        let second = try LiveServer { settings in
            settings.webhooks = Self.webhooks(receiver, events: #"["user.created"]"#)
            settings.databaseURL = database.connectionString
        }
        #expect(eventually(timeout: .seconds(90)) { receiver.requests().count == 2 })
        #expect(eventually { (try? Self.rows(second).first?.state) == "sent" })
        let requests = receiver.requests()
        #expect(requests.map(\.id) == ["msg_killed", "msg_killed"] && requests.allSatisfy { $0.verified })
    }

    /// The same for mail: a message claimed by a process killed while its SMTP server never
    /// answers goes out from another instance once the lease runs out.
    @Test func anotherInstanceSendsMailAfterKillMidDelivery() throws {
        let silent = try LoopbackListener()
        let smtp = try SMTPTestServer.start()
        let database = try TestDatabase.create()
        let environment = childEnvironment([
            "DATABASE_URL": database.connectionString, "GATEHOUSE_SECRET_KEY": InProcessServer.secretKey,
            "GATEHOUSE_HASH_COST": "minimum", "GATEHOUSE_SMTP_URL": "smtp://127.0.0.1:\(silent.port)?tls=none",
        ])
        let first = try Child(["--port", "0"], environment: environment)
        defer { first.kill() }
        try #require(first.stdout.wait(timeout: 60) { $0.contains("listening") } != nil, "stderr: \(first.stderr.text)")
        let outbox = Outbox(databaseURL: database.connectionString)
        let ids = try outbox.insert()
        #expect(eventually { (try? outbox.row(ids[0]))?.attempts == 1 }, "claimed: \(first.stderr.text)")
        kill(first.pid, SIGKILL)
        #expect(first.waitForExit(timeout: 30) == 128 + SIGKILL)
        #expect(try outbox.row(ids[0]).state == "pending")
        let second = try LiveServer { settings in
            settings.smtpURL = smtp.url
            settings.databaseURL = database.connectionString
        }
        #expect(eventually(timeout: .seconds(90)) { smtp.messageIds() == ids })
        #expect(eventually { (try? outbox.row(ids[0]).state) == "sent" })
        _ = second
    }

    /// A guest's first logInWith, an address verified through its link, TOTP turned on and off:
    /// each delivered, verified by the library, with its data.
    @Test func aGuestAVerifiedAddressAndTOTPOnAndOffAreDelivered() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        let live = try LiveServer { settings in
            settings.webhooks = Self.webhooks(receiver)
            settings.devMailbox = .on
        }
        let guest = try live.graphQL(
            #"mutation { logInWith(input: {authData: {anonymous: {id: "guest-1"}}}) { viewer { user { objectId } } } }"#).json()
        let guestId = try #require(guest.at("data", "logInWith", "viewer", "user", "objectId")?.stringValue, "\(guest)")

        let password = "larch-ridge-11"
        let (id, token) = try Self.signUp(live, "cat", password: password, email: "cat@example.com")
        try DevMailboxTests.run(live, DevMailboxTests.sendVerification, ["e": "cat@example.com"])
        let link = try #require(DevMailboxTests.links(try live.get("/_dev/mailbox").text).first { $0.hasSuffix("username=cat") })
        try DevMailboxTests.run(live, DevMailboxTests.verify, ["u": "cat", "t": .string(DevMailboxTests.token(link))])

        let secret = SecureRandom.bytes(20)
        let totp = TOTP(secret: secret)
        let enrolled = try live.graphQL(
            TOTPLiveTests.update,
            variables: ["id": .string(id), "authData": ["mfa": ["secret": .string(Base32.encode(secret)), "token": .string(totp.code(at: Date()))]]],
            headers: [("X-Parse-Session-Token", token)]).json()
        #expect(enrolled.at("data", "updateUser", "user", "authData") == ["mfa": ["status": "enabled"]], "\(enrolled)")
        // Turning it off takes a session that proved the second factor.
        let logIn = try live.graphQL(TOTPLiveTests.logIn, variables: [
            "username": "cat", "password": .string(password), "authData": ["mfa": ["token": .string(totp.code(at: Date().addingTimeInterval(30)))]],
        ]).json()
        let strong = try #require(logIn.at("data", "logIn", "viewer", "sessionToken")?.stringValue, "\(logIn)")
        let removed = try live.graphQL(
            TOTPLiveTests.update, variables: ["id": .string(id), "authData": ["mfa": .null]], headers: [("X-Parse-Session-Token", strong)]).json()
        #expect(removed["errors"] == nil, "\(removed)")

        let expected: [(String, String)] = [
            ("user.created", guestId), ("session.created", guestId),
            ("user.created", id), ("session.created", id), ("user.email_verified", id), ("mfa.enabled", id),
            ("session.created", id), ("mfa.disabled", id),
        ]
        #expect(eventually(timeout: .seconds(120)) { receiver.requests().count >= expected.count }, "\(receiver.requests().map(\.type))")
        let requests = receiver.requests()
        #expect(requests.allSatisfy { $0.verified }, "\(requests.filter { !$0.verified }.map(\.error))")
        for user in [guestId, id] {
            #expect(requests.filter { $0.data["userId"]?.stringValue == user }.map(\.type)
                    == expected.filter { $0.1 == user }.map(\.0))
        }
        func data(_ type: String) -> JSONObject? { requests.first { $0.type == type }?.data }
        let created = requests.first { $0.type == "user.created" && $0.data["userId"]?.stringValue == guestId }?.data
        #expect(created?["authProvider"] == "anonymous" && created?["email"] == .null, "\(String(describing: created))")
        #expect(data("user.email_verified")?["email"] == "cat@example.com")
        #expect(data("mfa.enabled") == ["userId": .string(id)] && data("mfa.disabled") == ["userId": .string(id)])
        for request in requests {
            for secret in [password, token, strong, Base32.encode(secret), DevMailboxTests.token(link)] {
                #expect(!request.line.contains(secret), "\(request.type) holds a secret")
            }
        }
    }

    @Test func noWebhooksConfiguredStoresNothing() throws {
        let live = try LiveServer()
        _ = try Self.signUp(live, "ann")
        #expect(try Self.rows(live).isEmpty)
    }

    @Test(arguments: [
        (#"[{"url": "ftp://x.example.com", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "events": ["*"]}]"#, "entry 0, field \"url\""),
        (#"[{"url": "http://api.example.com/in", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "events": ["*"]}]"#, "entry 0, field \"url\""),
        (#"[{"url": "https://a.example.com", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "events": ["*"]}, {"url": "https://b.example.com", "secret": "whsec_c2hvcnQ=", "events": ["*"]}]"#, "entry 1, field \"secret\""),
        (#"[{"url": "https://a.example.com", "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "events": ["user.exploded"]}]"#, "entry 0, field \"events\""),
    ])
    func aMistakeStopsStartNamingTheEntryAndField(webhooks: String, named: String) throws {
        let error = #expect(throws: GatehouseServer.StartError.self) { _ = try LiveServer { $0.webhooks = webhooks } }
        let text = try #require(error).description
        #expect(text.contains("GATEHOUSE_WEBHOOKS") && text.contains(named), "\(text)")
        #expect(!text.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") && !text.contains("c2hvcnQ="), "no secret in \(text)")
    }
}
