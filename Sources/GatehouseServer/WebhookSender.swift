import Auth
import Curl
import Foundation
import JSON
import Postgres
import Threading

/// Delivers the webhook outbox (`GATEHOUSE_WEBHOOKS`) on an ``OutboxWorker`` with a queue per
/// endpoint, so an endpoint that stops answering holds up no other's deliveries. Each claimed
/// delivery is POSTed in the Standard Webhooks format (``WebhookSignature``) over libcurl; a 2xx
/// answer within ``deliveryTimeout`` milliseconds is delivered, anything else is retried on
/// ``WebhookOutboxStore/schedule``.
///
/// A claim gives each user's pending rows in order (``WebhookOutboxStore/claim(endpoint:limit:)``),
/// as a chain: a lane delivers a chain one row after another and stops at the first that fails,
/// making the rest due again untried, behind the failed one. The chains of a batch go out over
/// one connection per ``deliveriesPerLane`` rows, at most ``concurrency`` at once, each a reused
/// libcurl handle (``HTTPConnection``: kept alive between deliveries, and between batches). The
/// batch's deliveries are marked sent in one statement when it is done.
///
/// What one slow endpoint can hold is bounded: a delivery left without an answer for half the
/// timeout or more (the endpoint hangs; one that refuses fails at once) stops its round from
/// starting more, as does a round older than one delivery timeout, and the chains not started
/// are made due again at once; and until a round of that endpoint does not hang, its claims take
/// at most one row per connection (``concurrency``), each chain on a connection of its own.
///
/// A last queue gives up the rows of endpoints no longer configured.
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

    /// Milliseconds a delivery may take, unless the sender is given another figure.
    static let timeoutMilliseconds = 10_000
    /// Milliseconds a delivery may take.
    let deliveryTimeout: Int
    /// Deliveries in flight at once to one endpoint, at most: one connection each.
    let concurrency: Int
    /// Deliveries of a batch per connection used for it.
    static let deliveriesPerLane = 8
    /// Seconds a round that follows a small one under load may wait for more events: fewer,
    /// larger rounds (a claim and a mark each) at the cost of this much latency.
    static let gather = 0.01

    let store: WebhookOutboxStore
    let endpoints: [WebhookEndpoint]
    /// Each endpoint's queue, by URL.
    private let queueByURL: [String: Int]
    /// Per endpoint: threads for the lanes past the first (which runs on the queue's own).
    private let lanes: [WorkerThreads]
    /// Per endpoint: connections not in use, kept open for the next batch.
    private let idle: [Lock<[HTTPConnection]>]
    /// Per endpoint: false once a round of it hung, until a round of it does not.
    private let answering: Lock<[Bool]>
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
        wakeup: EventLog.Wakeup? = nil, batchSize: Int = 64, concurrency: Int = 8, pollInterval: Double = 30,
        deliveryTimeout: Int = WebhookSender.timeoutMilliseconds
    ) {
        self.store = store
        self.wakeup = wakeup
        self.concurrency = max(1, concurrency)
        self.deliveryTimeout = max(1, deliveryTimeout)
        self.endpoints = endpoints
        self.queueByURL = Dictionary(endpoints.indices.map { (endpoints[$0].url, $0) }, uniquingKeysWith: { first, _ in first })
        self.lanes = endpoints.indices.map { WorkerThreads(name: "gh-webhook-\($0)", maxThreads: max(1, concurrency - 1)) }
        self.idle = endpoints.map { _ in Lock([]) }
        self.answering = Lock(endpoints.map { _ in true })
        self.logger = logger
        self.counts = Lock(Array(repeating: Counts(), count: endpoints.count))
        let known = endpoints.map(\.url)
        let limit = self.concurrency
        var queues = endpoints.indices.map { index in
            let url = endpoints[index].url
            return OutboxWorker<WebhookOutboxStore.Delivery>.Queue(
                name: "\(index)",
                claim: { [store, answering] in
                    try store.claim(endpoint: url, limit: answering.withLock { $0[index] } ? $0 : min($0, limit))
                },
                secondsUntilNextDue: { [store] in try store.secondsUntilNextDue(endpoint: url) },
                deliver: { [unowned self] in deliver($0, to: index) })
        }
        queues.append(.init(
            name: "unknown",
            claim: { [store] in
                try store.giveUpUnknown(known: known, error: Self.unknownEndpoint, limit: $0)
            },
            secondsUntilNextDue: { [store] in try store.secondsUntilNextUnknownDue(known: known) },
            deliver: { [unowned self] in gaveUp($0) }))
        worker = OutboxWorker(
            name: "webhook", lease: store.lease, channel: AuthMigrations.Channel.webhooks, connection: connection,
            logger: logger, batchSize: batchSize, pollInterval: pollInterval, gather: Self.gather, queues: queues, id: \.id)
    }

    /// Wakes the sender on `NOTIFY` (none when polling).
    var listener: NotificationListener? { worker.listener }

    func start() {
        worker.start()
        wakeup?.set { [worker, queueByURL] endpoints in
            for endpoint in endpoints {
                if let queue = queueByURL[endpoint] { worker?.wakeUp(queue: queue) }
            }
        }
    }

    /// Stops after the deliveries in flight; the rest of each batch is due again at once. Commits
    /// of events notify the other instances from then on.
    func stop() {
        wakeup?.set(nil)
        worker.stop()
        for pool in lanes { pool.shutDown(waiting: false) }
    }

    /// Each endpoint's counts, by its index.
    var deliveryCounts: [Counts] { counts.withLock { $0 } }

    /// Pending deliveries and the oldest one's age in seconds (``OutboxWorker/pendingSummary``).
    var pendingSummary: (count: Int, oldestAge: Double) { worker.pendingSummary }

    /// Rounds so far, of every queue, and those that claimed deliveries: tests count rounds.
    var roundCounts: (all: Int, claiming: Int) { (worker.roundCount, worker.claimingRoundCount) }

    /// What became of one POST.
    private enum Outcome {
        case delivered
        /// An answer that is not a 2xx, or none at once (a refused connection): recorded as a failure.
        case failed
        /// No answer for half the timeout or more: recorded as a failure.
        case hung
    }

    /// The progress of a batch, shared by its lanes.
    private struct Progress {
        /// The next chain to start; the count of chains once the round stops starting them.
        var next = 0
        var delivered: [WebhookOutboxStore.Delivery] = []
        var hung = false
    }

    /// Delivers `batch` to endpoint `index` over at most ``concurrency`` connections at once,
    /// marks the delivered ones sent, and returns when all are done.
    private func deliver(_ batch: [WebhookOutboxStore.Delivery], to index: Int) {
        guard !batch.isEmpty else { return }
        let endpoint = endpoints[index]
        // The batch is in id order; a user's rows form a chain, delivered in that order.
        var chains: [[WebhookOutboxStore.Delivery]] = []
        var chainOfUser: [String: Int] = [:]
        for delivery in batch {
            if let chain = chainOfUser[delivery.userId] {
                chains[chain].append(delivery)
            } else {
                chainOfUser[delivery.userId] = chains.count
                chains.append([delivery])
            }
        }
        let started = ContinuousClock.now
        let progress = Lock(Progress())
        let lane: @Sendable () -> Void = { [self, chains] in
            var connection = idle[index].withLock { $0.popLast() }
            defer { if let connection { idle[index].withLock { $0.append(connection) } } }
            while !worker.isStopping {
                // A round older than one delivery timeout starts no more chains.
                if ContinuousClock.now - started > .milliseconds(deliveryTimeout) { return stopStarting(chains, progress) }
                let next: Int? = progress.withLock { progress in
                    guard progress.next < chains.count else { return nil }
                    defer { progress.next += 1 }
                    return progress.next
                }
                guard let next else { return }
                let chain = chains[next]
                for (position, delivery) in chain.enumerated() {
                    let outcome = post(delivery, to: endpoint, on: &connection)
                    if outcome == .delivered {
                        progress.withLock { $0.delivered.append(delivery) }
                        continue
                    }
                    // The user's later events wait behind the failed one: due again, untried.
                    worker.release(Array(chain[(position + 1)...]))
                    if outcome == .hung {
                        progress.withLock { $0.hung = true }
                        return stopStarting(chains, progress)
                    }
                    break
                }
            }
        }
        // One lane per `deliveriesPerLane` deliveries: a small batch (events as they come) goes
        // out on the queue's own thread; a backlog spreads over up to `concurrency` connections.
        // To an endpoint that hung, each chain (one row per connection) gets a lane: one hanging
        // delivery holds up no other.
        let perLane = answering.withLock { $0[index] } ? Self.deliveriesPerLane : 1
        let count = min(concurrency, chains.count, (batch.count + perLane - 1) / perLane)
        if count > 1 {
            let group = DispatchGroup()
            for _ in 1..<count {
                group.enter()
                lanes[index].run {
                    defer { group.leave() }
                    lane()
                }
            }
            lane()
            group.wait()
        } else {
            lane()
        }
        let (delivered, hung) = progress.withLock { ($0.delivered, $0.hung) }
        answering.withLock { $0[index] = !hung }
        recordDelivered(delivered, endpoint)
    }

    /// Makes the round start no more chains, and the chains it has not started due again at once.
    private func stopStarting(_ chains: [[WebhookOutboxStore.Delivery]], _ progress: Lock<Progress>) {
        let untried = progress.withLock { progress in
            defer { progress.next = chains.count }
            return progress.next < chains.count ? Array(chains[progress.next...].joined()) : []
        }
        worker.release(untried)
    }

    /// POSTs `delivery` to `endpoint` on `connection` (a new one if it is nil, and none kept
    /// after a failure to answer, so the next delivery starts on a fresh connection). A failure
    /// is recorded at once; a delivery is marked sent with its batch.
    private func post(_ delivery: WebhookOutboxStore.Delivery, to endpoint: WebhookEndpoint, on connection: inout HTTPConnection?) -> Outcome {
        let started = ContinuousClock.now
        let body = Array(delivery.body.utf8)
        let headers = WebhookSignature.headers(
            id: delivery.eventId, timestamp: Int(Date().timeIntervalSince1970), body: body, secret: endpoint.secret)
        do {
            if connection == nil { connection = try HTTPConnection() }
            let answer = try connection!.post(endpoint.url, headers: headers, body: body, timeoutMilliseconds: deliveryTimeout)
            if (200..<300).contains(answer.status) { return .delivered }
            record(delivery, endpoint: endpoint, failure: "HTTP \(answer.status)")
            return .failed
        } catch {
            connection = nil
            record(delivery, endpoint: endpoint, failure: error.description)
            return ContinuousClock.now - started >= .milliseconds(deliveryTimeout / 2) ? .hung : .failed
        }
    }

    /// Marks `delivered` sent in one statement, counts and logs them. Should the database refuse,
    /// their leases run out and they are delivered again (at least once).
    private func recordDelivered(_ delivered: [WebhookOutboxStore.Delivery], _ endpoint: WebhookEndpoint) {
        guard !delivered.isEmpty else { return }
        defer { for delivery in delivered { worker.finished(delivery) } }
        do {
            try store.lease.markSent(ids: delivered.map(\.id))
        } catch {
            logger.warn("webhook deliveries not marked sent", [
                "deliveries": .int(delivered.count), "error": .string(String(describing: error)),
            ])
            return
        }
        counts.withLock { $0[endpoint.index].delivered += delivered.count }
        guard logger.enabled(.debug) else { return }
        for delivery in delivered {
            logger.debug("webhook delivered", [
                "webhookId": .string(delivery.eventId), "endpoint": .int(endpoint.index), "type": .string(delivery.type),
                "attempts": .int(delivery.attempts),
            ])
        }
    }

    /// Records a failed delivery, counts and logs it. Should the database refuse the record, the
    /// row's lease runs out and it is tried again (at least once).
    private func record(_ delivery: WebhookOutboxStore.Delivery, endpoint: WebhookEndpoint, failure: String) {
        defer { worker.finished(delivery) }
        var fields: JSONObject = [
            "webhookId": .string(delivery.eventId), "endpoint": .int(endpoint.index), "type": .string(delivery.type),
            "attempts": .int(delivery.attempts), "error": .string(failure),
        ]
        do {
            let outcome = try store.markFailed(delivery, error: failure)
            counts.withLock {
                if outcome == .failed { $0[endpoint.index].failed += 1 } else { $0[endpoint.index].retries += 1 }
            }
            logger.warn(outcome == .failed ? "webhook delivery failed, given up" : "webhook delivery failed, will retry", fields)
        } catch {
            fields["recordError"] = .string(String(describing: error))
            logger.warn("webhook outcome not recorded", fields)
        }
    }

    /// Why a delivery to an endpoint no longer configured is given up.
    static let unknownEndpoint = "the endpoint is no longer in GATEHOUSE_WEBHOOKS"

    /// Logs the deliveries given up because their endpoint is no longer configured (the claim
    /// recorded it).
    private func gaveUp(_ deliveries: [WebhookOutboxStore.Delivery]) {
        for delivery in deliveries {
            worker.finished(delivery)
            logger.warn("webhook delivery failed, given up", [
                "webhookId": .string(delivery.eventId), "endpoint": .int(-1), "type": .string(delivery.type),
                "attempts": .int(delivery.attempts), "error": .string(Self.unknownEndpoint),
            ])
        }
    }
}
