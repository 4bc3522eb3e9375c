#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `pthread_mutex_t` with condition variables, for state that threads wait on.
///
/// `Synchronization.Mutex` and ``Lock`` have no condition variable; worker pools use this.
/// Owns its heap-allocated mutex; `deinit` destroys and frees it. Any thread may use it.
public final class ConditionMutex: @unchecked Sendable {
    // @unchecked: the pthread objects live at stable heap addresses and are only used
    // through pthread calls, which are thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { precondition(pthread_mutex_lock(mutex) == 0) }
    public func unlock() { precondition(pthread_mutex_unlock(mutex) == 0) }

    /// Runs `body` with the mutex held.
    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Atomically releases the mutex (which the caller holds), waits for a signal on
    /// `condition`, and takes the mutex again. Spurious wake-ups happen: wait in a loop.
    public func wait(_ condition: Condition) {
        precondition(pthread_cond_wait(condition.cond, mutex) == 0)
    }

    /// As ``wait(_:)``, but gives up after `seconds`; returns false when it timed out.
    public func wait(_ condition: Condition, seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + Int((seconds - seconds.rounded(.down)) * 1e9)
        deadline.tv_sec += Int(seconds.rounded(.down)) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_cond_timedwait(condition.cond, mutex, &deadline) != ETIMEDOUT
    }

    /// A condition variable used with a `ConditionMutex`. `deinit` destroys and frees it.
    public final class Condition: @unchecked Sendable {
        fileprivate let cond: UnsafeMutablePointer<pthread_cond_t>

        public init() {
            cond = .allocate(capacity: 1)
            cond.initialize(to: pthread_cond_t())
            precondition(pthread_cond_init(cond, nil) == 0, "pthread_cond_init failed")
        }

        deinit {
            pthread_cond_destroy(cond)
            cond.deallocate()
        }

        /// Wakes one waiter.
        public func signal() { pthread_cond_signal(cond) }
        /// Wakes all waiters.
        public func broadcast() { pthread_cond_broadcast(cond) }
    }
}
