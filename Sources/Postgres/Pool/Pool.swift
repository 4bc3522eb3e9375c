import Dispatch
import Threading
import Synchronization

/// A bounded, thread-safe pool of ``Connection``s for blocking callers (HTTP worker threads).
///
/// Connections are opened lazily up to ``PoolConfiguration/size``. A checkout blocks at most
/// ``PoolConfiguration/checkoutTimeoutSeconds`` and then fails with `database unavailable`.
/// Connections found dead (server restarted, connection-class SQLSTATE) are dropped and replaced on
/// the next checkout, so the pool recovers by itself after an outage; during it, checkouts fail
/// fast with the connect error (bounded by libpq's `connect_timeout`).
///
/// The decisions live in ``PoolStateMachine``; this class adds the mutex, the blocking and the I/O.
/// Never call it from Swift concurrency's cooperative threads: it blocks.
public final class Pool: Sendable {
    /// One blocked checkout: a semaphore, and the outcome written under the pool's mutex before
    /// the semaphore is signalled (the signal orders the write before the waiter's read).
    private final class Waiter: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        var outcome: PoolStateMachine<Connection>.WaiterOutcome?
    }

    private struct State: ~Copyable {
        var machine: PoolStateMachine<Connection>
        var waiters: [PoolStateMachine<Connection>.WaiterID: Waiter] = [:]
    }

    /// The configuration the pool was made with.
    public let configuration: PoolConfiguration
    private let state: Lock<State>
    private let retries = Atomic<Int>(0)
    private let roundTrips = Atomic<Int>(0)

    /// A pool; no connection is opened until the first checkout.
    public init(configuration: PoolConfiguration) {
        self.configuration = configuration
        self.state = Lock(State(machine: PoolStateMachine(capacity: configuration.size)))
    }

    /// A pool for a connection string (e.g. `DATABASE_URL`).
    public convenience init(_ connectionString: String, size: Int = 10) {
        self.init(configuration: PoolConfiguration(connectionString, size: size))
    }

    deinit {
        close()
    }

    /// Current counts (in use, idle, connecting, waiting), for metrics.
    public var stats: PoolStats { state.withLock { $0.machine.stats } }

    /// Borrows a connection for the duration of `body`, on the calling thread.
    ///
    /// Throws `PostgresError` of kind `.databaseUnavailable` when no connection frees up in time,
    /// when connecting fails, or after ``close()``; otherwise rethrows what `body` throws. A
    /// transaction left open by `body` is rolled back; a broken connection is not reused.
    /// `body` runs once: see ``withConnection(retry:_:)`` for reads that may run again.
    public func withConnection<Result>(_ body: (Connection) throws -> Result) throws -> Result {
        EventThread.assertMayBlock("A PostgreSQL connection was borrowed")
        let connection = try checkout()
        defer { checkin(connection) }
        return try body(connection)
    }

    /// Whether a body may run again on a fresh connection when its connection fails under it.
    public enum Retry: Sendable {
        /// Never: the body writes something that must not happen twice, and a connection lost
        /// during a write leaves its outcome unknown (it may have committed). The error goes to
        /// the caller.
        case never
        /// Once more, on a fresh connection, when the body failed because its connection was
        /// lost or reached a read-only server (``PostgresError/isUnavailable``, but not a
        /// checkout that found no connection). Only for bodies that give the same result when
        /// run twice: reads, and writes whose repetition is harmless (a delete by key, an
        /// upsert to a fixed value).
        case once
    }

    /// Bodies run a second time by ``Retry/once`` since the pool was made (for metrics).
    public var retriedCount: Int { retries.load(ordering: .relaxed) }

    /// Round trips to the server (statements, prepares, `BEGIN`, `COMMIT`) made on connections
    /// since returned to the pool: for tests of what an operation costs, which read it before and
    /// after the operation on a pool no one else uses.
    public var roundTripCount: Int { roundTrips.load(ordering: .relaxed) }

    /// Borrows a connection for `body`, as ``withConnection(_:)``; with ``Retry/once``, a body
    /// whose connection failed under it runs once more on a fresh connection.
    public func withConnection<Result>(retry: Retry, _ body: (Connection) throws -> Result) throws -> Result {
        do {
            return try withConnection(body)
        } catch let error as PostgresError where retry == .once && error.kind != .databaseUnavailable && error.isUnavailable {
            // The failed connection was dropped at check-in; the next checkout validates or opens another.
            retries.add(1, ordering: .relaxed)
            return try withConnection(body)
        }
    }

    /// Closes idle connections and refuses further checkouts; connections in use close when returned.
    public func close() {
        let (closing, woken) = state.withLock { state in
            let (closing, ids) = state.machine.shutDown()
            let woken = ids.compactMap { id -> Waiter? in
                let waiter = state.waiters.removeValue(forKey: id)
                waiter?.outcome = .shutDown
                return waiter
            }
            return (closing, woken)
        }
        closing.forEach { $0.close() }
        woken.forEach { $0.semaphore.signal() }
    }

    // MARK: Checkout and check-in

    private func checkout() throws(PostgresError) -> Connection {
        // The waiter is registered under the same lock as the decision, so a release can always
        // find it.
        let (action, waiter) = state.withLock { state -> (PoolStateMachine<Connection>.CheckoutAction, Waiter?) in
            let action = state.machine.checkout()
            guard case .wait(let id) = action else { return (action, nil) }
            let waiter = Waiter()
            state.waiters[id] = waiter
            return (action, waiter)
        }
        switch action {
        case .use(let connection):
            return try validated(connection)
        case .connect:
            return try connectReserved()
        case .shutDown:
            throw Self.shutDownError
        case .wait(let id):
            return try wait(id, waiter!)
        }
    }

    private func wait(_ id: PoolStateMachine<Connection>.WaiterID, _ waiter: Waiter) throws(PostgresError) -> Connection {
        let deadline = DispatchTime.now() + configuration.checkoutTimeoutSeconds
        if waiter.semaphore.wait(timeout: deadline) == .timedOut {
            let stillWaiting = state.withLock { state in
                let removed = state.machine.cancelWaiting(id)
                if removed { state.waiters[id] = nil }
                return removed
            }
            if stillWaiting {
                throw PostgresError(
                    .databaseUnavailable,
                    message: "no database connection became free within \(configuration.checkoutTimeoutSeconds) s "
                        + "(pool of \(configuration.size) exhausted)")
            }
            // Woken just as the timeout fired: the signal is on its way, and we own the outcome.
            waiter.semaphore.wait()
        }
        let outcome = state.withLock { _ in waiter.outcome }
        switch outcome {
        case .use(let connection):
            return try validated(connection)
        case .connect:
            return try connectReserved()
        case .shutDown, nil:
            throw Self.shutDownError
        }
    }

    /// A connection that sat idle may have died (e.g. the server restarted): check it without a
    /// round trip, and open a replacement in its slot if it is dead.
    private func validated(_ connection: Connection) throws(PostgresError) -> Connection {
        if connection.checkAlive() { return connection }
        connection.close()
        state.withLock { $0.machine.replaceLeaseWithConnect() }
        return try connectReserved()
    }

    /// Opens a connection in a slot the machine reserved.
    private func connectReserved() throws(PostgresError) -> Connection {
        do {
            let connection = try Connection(configuration: configuration.connection)
            state.withLock { $0.machine.connectSucceeded() }
            return connection
        } catch {
            let followUp = state.withLock { $0.machine.connectFailed() }
            perform(followUp)
            throw PostgresError(.databaseUnavailable, message: "cannot connect to PostgreSQL: \(error.message)")
        }
    }

    private func checkin(_ connection: Connection) {
        connection.rollbackIfNeeded()
        roundTrips.add(connection.takeRoundTrips(), ordering: .relaxed)
        let reusable = !connection.isBroken
        if !reusable { connection.close() }
        let followUp = state.withLock { $0.machine.release(connection, reusable: reusable) }
        perform(followUp)
    }

    private func perform(_ followUp: PoolStateMachine<Connection>.FollowUp) {
        switch followUp {
        case .none:
            break
        case .close(let connection):
            connection.close()
        case .wake(let id, let outcome):
            let waiter: Waiter? = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                waiter?.outcome = outcome
                return waiter
            }
            waiter?.semaphore.signal()
        }
    }

    private static let shutDownError = PostgresError(.databaseUnavailable, message: "the connection pool is closed")
}
