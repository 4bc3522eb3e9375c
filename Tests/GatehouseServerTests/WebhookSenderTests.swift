import Foundation
import Postgres
import ServerTestSupport
import TestSupport
import Testing

@testable import Auth
@testable import GatehouseServer

/// The webhook sender on its own, against a receiver that verifies each request with the
/// Standard Webhooks library (``WebhookReceiver``): a queue per endpoint, a user's events in one
/// round, rounds that take what was committed while the one before ran.
@Suite struct WebhookSenderTests {
    let pool: Pool
    let receiver: WebhookReceiver
    let wakeup = EventLog.Wakeup()
    let logger = Logger(level: .error, write: { _ in })

    init() throws {
        pool = try TestDatabase.create().makePool(size: 8)
        try Migrator(migrations: AuthMigrations.all).migrate(pool)
        receiver = try WebhookReceiver(secret: WebhookTests.secret)
    }

    func endpoint(_ index: Int, _ path: String) throws -> WebhookEndpoint {
        WebhookEndpoint(index: index, url: receiver.url(path), secret: try #require(WebhookSecret(WebhookTests.secret)), kinds: nil)
    }

    func sender(_ endpoints: [WebhookEndpoint], concurrency: Int = 8, deliveryTimeout: Int = WebhookSender.timeoutMilliseconds)
        -> (WebhookSender, EventLog)
    {
        let sender = WebhookSender(
            store: WebhookOutboxStore(pool: pool), endpoints: endpoints, connection: nil, logger: logger, wakeup: wakeup,
            concurrency: concurrency, deliveryTimeout: deliveryTimeout)
        let log = EventLog(subscribers: endpoints.map { .init(endpoint: $0.url, kinds: nil) }, wakeup: wakeup)
        return (sender, log)
    }

    /// Records each user's `user.created` and `user.deleted` (one commit per user, as a change
    /// does); the users' ids.
    func record(_ log: EventLog, users: Range<Int>) throws -> [String] {
        try users.map { index in
            let id = "user\(index)"
            let user = User(
                objectId: id, username: id, email: nil, emailVerified: false, acl: ACL(),
                createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
            try pool.withConnection { connection in
                try connection.transaction { tx in
                    try log.record([.userCreated(user, authProvider: "password", at: Date()), .userDeleted(user, at: Date())], in: tx)
                }
            }
            return id
        }
    }

    /// The types each user's requests on `path` carried, in the order they arrived.
    func typesByUser(_ path: String) -> [String: [String]] {
        Dictionary(grouping: receiver.requests(on: path), by: { $0.data["userId"]?.stringValue ?? "" }).mapValues { $0.map(\.type) }
    }

    /// The rows of `endpoint`: (user, type, state, attempts, last error), oldest first.
    func rows(_ endpoint: WebhookEndpoint) throws -> [(user: String, type: String, state: String, attempts: Int, error: String?)] {
        try pool.withConnection { connection in
            try connection.query(
                "SELECT user_id, type, state, attempts, last_error FROM webhook_outbox WHERE endpoint = \(endpoint.url) ORDER BY id"
            ).map {
                (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(String.self, at: 2),
                 Int(try $0.decode(Int32.self, at: 3)), try $0.decode(String?.self, at: 4))
            }
        }
    }

    /// Brings every pending delivery's next attempt forward to now (as if its retry's time had
    /// come) and wakes the queues of `endpoints`.
    func makeDue(_ endpoints: [WebhookEndpoint]) throws {
        try pool.withConnection { connection in
            _ = try connection.execute("UPDATE webhook_outbox SET next_attempt_at = now() WHERE state = 'pending' AND leased_by IS NULL")
        }
        wakeup.current?(endpoints.map(\.url))
    }

    /// One endpoint's delivery hangs (its receiver holds the request; the timeout is longer than
    /// the test): the other endpoint gets every event meanwhile. Answered 503 at last, the
    /// delivery is retried with the same id, after the rest of its endpoint's events.
    @Test func aHangingEndpointHoldsUpNoOtherAndItsDeliveryIsRetried() throws {
        try receiver.answer("/hang", with: [["hold": "first", "status": 503, "body": ""]])
        let hang = try endpoint(0, "/hang"), ok = try endpoint(1, "/ok")
        let (sender, log) = sender([hang, ok], concurrency: 1, deliveryTimeout: 600_000)
        sender.start()
        defer {
            try? receiver.release("first")
            sender.stop()
        }
        let users = try record(log, users: 0..<5)
        #expect(eventually { receiver.requests(on: "/hang").count == 1 }, "the first delivery, held")
        #expect(eventually { receiver.requests(on: "/ok").count == 10 }, "\(receiver.requests().map(\.path))")
        // All while the hanging endpoint's first delivery is in flight.
        #expect(receiver.requests(on: "/hang").count == 1)
        #expect(try rows(hang).first.map { $0.attempts == 1 && $0.error == nil && $0.state == "pending" } == true)
        #expect(typesByUser("/ok") == Dictionary(uniqueKeysWithValues: users.map { ($0, ["user.created", "user.deleted"]) }))

        try receiver.release("first")
        #expect(eventually { (try? rows(hang).first?.error) == "HTTP 503" })
        #expect(eventually { receiver.requests(on: "/hang").count == 9 }, "the other users' events")
        try makeDue([hang])
        #expect(eventually { (try? rows(hang).allSatisfy { $0.state == "sent" }) == true })
        let requests = receiver.requests(on: "/hang")
        #expect(requests.count == 11 && requests.allSatisfy(\.verified))
        #expect(requests.first?.id == requests.filter { $0.data["userId"]?.stringValue == users[0] }.dropFirst().first?.id,
                "the retry keeps its webhook-id")
        var expected = Dictionary(uniqueKeysWithValues: users.map { ($0, ["user.created", "user.deleted"]) })
        expected[users[0]] = ["user.created", "user.created", "user.deleted"]
        #expect(typesByUser("/hang") == expected, "each user's events in order, the retried one first")
        #expect(sender.deliveryCounts == [.init(delivered: 10, failed: 0, retries: 1), .init(delivered: 10, failed: 0, retries: 0)])
    }

    /// A delivery that gets no answer in time is a failed attempt; the round starts nothing more
    /// and gives back what it had not tried (their attempts not counted), and the endpoint's
    /// next rounds go on with the other users.
    @Test func aDeliveryWithoutAnAnswerStopsItsRoundAndGivesBackTheRest() throws {
        try receiver.answer("/slow", with: [["hold": "first", "status": 200, "body": ""]])
        let slow = try endpoint(0, "/slow")
        let (sender, log) = sender([slow], concurrency: 1, deliveryTimeout: 5000)
        sender.start()
        defer {
            try? receiver.release("first")
            sender.stop()
        }
        let users = try record(log, users: 0..<3)
        #expect(eventually { (try? rows(slow).first?.error)?.contains("curl error 28") == true })
        #expect(eventually { receiver.requests(on: "/slow").count == 5 }, "the other users' events")
        try makeDue([slow])
        #expect(eventually { (try? rows(slow).allSatisfy { $0.state == "sent" }) == true })
        let final = try rows(slow)
        #expect(final.map(\.attempts) == [2, 1, 1, 1, 1, 1], "only the timed-out delivery was attempted twice: \(final)")
        var expected = Dictionary(uniqueKeysWithValues: users.map { ($0, ["user.created", "user.deleted"]) })
        expected[users[0]] = ["user.created", "user.created", "user.deleted"]
        #expect(typesByUser("/slow") == expected)
        #expect(sender.deliveryCounts == [.init(delivered: 6, failed: 0, retries: 1)])
    }

    /// An endpoint that refuses connections fails each delivery at once: one round tries every
    /// user's first event (each then waits for its retry), rather than giving them back to be
    /// claimed again round after round.
    @Test func anEndpointThatRefusesConnectionsFailsEachDeliveryInOneRound() throws {
        let port = try LoopbackListener().port  // closed again: nothing listens there
        let refusing = WebhookEndpoint(
            index: 0, url: "http://127.0.0.1:\(port)/in", secret: try #require(WebhookSecret(WebhookTests.secret)), kinds: nil)
        let (sender, log) = sender([refusing])
        _ = try record(log, users: 0..<10)
        sender.start()
        defer { sender.stop() }
        // Rounds counted before rows that show every first event failed once and none retried:
        // the count holds no round of a retry.
        var rounds: Int?
        #expect(eventually {
            let claiming = sender.roundCounts.claiming
            guard claiming > 0, let rows = try? rows(refusing) else { return false }
            let first = rows.filter { $0.type == "user.created" }, second = rows.filter { $0.type == "user.deleted" }
            guard first.allSatisfy({ $0.error != nil && $0.attempts == 1 }), second.allSatisfy({ $0.attempts == 0 }) else { return false }
            rounds = claiming
            return true
        })
        #expect(rounds == 1, "one round tried every user's first event")
        #expect(try rows(refusing).allSatisfy { $0.state == "pending" && ($0.error == nil) == ($0.type == "user.deleted") })
        #expect(sender.deliveryCounts.first.map { $0.delivered == 0 && $0.failed == 0 && $0.retries >= 10 } == true)
    }

    /// Events committed while a round waits for its endpoint go out in one more round, each
    /// user's two events together: rounds follow the load, not the commits.
    @Test func eventsCommittedDuringARoundGoOutInOneMoreRound() throws {
        try receiver.answer("/in", with: [["hold": "first", "status": 200, "body": ""]])
        let endpoint = try endpoint(0, "/in")
        let (sender, log) = sender([endpoint])
        sender.start()
        defer {
            try? receiver.release("first")
            sender.stop()
        }
        _ = try record(log, users: 0..<1)
        #expect(eventually { receiver.requests(on: "/in").count == 1 })
        // The first round holds its delivery; the rounds before it claimed nothing.
        let before = sender.roundCounts.claiming
        _ = try record(log, users: 1..<31)
        try receiver.release("first")
        #expect(eventually { (try? rows(endpoint).allSatisfy { $0.state == "sent" }) == true })
        #expect(receiver.requests(on: "/in").count == 62)
        #expect(sender.roundCounts.claiming - before == 2, "the held round, then one for the sixty events committed during it")
        #expect(sender.deliveryCounts == [.init(delivered: 62, failed: 0, retries: 0)])
    }
}
