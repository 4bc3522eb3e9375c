#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State behind a plain `pthread_mutex_t` (the default, non-priority-inheritance type).
///
/// For state that request threads touch on every request. `Synchronization.Mutex` on Linux is a
/// priority-inheritance futex that spins before it sleeps and hands a released lock to a sleeping
/// waiter: with one thread per connection (dozens of threads on two cores) a preempted or
/// just-woken owner makes the others spin and queue behind it. A default pthread mutex lets a
/// running thread take a free lock at once and sleeps waiters without spinning (figures in
/// `bench/RESULTS.md`).
///
/// Same `withLock` shape as `Mutex`; a class, so it can sit in a `let` of a `Sendable` class.
///
/// Keep a closure in a class, not as the state itself: a function value passed `inout` through
/// the generic `withLock` comes back wrapped in reabstraction thunks, two more on every access.
public final class Lock<State: ~Copyable>: @unchecked Sendable {
    // @unchecked: `state` is only touched with `mutex` held; both live at stable heap addresses.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let state: UnsafeMutablePointer<State>

    public init(_ initial: consuming State) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with the lock held.
    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout State) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}
