import Threading

/// The pool's logic as a pure state machine (no locks, no I/O, no clocks), after postgres-nio.
///
/// ``Pool`` holds one inside a mutex and performs the actions it returns (connect, hand over,
/// wake a waiter). Generic over the connection type so that tests drive it with plain values.
///
/// Invariant: `leased + connecting + idle.count <= capacity`, and there are waiters only while
/// no idle connection exists.
package struct PoolStateMachine<Resource> {
    /// Identifies one blocked checkout.
    package struct WaiterID: Hashable, Sendable {
        package let raw: Int
    }

    /// What a checkout must do next.
    package enum CheckoutAction {
        /// Use this idle connection (validate it first; see ``replaceLeaseWithConnect()``).
        case use(Resource)
        /// A slot is reserved: open a new connection, then report ``connectSucceeded()`` or ``connectFailed()``.
        case connect
        /// Block until woken with a ``WaiterOutcome``, or time out and call ``cancelWaiting(_:)``.
        case wait(WaiterID)
        /// The pool is shut down.
        case shutDown
    }

    /// What a woken waiter must do.
    package enum WaiterOutcome {
        /// Use this connection (handed over by a release).
        case use(Resource)
        /// A slot was freed for you: open a new connection.
        case connect
        /// The pool shut down.
        case shutDown
    }

    /// Side effect for the caller after a release or a failed connect.
    package enum FollowUp {
        case none
        /// Wake this waiter with this outcome.
        case wake(WaiterID, WaiterOutcome)
        /// Close this connection (the pool is shut down).
        case close(Resource)
    }

    /// Most connections open at once (leased, connecting and idle together).
    package let capacity: Int
    private(set) package var idle: [Resource] = []
    private(set) package var leased = 0
    private(set) package var connecting = 0
    private var waiters = FIFO<WaiterID>()
    private var nextWaiter = 0
    private(set) package var isShutDown = false

    /// A pool of at most `capacity` connections (at least 1).
    package init(capacity: Int) {
        precondition(capacity >= 1, "a pool needs at least one connection")
        self.capacity = capacity
    }

    /// Threads blocked in checkout.
    package var waitingCount: Int { waiters.count }

    /// Begins a checkout: reuse the most recently released idle connection (LIFO keeps few warm),
    /// else open one if below capacity, else wait in FIFO order.
    package mutating func checkout() -> CheckoutAction {
        if isShutDown { return .shutDown }
        if let resource = idle.popLast() {
            leased += 1
            return .use(resource)
        }
        if leased + connecting < capacity {
            connecting += 1
            return .connect
        }
        let id = WaiterID(raw: nextWaiter)
        nextWaiter += 1
        waiters.append(id)
        return .wait(id)
    }

    /// The connection handed out by `.use` was dead: its slot becomes a reserved connect.
    package mutating func replaceLeaseWithConnect() {
        precondition(leased > 0)
        leased -= 1
        connecting += 1
    }

    /// A reserved connect succeeded; the connection is now leased to the caller.
    package mutating func connectSucceeded() {
        precondition(connecting > 0)
        connecting -= 1
        leased += 1
    }

    /// A reserved connect failed: the slot is free again; the next waiter (if any) may try.
    package mutating func connectFailed() -> FollowUp {
        precondition(connecting > 0)
        connecting -= 1
        if isShutDown { return .none }
        if let waiter = waiters.popFirst() {
            connecting += 1
            return .wake(waiter, .connect)
        }
        return .none
    }

    /// A leased connection comes back. A reusable one goes to the first waiter or to the idle
    /// list; a broken one (the caller drops it) frees its slot, which the first waiter reconnects.
    package mutating func release(_ resource: Resource, reusable: Bool) -> FollowUp {
        precondition(leased > 0)
        leased -= 1
        if isShutDown { return reusable ? .close(resource) : .none }
        if reusable {
            if let waiter = waiters.popFirst() {
                leased += 1
                return .wake(waiter, .use(resource))
            }
            idle.append(resource)
            return .none
        }
        if let waiter = waiters.popFirst() {
            connecting += 1
            return .wake(waiter, .connect)
        }
        return .none
    }

    /// A waiter timed out. Returns `true` if it was still waiting (it is removed and must fail);
    /// `false` if it was already woken (it must take the outcome it was given).
    package mutating func cancelWaiting(_ id: WaiterID) -> Bool {
        waiters.removeFirst { $0 == id }
    }

    /// Shuts the pool down: returns the idle connections to close and the waiters to wake with `.shutDown`.
    package mutating func shutDown() -> (close: [Resource], wake: [WaiterID]) {
        isShutDown = true
        let closing = idle
        idle.removeAll()
        return (closing, waiters.popFirst(upTo: waiters.count))
    }

    /// Removes every idle connection (e.g. after the server restarted), returning them to close.
    package mutating func drainIdle() -> [Resource] {
        let drained = idle
        idle.removeAll()
        return drained
    }

    /// Counts for metrics.
    package var stats: PoolStats {
        PoolStats(capacity: capacity, inUse: leased, idle: idle.count, connecting: connecting, waiting: waitingCount)
    }
}
