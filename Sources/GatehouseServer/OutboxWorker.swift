import Auth
import Foundation
import Postgres
import Threading

/// The loop both outbox senders (mail, webhooks) run over their queues: mail has one, webhooks
/// one per endpoint, so an endpoint that stops answering holds up no other's deliveries. Each
/// queue has a thread of its own, woken by `NOTIFY` on the outbox's channel (a row was written:
/// every queue), by ``wakeUp(queue:)`` (this process wrote one), by the listening connection
/// (re)connecting (notifications may have been missed: every queue), and by a timer when its next
/// retry or lease end is due or, at the latest, every `pollInterval` seconds (the only wake-up
/// without a listening connection: for engines without `LISTEN/NOTIFY`).
///
/// Each round of a queue claims a batch of its due rows (``OutboxLease``) and hands it to the
/// queue's `deliver`, which reports each row done (``finished(_:)``) once its outcome is recorded,
/// or gives rows back untried (``release(_:)``). Rounds coalesce under load: a wake-up while a
/// round runs only marks the queue woken, so the next round starts when this one ends and takes
/// what was committed meanwhile; and when that round was small (under a quarter of a batch),
/// the next waits up to `gather` seconds, or until a quarter of a batch's commits have woken
/// it, to take more at once. A queue woken while idle starts its round at once.
///
/// While rows are held, a second thread renews their lease every ``OutboxLease/renewInterval``
/// seconds, so a live sender keeps them however long delivery takes, and a killed one leaves
/// them to the other instances within ``OutboxLease/duration`` seconds. The rows of a round not
/// done when it ends (the sender stopping) are made due again at once.
final class OutboxWorker<Item: Sendable>: @unchecked Sendable {
    // @unchecked: every `var` is read and written with `mutex` held.

    /// Rows claimed and delivered on a thread of their own.
    struct Queue: Sendable {
        /// Its name in its thread's name.
        var name: String
        /// Leases up to the given number of due rows.
        var claim: @Sendable (Int) throws -> [Item]
        /// Seconds until its earliest pending row is due (0: now); nil when none is pending.
        var secondsUntilNextDue: @Sendable () throws -> Double?
        /// Delivers a claimed batch, reporting each row done or released.
        var deliver: @Sendable ([Item]) throws -> Void
    }

    /// A queue's state, read and written with `mutex` held.
    private struct QueueState {
        /// What its thread waits on.
        let wake = ConditionMutex.Condition()
        /// Set by a wake-up, cleared by the round it starts.
        var woken = true
        /// Wake-ups since the current round's claim.
        var wakeups = 0
    }

    let name: String
    let lease: OutboxLease
    let batchSize: Int
    let pollInterval: Double
    /// Seconds a round that follows a small one may wait for more rows.
    let gather: Double
    private let queues: [Queue]
    private let id: @Sendable (Item) -> Int64
    private let logger: Logger
    /// Wakes the worker on `NOTIFY` (none when polling); its reconnects are counted for `/metrics`.
    private(set) var listener: NotificationListener?
    private var renewer: PeriodicThread?

    private let mutex = ConditionMutex()
    private let exited = ConditionMutex.Condition()
    private var states: [QueueState]
    private var lostListener = false
    private var stopping = false
    /// Queue threads still running.
    private var running = 0
    /// The claimed rows not yet done, of every queue.
    private var held: Set<Int64> = []
    private var pending: (count: Int, oldestAge: Double) = (0, 0)
    /// When `pending` was last read (or its reading failed).
    private var summarized: ContinuousClock.Instant?
    /// Whether a round ended after that without reading it (it had been read less than a second before).
    private var summaryOwed = false
    /// Rounds completed, and those whose claim took rows: tests wait for a count, not for time.
    private var rounds = 0
    private var claimingRounds = 0

    /// A worker named `name` (its threads and logs) over `lease`, listening on `channel` over
    /// `connection` (nil: polling only), delivering `queues`; call ``start()``.
    init(
        name: String, lease: OutboxLease, channel: String, connection: ConnectionConfiguration?, logger: Logger,
        batchSize: Int, pollInterval: Double, gather: Double = 0, queues: [Queue], id: @escaping @Sendable (Item) -> Int64
    ) {
        precondition(!queues.isEmpty && batchSize > 0)
        self.name = name
        self.lease = lease
        self.batchSize = batchSize
        self.pollInterval = pollInterval
        self.gather = gather
        self.queues = queues
        self.id = id
        self.logger = logger
        states = queues.map { _ in QueueState() }
        renewer = PeriodicThread(name: "gatehouse-\(name)-lease", interval: OutboxLease.renewInterval) { [unowned self] in renewHeld() }
        guard let connection else { return }
        listener = NotificationListener(
            configuration: connection, channels: [channel],
            onNotification: { [unowned self] _ in wakeUp() },
            onConnect: { [unowned self] in
                if exchangeListenerLost(false) { logger.info("\(name) wake-ups on again: notification connection restored") }
                wakeUp()
            },
            onDisconnect: { [unowned self] error in
                _ = exchangeListenerLost(true)
                logger.warn("\(name) wake-ups off, polling every \(Int(pollInterval)) s: notification connection lost", [
                    "error": .string(String(describing: error)),
                ])
            })
    }

    /// Starts listening, a thread per queue and the lease renewals.
    func start() {
        mutex.withLock { running = queues.count }
        listener?.start()
        renewer?.start()
        for index in queues.indices {
            let thread = Thread { [self] in run(index) }
            thread.name = "gatehouse-\(name)-\(queues[index].name)"
            thread.start()
        }
    }

    /// Stops after the rows being delivered; the rest of each batch is made due again for the
    /// other instances (or the next start).
    func stop() {
        listener?.stop()
        mutex.withLock {
            stopping = true
            for state in states { state.wake.signal() }
            while running > 0 { mutex.wait(exited) }
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

    /// Makes claimed rows due again at once, untried (their attempt not counted), before their
    /// round ends. Should the database refuse, they stay held and the round's end tries again.
    func release(_ items: [Item]) {
        let ids = items.map(id)
        guard !ids.isEmpty else { return }
        do {
            try lease.release(ids: ids)
            mutex.withLock { held.subtract(ids) }
        } catch {
            logger.warn("\(name) outbox rows not released", ["error": .string(String(describing: error))])
        }
    }

    /// Pending rows and the oldest one's age in seconds, as of at most a second after the end of
    /// the last round.
    var pendingSummary: (count: Int, oldestAge: Double) { mutex.withLock { pending } }

    /// Rounds completed so far, of every queue.
    var roundCount: Int { mutex.withLock { rounds } }

    /// Rounds so far whose claim took rows.
    var claimingRoundCount: Int { mutex.withLock { claimingRounds } }

    /// Starts a round of every queue as soon as the one in progress (if any) ends.
    func wakeUp() {
        mutex.withLock {
            for index in states.indices { markWoken(index) }
        }
    }

    /// Starts a round of queue `queue` as soon as the one in progress (if any) ends: rows were committed.
    func wakeUp(queue: Int) {
        mutex.withLock { markWoken(queue) }
    }

    /// Called with `mutex` held.
    private func markWoken(_ index: Int) {
        states[index].woken = true
        states[index].wakeups += 1
        states[index].wake.signal()
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

    /// Reads the backlog for `/metrics`, unless it was read less than a second ago: then it is
    /// owed, and read by the first queue whose wait reaches that second (``idle(_:seconds:)``).
    /// `onlyIfOwed`: nothing unless it is owed.
    private func summarizeUnlessRecent(onlyIfOwed: Bool = false) throws {
        let now = ContinuousClock.now
        let skip = mutex.withLock {
            if onlyIfOwed && !summaryOwed { return true }
            guard let last = summarized, now - last < .seconds(1) else { return false }
            summaryOwed = true
            return true
        }
        if skip { return }
        // A failed reading counts as one too, so that an unavailable database is not asked at once again.
        mutex.withLock { summarized = now }
        let summary = try lease.pendingSummary()
        mutex.withLock {
            pending = summary
            summaryOwed = false
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func run(_ index: Int) {
        defer {
            mutex.withLock {
                running -= 1
                exited.broadcast()
            }
        }
        let queue = queues[index]
        while !isStopping {
            var wait = pollInterval
            do {
                mutex.withLock {
                    states[index].woken = false
                    states[index].wakeups = 0
                }
                let batch = try queue.claim(batchSize)
                let ids = batch.map(id)
                mutex.withLock { held.formUnion(ids) }
                defer { mutex.withLock { held.subtract(ids) } }
                try queue.deliver(batch)
                let untried = mutex.withLock { ids.filter(held.contains) }
                if !untried.isEmpty { try lease.release(ids: untried) }
                let woken = mutex.withLock {
                    rounds += 1
                    if !batch.isEmpty { claimingRounds += 1 }
                    return states[index].woken
                }
                // The backlog for /metrics, at most once a second.
                try summarizeUnlessRecent()
                // Another round at once after a full batch, or when rows were committed during
                // this one (wake-ups while rows keep coming fold into one round each).
                if batch.count == batchSize || woken {
                    if batch.count < batchSize / 4 { gatherMore(index) }
                    continue
                }
                if let due = try queue.secondsUntilNextDue() { wait = min(wait, due) }
            } catch {
                logger.warn("\(name) outbox unavailable", ["error": .string(String(describing: error))])
                wait = min(wait, 5)
            }
            idle(index, seconds: wait)
        }
    }

    /// Waits up to `seconds` for a wake-up of queue `index` (or the stop); on the way, reads the
    /// backlog if it is owed, so that /metrics does not keep a burst's figure.
    private func idle(_ index: Int, seconds: Double) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let summaryDue = mutex.withLock { () -> ContinuousClock.Instant? in
                guard summaryOwed, let last = summarized else { return nil }
                return last + .seconds(1)
            }
            let until = min(deadline, summaryDue ?? deadline)
            let proceed = mutex.withLock { () -> Bool in
                if states[index].woken || stopping { return true }
                let left = until - ContinuousClock.now
                if left > .zero { _ = mutex.wait(states[index].wake, seconds: Self.seconds(left)) }
                return states[index].woken || stopping || ContinuousClock.now >= deadline
            }
            if proceed { return }
            do { try summarizeUnlessRecent(onlyIfOwed: true) } catch {
                logger.warn("\(name) outbox unavailable", ["error": .string(String(describing: error))])
            }
        }
    }

    /// After a small round during which rows were committed (load, one or two events a round):
    /// waits up to ``gather`` seconds, or until a quarter of a batch's commits have woken the
    /// queue, so that the next round takes them together.
    private func gatherMore(_ index: Int) {
        guard gather > 0 else { return }
        let deadline = ContinuousClock.now + .seconds(gather)
        mutex.withLock {
            while !stopping && states[index].wakeups < max(1, batchSize / 4) {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return }
                _ = mutex.wait(states[index].wake, seconds: Self.seconds(left))
            }
        }
    }
}
