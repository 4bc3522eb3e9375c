import Glibc

/// A `pthread_mutex_t` with condition variables, for state that threads wait on.
///
/// `Synchronization.Mutex` has no condition variable, so the pool uses this instead.
/// Owns its heap-allocated mutex; `deinit` destroys and frees it. Any thread may use it.
final class ConditionMutex: @unchecked Sendable {
    // @unchecked: the pthread objects live at stable heap addresses and are only used
    // through pthread calls, which are thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { precondition(pthread_mutex_lock(mutex) == 0) }
    func unlock() { precondition(pthread_mutex_unlock(mutex) == 0) }

    /// Runs `body` with the mutex held.
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Atomically releases the mutex (which the caller holds), waits for a signal on
    /// `condition`, and takes the mutex again. Spurious wake-ups happen: wait in a loop.
    func wait(_ condition: Condition) {
        precondition(pthread_cond_wait(condition.cond, mutex) == 0)
    }

    /// A condition variable used with a `ConditionMutex`. `deinit` destroys and frees it.
    final class Condition: @unchecked Sendable {
        fileprivate let cond: UnsafeMutablePointer<pthread_cond_t>

        init() {
            cond = .allocate(capacity: 1)
            cond.initialize(to: pthread_cond_t())
            precondition(pthread_cond_init(cond, nil) == 0, "pthread_cond_init failed")
        }

        deinit {
            pthread_cond_destroy(cond)
            cond.deallocate()
        }

        /// Wakes one waiter.
        func signal() { pthread_cond_signal(cond) }
        /// Wakes all waiters.
        func broadcast() { pthread_cond_broadcast(cond) }
    }
}
