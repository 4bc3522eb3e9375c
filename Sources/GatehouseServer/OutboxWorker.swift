import Auth
import Foundation
import Postgres
import Threading

/// The loop both outbox senders (mail, webhooks) run: one thread per instance, woken by
/// `NOTIFY` on the outbox's channel (a row was written), by ``wakeUp()`` (this process wrote
/// one), by the listening connection
/// (re)connecting (notifications may have been missed), and by a timer when the next retry or
/// lease end is due or, at the latest, every `pollInterval` seconds (the only wake-up without a
/// listening connection: for engines without `LISTEN/NOTIFY`).
///
/// Each round claims a batch of due rows (``OutboxLease``) and hands it to the sender's
/// `deliver`, which reports each row done (``finished(_:)``) once its outcome is recorded.
/// While rows are held, a second thread renews their lease every ``OutboxLease/renewInterval``
/// seconds, so a live sender keeps them however long delivery takes, and a killed one leaves
/// them to the other instances within ``OutboxLease/duration`` seconds. On stopping, the rows
/// of the batch not yet done are made due again at once.
final class OutboxWorker<Item: Sendable>: @unchecked Sendable {
    // @unchecked: every `var` is read and written with `mutex` held.

    let name: String
    let lease: OutboxLease
    let batchSize: Int
    let pollInterval: Double
    private let claim: @Sendable (Int) throws -> [Item]
    private let id: @Sendable (Item) -> Int64
    private let deliver: @Sendable ([Item]) throws -> Void
    private let logger: Logger
    /// Wakes the worker on `NOTIFY` (none when polling); its reconnects are counted for `/metrics`.
    private(set) var listener: NotificationListener?
    private var renewer: PeriodicThread?

    private let mutex = ConditionMutex()
    private let wake = ConditionMutex.Condition()
    private let exited = ConditionMutex.Condition()
    /// Set by a notification (or a reconnect), cleared by the round it starts.
    private var woken = true
    private var lostListener = false
    private var stopping = false
    private var running = false
    /// The claimed rows not yet done.
    private var held: Set<Int64> = []
    private var pending: (count: Int, oldestAge: Double) = (0, 0)
    /// Rounds completed: tests wait for a count, not for time.
    private var rounds = 0

    /// A worker named `name` (its thread and logs) over `lease`, listening on `channel` over
    /// `connection` (nil: polling only); call ``start()``.
    init(
        name: String, lease: OutboxLease, channel: String, connection: ConnectionConfiguration?, logger: Logger,
        batchSize: Int, pollInterval: Double, claim: @escaping @Sendable (Int) throws -> [Item],
        id: @escaping @Sendable (Item) -> Int64, deliver: @escaping @Sendable ([Item]) throws -> Void
    ) {
        self.name = name
        self.lease = lease
        self.batchSize = batchSize
        self.pollInterval = pollInterval
        self.claim = claim
        self.id = id
        self.deliver = deliver
        self.logger = logger
        renewer = PeriodicThread(name: "gatehouse-\(name)-lease", interval: OutboxLease.renewInterval) { [unowned self] in renewHeld() }
        guard let connection else { return }
        listener = NotificationListener(
            configuration: connection, channels: [channel],
            onNotification: { [unowned self] _ in signal() },
            onConnect: { [unowned self] in
                if exchangeListenerLost(false) { logger.info("\(name) wake-ups on again: notification connection restored") }
                signal()
            },
            onDisconnect: { [unowned self] error in
                _ = exchangeListenerLost(true)
                logger.warn("\(name) wake-ups off, polling every \(Int(pollInterval)) s: notification connection lost", [
                    "error": .string(String(describing: error)),
                ])
            })
    }

    /// Starts listening, the delivering thread and the lease renewals.
    func start() {
        mutex.withLock { running = true }
        listener?.start()
        renewer?.start()
        let thread = Thread { [self] in run() }
        thread.name = "gatehouse-\(name)"
        thread.start()
    }

    /// Stops after the rows being delivered; the rest of the batch is made due again for the
    /// other instances (or the next start).
    func stop() {
        listener?.stop()
        mutex.withLock {
            stopping = true
            wake.signal()
            while running { mutex.wait(exited) }
        }
        renewer?.stop()
    }

    /// Whether ``stop()`` was called: a sender stops starting new deliveries.
    var isStopping: Bool { mutex.withLock { stopping } }

    /// Reports a claimed row done: its outcome is recorded, so its lease needs no renewal.
    func finished(_ item: Item) {
        let id = id(item)
        mutex.withLock { _ = held.remove(id) }
    }

    /// Pending rows and the oldest one's age in seconds, as of the end of the last round.
    var pendingSummary: (count: Int, oldestAge: Double) { mutex.withLock { pending } }

    /// Rounds completed so far.
    var roundCount: Int { mutex.withLock { rounds } }

    /// Starts a round as soon as the one in progress (if any) ends: rows were committed.
    func wakeUp() { signal() }

    private func signal() {
        mutex.withLock {
            woken = true
            wake.signal()
        }
    }

    private func exchangeListenerLost(_ value: Bool) -> Bool {
        mutex.withLock {
            defer { lostListener = value }
            return lostListener
        }
    }

    private func renewHeld() {
        let ids = mutex.withLock { Array(held) }
        guard !ids.isEmpty else { return }
        do { try lease.renew(ids: ids) } catch {
            logger.warn("\(name) outbox lease not renewed", ["error": .string(String(describing: error))])
        }
    }

    private func run() {
        defer {
            mutex.withLock {
                running = false
                exited.broadcast()
            }
        }
        var summarized = ContinuousClock.now
        while !isStopping {
            var wait = pollInterval
            do {
                mutex.withLock { woken = false }
                let batch = try claim(batchSize)
                mutex.withLock { held = Set(batch.map(id)) }
                defer { mutex.withLock { held = [] } }
                try deliver(batch)
                let untried = mutex.withLock { Array(held) }
                if !untried.isEmpty { try lease.release(ids: untried) }
                // Another round at once after a full batch, or when rows were committed during
                // this one (wake-ups while rows keep coming fold into one round each).
                let again = batch.count == batchSize || mutex.withLock { woken }
                // The backlog for /metrics: before the worker waits, and at most once a second
                // while rounds follow each other.
                if !again || ContinuousClock.now - summarized > .seconds(1) {
                    let summary = try lease.pendingSummary()
                    mutex.withLock { pending = summary }
                    summarized = .now
                }
                mutex.withLock { rounds += 1 }
                if again { continue }
                if let due = try lease.secondsUntilNextDue() { wait = min(wait, due) }
            } catch {
                logger.warn("\(name) outbox unavailable", ["error": .string(String(describing: error))])
                wait = min(wait, 5)
            }
            mutex.withLock {
                if !woken && !stopping && wait > 0 { _ = mutex.wait(wake, seconds: wait) }
            }
        }
    }
}
