internal import CSodium
import Glibc
import Locking

/// A bounded pool of worker threads that hash and verify passwords for blocking callers.
///
/// Callers are ordinary threads (HTTP worker threads), not Swift concurrency tasks: each call
/// blocks its thread until a worker has finished the job. At most `workers` jobs run at once
/// (each holds `memLimit` bytes, 64 MiB at `.interactive`) and at most `queueDepth` more wait;
/// beyond that a call throws `HashingPoolError.busy` immediately, so overload sheds requests
/// instead of piling up memory and latency.
///
/// Thread-safe. `shutdown()` (also run by `deinit`) refuses new jobs, finishes the queued ones
/// and waits for the workers to exit. The workers are a `WorkerThreads` of `workers` threads
/// that never idle out; this class adds the admission limit and the result.
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

    private let threads: WorkerThreads
    private let queueDepth: Int

    /// A pool of `workers` threads (default: the number of online cores; each starts with the
    /// first job it takes and then stays) with room for `queueDepth` waiting jobs (default: eight
    /// times the workers).
    ///
    /// - Precondition: `workers >= 1`, `queueDepth >= 0`.
    public init(hasher: PasswordHasher, workers: Int? = nil, queueDepth: Int? = nil) {
        let workerCount = workers ?? Self.onlineCores()
        let depth = queueDepth ?? 8 * workerCount
        precondition(workerCount >= 1, "PasswordHashingPool needs at least one worker")
        precondition(depth >= 0, "PasswordHashingPool queue depth cannot be negative")
        self.hasher = hasher
        self.queueDepth = depth
        self.threads = WorkerThreads(name: "gh-hashing", maxThreads: workerCount, idleSeconds: .infinity) {
            // Per thread: sched_setattr with pid 0 sets the calling thread only.
            _ = gatehouse_set_slice(Self.workerSliceNanoseconds)
        }
    }

    /// The hashing threads' time slice (Linux 6.12+). A hash is tens of milliseconds of pure CPU;
    /// with the default slice of a few milliseconds, busy workers make requests that wake up wait
    /// for the slice to end, while with 0.1 ms they are reconsidered that often.
    ///
    /// Their niceness stays the process's, so they keep a fair share of a busy machine: at a
    /// higher nice value any other program's work takes their CPU. Figures in `bench/RESULTS.md`.
    public static let workerSliceNanoseconds: UInt64 = 100_000

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
    public var metrics: Metrics {
        let stats = threads.stats
        return Metrics(
            workers: threads.maxThreads, queueDepth: queueDepth, queued: stats.queued, busyWorkers: stats.running,
            completed: stats.completed, rejected: stats.refused, isShutDown: stats.isShutDown)
    }

    /// Refuses new jobs (`.shutDown`), lets queued and running jobs finish, and waits for the
    /// workers to exit.
    ///
    /// Idempotent; a concurrent second call also waits until the workers have exited.
    /// Do not call it from inside a job.
    public func shutdown() {
        threads.shutDown(waiting: true)
    }

    /// Runs `work` on a worker thread and returns its result; blocks the caller until done.
    /// Internal: the tests use it to hold a worker deterministically.
    ///
    /// Room means fewer than `workers + queueDepth` jobs queued or running, so at most `workers`
    /// hashes hold memory at a time and at most `queueDepth` callers wait for a worker.
    @discardableResult
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) throws(HashingPoolError) -> T {
        let slot = ResultSlot<T>()
        do {
            try threads.runAndWait({ slot.value = work() }, limit: threads.maxThreads + queueDepth)
        } catch {
            switch error {
            case .full: throw .busy
            case .shutDown: throw .shutDown
            }
        }
        // The worker wrote `slot.value` before marking the job done under the threads' mutex,
        // and `runAndWait` observed `done` under that mutex: the write happens-before this read.
        return slot.value!
    }

    private static func onlineCores() -> Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

/// Carries a job's result from the worker to the caller (ordered by the threads' mutex).
private final class ResultSlot<T>: @unchecked Sendable {
    var value: T?
}
