import Foundation

/// A pool of threads for jobs that may block, which grows on demand up to `maxThreads`
/// (a job waits only when that many are busy) and shrinks again: a thread idle for
/// `idleSeconds` exits. The HTTP server runs handed-off requests on one (a burst of
/// log-ins gets a thread each, while quick requests never leave the event threads), the
/// session lookups their batches on another, the password hashing pool its hashes on a third
/// (with ``runAndWait(_:limit:)``, whose admission limit bounds its queue).
public final class WorkerThreads: @unchecked Sendable {
    // @unchecked: every `var` (here and in `Sleeper` and `Waiter`) is read and written with `mutex` held.
    public typealias Job = @Sendable () -> Void

    /// A snapshot of the pool, for metrics and for tests that wait for a state.
    public struct Stats: Sendable, Hashable {
        /// Threads alive.
        public var threads: Int
        /// Threads waiting for a job.
        public var idle: Int
        /// Jobs waiting for a thread.
        public var queued: Int
        /// Jobs handed to a thread and not finished.
        public var running: Int
        /// Jobs finished since the pool started.
        public var completed: UInt64
        /// ``runAndWait(_:limit:)`` calls refused with `.full`.
        public var refused: UInt64
        /// Whether ``shutDown(waiting:)`` has been called.
        public var isShutDown: Bool
    }

    /// Why ``runAndWait(_:limit:)`` did not run a job.
    public enum Refusal: Error, Sendable, Hashable {
        /// `limit` jobs were already queued or running.
        case full
        /// The pool is shutting down.
        case shutDown
    }

    /// A job, and for ``runAndWait(_:limit:)`` the caller waiting for it.
    private struct Queued {
        let job: Job
        let waiter: Waiter?
    }

    /// A caller blocked in ``runAndWait(_:limit:)`` until its job is done.
    private final class Waiter {
        let finished = ConditionMutex.Condition()
        var done = false
    }

    /// An idle thread: the condition it waits on, and the job handed to it.
    private final class Sleeper {
        let wake = ConditionMutex.Condition()
        var handed: Queued?
    }

    private let mutex = ConditionMutex()
    private let allExited = ConditionMutex.Condition()
    /// Held while a thread starts (see `startThread`).
    private let starting = Lock(())
    private var jobs = FIFO<Queued>()
    private var threads = 0
    private var running = 0
    private var completed: UInt64 = 0
    private var refused: UInt64 = 0
    /// Idle threads, the most recently idle last. A job goes to the thread that finished one
    /// last (its stack and caches are warm), so under light load one thread does the work and
    /// the others idle out; with one condition for all, `signal` would wake them in turn, each cold.
    private var sleepers: [Sleeper] = []
    private var shuttingDown = false
    public let maxThreads: Int
    public let idleSeconds: Double
    private let name: String
    private let onStart: (@Sendable () -> Void)?

    /// `name` names the threads (at most 15 bytes: Linux's limit). With `idleSeconds` infinite,
    /// threads never idle out. `onStart` runs on each new thread before its first job (to set
    /// its scheduling, say).
    public init(name: String, maxThreads: Int, idleSeconds: Double = 30, onStart: (@Sendable () -> Void)? = nil) {
        precondition(maxThreads >= 1 && name.utf8.count <= 15 && idleSeconds > 0)
        self.name = name
        self.maxThreads = maxThreads
        self.idleSeconds = idleSeconds
        self.onStart = onStart
    }

    /// Runs `job` on a pool thread: the most recently idle one, else a new one, else the first
    /// to free up.
    public func run(_ job: @escaping Job) {
        if mutex.withLock({ enqueue(Queued(job: job, waiter: nil)) }) { startThread() }
    }

    /// Runs `job` on a pool thread as ``run(_:)`` does and returns once it has finished, unless
    /// `limit` jobs are already queued or running (`.full`, at once) or the pool is shutting down.
    public func runAndWait(_ job: @escaping Job, limit: Int) throws(Refusal) {
        let waiter = Waiter()
        let start = try mutex.withLock { () throws(Refusal) -> Bool in
            guard !shuttingDown else { throw .shutDown }
            guard jobs.count + running < limit else {
                refused += 1
                throw .full
            }
            return enqueue(Queued(job: job, waiter: waiter))
        }
        if start { startThread() }
        mutex.withLock { while !waiter.done { mutex.wait(waiter.finished) } }
    }

    /// A consistent snapshot of the counts.
    public var stats: Stats {
        mutex.withLock {
            Stats(threads: threads, idle: sleepers.count, queued: jobs.count, running: running,
                  completed: completed, refused: refused, isShutDown: shuttingDown)
        }
    }

    /// Lets threads exit once the queue is empty (jobs still queued run first); with
    /// `waiting`, returns when every thread has exited.
    public func shutDown(waiting: Bool) {
        mutex.withLock {
            shuttingDown = true
            for sleeper in sleepers { sleeper.wake.signal() }
            sleepers.removeAll()
            while waiting && threads > 0 { mutex.wait(allExited) }
        }
    }

    /// Hands `queued` to the most recently idle thread, else queues it; true when the caller
    /// must start a thread (there was room for one). Called with `mutex` held.
    private func enqueue(_ queued: Queued) -> Bool {
        if let sleeper = sleepers.popLast() {
            sleeper.handed = queued
            running += 1
            sleeper.wake.signal()
            return false
        }
        jobs.append(queued)
        guard threads < maxThreads else { return false }
        threads += 1
        return true
    }

    /// Starts a thread (outside `mutex`: creating one takes a while).
    private func startThread() {
        let thread = Thread { [self] in
            // Named from the thread itself, which names the OS thread, once `start` has returned:
            // before that, Foundation's `Thread` has no handle to compare with the current thread's.
            starting.withLock { _ in }
            Thread.current.name = name
            onStart?()
            work()
        }
        starting.withLock { _ in thread.start() }
    }

    private func work() {
        let sleeper = Sleeper()
        mutex.lock()
        while true {
            var queued: Queued?
            if let next = jobs.popFirst() {
                queued = next
                running += 1
            } else if shuttingDown {
                break
            } else {
                sleepers.append(sleeper)
                let signalled = idleSeconds.isFinite
                    ? mutex.wait(sleeper.wake, seconds: idleSeconds) : { mutex.wait(sleeper.wake); return true }()
                guard let handed = sleeper.handed else {
                    // Spurious wake-up, time-out or shutdown: `enqueue` hands jobs only to threads
                    // it takes off `sleepers`, so this one may still be on it.
                    sleepers.removeAll { $0 === sleeper }
                    if !signalled && !shuttingDown && jobs.isEmpty { break }
                    continue
                }
                sleeper.handed = nil
                queued = handed
            }
            mutex.unlock()
            queued!.job()
            let waiter = queued!.waiter
            // The job goes before the lock is taken again: it may hold the last reference to the
            // pool's owner, whose deinit then shuts the pool down, which takes the lock.
            queued = nil
            mutex.lock()
            running -= 1
            completed += 1
            if let waiter {
                waiter.done = true
                waiter.finished.signal()
            }
        }
        threads -= 1
        if threads == 0 { allExited.broadcast() }
        mutex.unlock()
    }
}
