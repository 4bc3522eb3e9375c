internal import CSodium
import Glibc
import Synchronization

/// A bounded pool of worker threads that hash and verify passwords for blocking callers.
///
/// Callers are ordinary threads (HTTP worker threads), not Swift concurrency tasks: each call
/// blocks its thread until a worker has finished the job. At most `workers` jobs run at once
/// (each holds `memLimit` bytes, 64 MiB at `.interactive`) and at most `queueDepth` more wait;
/// beyond that a call throws `HashingPoolError.busy` immediately, so overload sheds requests
/// instead of piling up memory and latency.
///
/// Thread-safe. `shutdown()` (also run by `deinit`) refuses new jobs, finishes the queued ones
/// and joins the workers.
public final class PasswordHashingPool: Sendable {
    /// A snapshot of the pool for metrics.
    public struct Metrics: Sendable, Hashable {
        /// The number of worker threads.
        public var workers: Int
        /// The maximum number of jobs waiting for a worker.
        public var queueDepth: Int
        /// Jobs waiting for a worker now.
        public var queued: Int
        /// Workers running a job now.
        public var busyWorkers: Int
        /// Jobs finished since the pool started.
        public var completed: UInt64
        /// Calls refused with `.busy` since the pool started.
        public var rejected: UInt64
        /// Whether `shutdown()` has been called.
        public var isShutDown: Bool
    }

    /// The hasher the workers use.
    public let hasher: PasswordHasher

    private let core: PoolCore
    private let threads: [PThread]
    private let joined = Mutex(false)

    /// Starts `workers` threads (default: the number of online cores) with room for
    /// `queueDepth` waiting jobs (default: eight times the workers).
    ///
    /// - Precondition: `workers >= 1`, `queueDepth >= 0`.
    public init(hasher: PasswordHasher, workers: Int? = nil, queueDepth: Int? = nil) {
        let workerCount = workers ?? Self.onlineCores()
        let depth = queueDepth ?? 8 * workerCount
        precondition(workerCount >= 1, "PasswordHashingPool needs at least one worker")
        precondition(depth >= 0, "PasswordHashingPool queue depth cannot be negative")
        self.hasher = hasher
        let core = PoolCore(workerCount: workerCount, queueDepth: depth)
        self.core = core
        self.threads = (0..<workerCount).map { _ in
            PThread.spawn {
                Self.shortenSlice()
                core.workerLoop()
            }
        }
    }

    /// The hashing threads' time slice (Linux 6.12+). A hash is ~50-100 ms of pure CPU; with the
    /// default slice of a few milliseconds, two busy workers on two cores made requests that
    /// woke up wait for the slice to end. With 0.1 ms they are reconsidered that often: viewer
    /// p99 8.6-10.8 ms while 8 connections saturate log-in on 2 cores, 5-7 ms without the storm.
    ///
    /// Their niceness stays the process's, so they keep a fair share of a busy machine: at nice 10, one busy
    /// thread of another program cut log-ins to 0.72 of the raw hash rate (0.95 at nice 0). A
    /// viewer p99 of 15-25 ms during log-in storms, once blamed on the hashing threads' share,
    /// came from the log writer (see `LogWriter`).
    public static let workerSliceNanoseconds: UInt64 = 100_000

    private static func shortenSlice() {
        // Per thread: sched_setattr with pid 0 sets the calling thread only.
        _ = gatehouse_set_slice(workerSliceNanoseconds)
    }

    deinit {
        shutdown()
    }

    /// Hashes `password` (UTF-8 bytes) on a worker; blocks until done.
    ///
    /// - Throws: `.busy` at once if the queue is full, `.shutDown`, or `.hashingFailed`.
    public func hash(_ password: String) throws(HashingPoolError) -> String {
        try hash(Array(password.utf8))
    }

    /// Hashes the password `bytes` on a worker; blocks until done.
    ///
    /// - Throws: `.busy` at once if the queue is full, `.shutDown`, or `.hashingFailed`.
    public func hash(_ password: [UInt8]) throws(HashingPoolError) -> String {
        let hasher = self.hasher
        let result = try run { () -> Result<String, SodiumError> in
            Result { () throws(SodiumError) -> String in try hasher.hash(password) }
        }
        switch result {
        case .success(let hash): return hash
        case .failure(let error): throw .hashingFailed(error)
        }
    }

    /// Verifies `password` (UTF-8 bytes) against a stored argon2id or bcrypt hash on a worker;
    /// blocks until done. See `PasswordHasher.verify(_:against:)`.
    ///
    /// - Throws: `.busy` at once if the queue is full, or `.shutDown`.
    public func verify(_ password: String, against storedHash: String) throws(HashingPoolError) -> VerifyResult {
        try verify(Array(password.utf8), against: storedHash)
    }

    /// Verifies the password `bytes` against a stored hash on a worker; blocks until done.
    ///
    /// - Throws: `.busy` at once if the queue is full, or `.shutDown`.
    public func verify(_ password: [UInt8], against storedHash: String) throws(HashingPoolError) -> VerifyResult {
        let hasher = self.hasher
        return try run { hasher.verify(password, against: storedHash) }
    }

    /// Runs `PasswordHasher.dummyVerify(_:)` on a worker, for logins of unknown users;
    /// blocks until done, so it costs the same as a real verification.
    ///
    /// - Throws: `.busy` at once if the queue is full, or `.shutDown`.
    public func dummyVerify(_ password: String) throws(HashingPoolError) {
        let hasher = self.hasher
        let bytes = Array(password.utf8)
        try run { hasher.dummyVerify(bytes) }
    }

    /// A snapshot of queue depth, busy workers and counters.
    public var metrics: Metrics { core.metrics() }

    /// Refuses new jobs (`.shutDown`), lets queued and running jobs finish, and joins the workers.
    ///
    /// Idempotent; a concurrent second call waits until the workers have exited.
    /// Do not call it from inside a job.
    public func shutdown() {
        core.stopAccepting()
        joined.withLock { joined in
            guard !joined else { return }
            for thread in threads { thread.join() }
            joined = true
        }
    }

    /// Runs `work` on a worker thread and returns its result; blocks the caller until done.
    /// Internal: the tests use it to hold a worker deterministically.
    @discardableResult
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) throws(HashingPoolError) -> T {
        let slot = ResultSlot<T>()
        let job = PoolCore.Job { slot.value = work() }
        try core.submitAndWait(job)
        // The worker wrote `slot.value` before marking the job done under the pool's mutex,
        // and we observed `done` under that mutex: the write happens-before this read.
        return slot.value!
    }

    private static func onlineCores() -> Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

/// Carries a job's result from the worker to the caller (ordered by the pool's mutex).
private final class ResultSlot<T>: @unchecked Sendable {
    var value: T?
}
