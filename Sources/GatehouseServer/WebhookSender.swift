import Auth
import Curl
import Foundation
import JSON
import Postgres
import Threading

/// Delivers the webhook outbox (`GATEHOUSE_WEBHOOKS`) on an ``OutboxWorker``: each claimed
/// delivery is POSTed in the Standard Webhooks format (``WebhookSignature``) over libcurl; a 2xx
/// answer within ``timeoutMilliseconds`` is delivered, anything else is retried on
/// ``WebhookOutboxStore/schedule``. The deliveries of a batch go out at once, each on its own
/// thread: the claim gives at most one row per endpoint and user, so a batch holds no two events
/// whose order matters, and a receiver that is slow holds up no other.
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

    let store: WebhookOutboxStore
    let endpoints: [WebhookEndpoint]
    private let byURL: [String: WebhookEndpoint]
    private let fetcher = HTTPFetcher()
    private let logger: Logger
    private let counts: Lock<[Counts]>
    private var worker: OutboxWorker<WebhookOutboxStore.Delivery>!

    /// A sender to `endpoints` for the outbox of `store`, listening for new events on `connection`
    /// (nil: polling only); call ``start()``.
    init(
        store: WebhookOutboxStore, endpoints: [WebhookEndpoint], connection: ConnectionConfiguration?, logger: Logger,
        batchSize: Int = 16, pollInterval: Double = 30
    ) {
        self.store = store
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

    func start() { worker.start() }

    /// Stops after the deliveries in flight; the rest of the batch is due again at once.
    func stop() { worker.stop() }

    /// Each endpoint's counts, by its index.
    var deliveryCounts: [Counts] { counts.withLock { $0 } }

    /// Pending deliveries and the oldest one's age in seconds, as of the end of the last round.
    var pendingSummary: (count: Int, oldestAge: Double) { worker.pendingSummary }

    /// Delivers `batch`, each on its own thread, and returns when all are done.
    private func deliver(_ batch: [WebhookOutboxStore.Delivery]) {
        guard batch.count > 1 else {
            if let only = batch.first, !worker.isStopping { deliver(only) }
            return
        }
        let group = DispatchGroup()
        for delivery in batch {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                if !worker.isStopping { deliver(delivery) }
            }
            thread.name = "gatehouse-webhook-delivery"
            thread.start()
        }
        group.wait()
    }

    private func deliver(_ delivery: WebhookOutboxStore.Delivery) {
        defer { worker.finished(delivery) }
        guard let endpoint = byURL[delivery.endpoint] else {
            return record(delivery, endpoint: nil, failure: "the endpoint is no longer in GATEHOUSE_WEBHOOKS", permanent: true)
        }
        let body = Array(delivery.body.utf8)
        let headers = WebhookSignature.headers(
            id: delivery.eventId, timestamp: Int(Date().timeIntervalSince1970), body: body, secret: endpoint.secret)
        let failure: String
        do {
            let answer = try fetcher.post(endpoint.url, headers: headers, body: body, timeoutMilliseconds: Self.timeoutMilliseconds)
            if (200..<300).contains(answer.status) { return record(delivery, endpoint: endpoint, failure: nil) }
            failure = "HTTP \(answer.status)"
        } catch {
            failure = error.description
        }
        record(delivery, endpoint: endpoint, failure: failure)
    }

    /// Records the outcome of a delivery (`failure` nil: delivered), counts and logs it. Should the
    /// database refuse the record, the row's lease runs out and it is tried again (at least once).
    private func record(_ delivery: WebhookOutboxStore.Delivery, endpoint: WebhookEndpoint?, failure: String?, permanent: Bool = false) {
        var fields: JSONObject = [
            "webhookId": .string(delivery.eventId), "endpoint": .int(endpoint?.index ?? -1), "type": .string(delivery.type),
            "attempts": .int(delivery.attempts),
        ]
        do {
            guard let failure else {
                try store.lease.markSent(id: delivery.id)
                if let endpoint { counts.withLock { $0[endpoint.index].delivered += 1 } }
                logger.debug("webhook delivered", fields)
                return
            }
            let outcome = try store.markFailed(delivery, error: failure, permanent: permanent)
            if let endpoint {
                counts.withLock {
                    if outcome == .failed { $0[endpoint.index].failed += 1 } else { $0[endpoint.index].retries += 1 }
                }
            }
            fields["error"] = .string(failure)
            logger.warn(outcome == .failed ? "webhook delivery failed, given up" : "webhook delivery failed, will retry", fields)
        } catch {
            fields["error"] = .string(String(describing: error))
            logger.warn("webhook outcome not recorded", fields)
        }
    }
}
