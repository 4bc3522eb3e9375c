import Auth
import Curl
import Foundation
import JSON
import Postgres
import Threading

/// Delivers the webhook outbox (`GATEHOUSE_WEBHOOKS`) on an ``OutboxWorker``: each claimed
/// delivery is POSTed in the Standard Webhooks format (``WebhookSignature``) over libcurl; a 2xx
/// answer within ``timeoutMilliseconds`` is delivered, anything else is retried on
/// ``WebhookOutboxStore/schedule``. The deliveries of a batch go out over one connection per
/// ``deliveriesPerLane`` of them, at most ``concurrency`` at once, each a reused libcurl handle
/// (``HTTPConnection``: kept alive between deliveries, and between batches), taking the batch's
/// deliveries one after another: the claim gives at most one row per endpoint and user, so a
/// batch holds no two events whose order matters. The batch's deliveries are marked sent in one
/// statement when it is done.
///
/// Logs and stored errors name a delivery by its `webhook-id`, endpoint index and type: never a
/// body or secret.
final class WebhookSender: @unchecked Sendable {
    // @unchecked: `worker` is set once, in init, before any other thread sees the sender.

    /// An endpoint's deliveries since start (for `/metrics`).
    struct Counts: Sendable, Equatable {
        var delivered = 0
        var failed = 0
        var retries = 0
    }

    /// Milliseconds a delivery may take.
    static let timeoutMilliseconds = 10_000
    /// Deliveries in flight at once, at most: one connection each.
    let concurrency: Int
    /// Deliveries of a batch per connection used for it.
    static let deliveriesPerLane = 8

    let store: WebhookOutboxStore
    let endpoints: [WebhookEndpoint]
    private let byURL: [String: WebhookEndpoint]
    /// Connections not in use, kept open for the next batch.
    private let idle = Lock<[HTTPConnection]>([])
    private let logger: Logger
    private let counts: Lock<[Counts]>
    private var worker: OutboxWorker<WebhookOutboxStore.Delivery>!
    /// How this process's commits of events wake the sender while it runs.
    private let wakeup: EventLog.Wakeup?

    /// A sender to `endpoints` for the outbox of `store`, woken by this process's commits of
    /// events through `wakeup` and by other processes' on `connection` (nil: polling for those);
    /// call ``start()``.
    init(
        store: WebhookOutboxStore, endpoints: [WebhookEndpoint], connection: ConnectionConfiguration?, logger: Logger,
        wakeup: EventLog.Wakeup? = nil, batchSize: Int = 64, concurrency: Int = 8, pollInterval: Double = 30
    ) {
        self.store = store
        self.wakeup = wakeup
        self.concurrency = max(1, concurrency)
        self.endpoints = endpoints
        self.byURL = Dictionary(endpoints.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        self.logger = logger
        self.counts = Lock(Array(repeating: Counts(), count: endpoints.count))
        worker = OutboxWorker(
            name: "webhook", lease: store.lease, channel: AuthMigrations.Channel.webhooks, connection: connection,
            logger: logger, batchSize: batchSize, pollInterval: pollInterval,
            claim: { [store] in try store.claim(limit: $0) }, id: \.id,
            deliver: { [unowned self] in deliver($0) })
    }

    /// Wakes the sender on `NOTIFY` (none when polling).
    var listener: NotificationListener? { worker.listener }

    func start() {
        worker.start()
        wakeup?.set { [worker] in worker?.wakeUp() }
    }

    /// Stops after the deliveries in flight; the rest of the batch is due again at once. Commits
    /// of events notify the other instances from then on.
    func stop() {
        wakeup?.set(nil)
        worker.stop()
    }

    /// Each endpoint's counts, by its index.
    var deliveryCounts: [Counts] { counts.withLock { $0 } }

    /// Pending deliveries and the oldest one's age in seconds, as of the end of the last round.
    var pendingSummary: (count: Int, oldestAge: Double) { worker.pendingSummary }

    /// Delivers `batch` over at most ``concurrency`` connections at once, marks the delivered
    /// ones sent, and returns when all are done.
    private func deliver(_ batch: [WebhookOutboxStore.Delivery]) {
        let next = Lock(0)
        let delivered = Lock<[(WebhookOutboxStore.Delivery, WebhookEndpoint)]>([])
        let lane: @Sendable () -> Void = { [self] in
            let connection = idle.withLock { $0.popLast() }
            var kept = connection ?? (try? HTTPConnection())
            while !worker.isStopping {
                let index = next.withLock { index in
                    defer { index += 1 }
                    return index
                }
                guard index < batch.count else { break }
                let delivery = batch[index]
                if let endpoint = post(delivery, on: &kept) { delivered.withLock { $0.append((delivery, endpoint)) } }
            }
            if let kept { idle.withLock { $0.append(kept) } }
        }
        // One lane per `deliveriesPerLane` deliveries: a small batch (events as they come) goes
        // out on the worker's own thread, as starting threads costs more than a kept-alive post;
        // a backlog spreads over up to `concurrency` connections.
        let lanes = min(concurrency, (batch.count + Self.deliveriesPerLane - 1) / Self.deliveriesPerLane)
        if lanes > 1 {
            let group = DispatchGroup()
            for _ in 1..<lanes {
                group.enter()
                let thread = Thread {
                    defer { group.leave() }
                    lane()
                }
                thread.name = "gatehouse-webhook-delivery"
                thread.start()
            }
            lane()
            group.wait()
        } else {
            lane()
        }
        recordDelivered(delivered.withLock { $0 })
    }

    /// POSTs `delivery` on `connection` (a new one if it is nil, and none kept after a failure
    /// to answer, so the next delivery starts on a fresh connection). Its endpoint if it was
    /// delivered (to be marked sent with the batch); a failure is recorded at once.
    private func post(_ delivery: WebhookOutboxStore.Delivery, on connection: inout HTTPConnection?) -> WebhookEndpoint? {
        guard let endpoint = byURL[delivery.endpoint] else {
            record(delivery, endpoint: nil, failure: "the endpoint is no longer in GATEHOUSE_WEBHOOKS", permanent: true)
            return nil
        }
        let body = Array(delivery.body.utf8)
        let headers = WebhookSignature.headers(
            id: delivery.eventId, timestamp: Int(Date().timeIntervalSince1970), body: body, secret: endpoint.secret)
        let failure: String
        do {
            if connection == nil { connection = try HTTPConnection() }
            let answer = try connection!.post(endpoint.url, headers: headers, body: body, timeoutMilliseconds: Self.timeoutMilliseconds)
            if (200..<300).contains(answer.status) { return endpoint }
            failure = "HTTP \(answer.status)"
        } catch {
            connection = nil
            failure = error.description
        }
        record(delivery, endpoint: endpoint, failure: failure)
        return nil
    }

    /// Marks `delivered` sent in one statement, counts and logs them. Should the database refuse,
    /// their leases run out and they are delivered again (at least once).
    private func recordDelivered(_ delivered: [(WebhookOutboxStore.Delivery, WebhookEndpoint)]) {
        guard !delivered.isEmpty else { return }
        defer { for (delivery, _) in delivered { worker.finished(delivery) } }
        do {
            try store.lease.markSent(ids: delivered.map(\.0.id))
        } catch {
            logger.warn("webhook deliveries not marked sent", [
                "deliveries": .int(delivered.count), "error": .string(String(describing: error)),
            ])
            return
        }
        counts.withLock { counts in
            for (_, endpoint) in delivered { counts[endpoint.index].delivered += 1 }
        }
        for (delivery, endpoint) in delivered {
            logger.debug("webhook delivered", [
                "webhookId": .string(delivery.eventId), "endpoint": .int(endpoint.index), "type": .string(delivery.type),
                "attempts": .int(delivery.attempts),
            ])
        }
    }

    /// Records a failed delivery, counts and logs it. Should the database refuse the record, the
    /// row's lease runs out and it is tried again (at least once).
    private func record(_ delivery: WebhookOutboxStore.Delivery, endpoint: WebhookEndpoint?, failure: String, permanent: Bool = false) {
        defer { worker.finished(delivery) }
        var fields: JSONObject = [
            "webhookId": .string(delivery.eventId), "endpoint": .int(endpoint?.index ?? -1), "type": .string(delivery.type),
            "attempts": .int(delivery.attempts), "error": .string(failure),
        ]
        do {
            let outcome = try store.markFailed(delivery, error: failure, permanent: permanent)
            if let endpoint {
                counts.withLock {
                    if outcome == .failed { $0[endpoint.index].failed += 1 } else { $0[endpoint.index].retries += 1 }
                }
            }
            logger.warn(outcome == .failed ? "webhook delivery failed, given up" : "webhook delivery failed, will retry", fields)
        } catch {
            fields["recordError"] = .string(String(describing: error))
            logger.warn("webhook outcome not recorded", fields)
        }
    }
}
