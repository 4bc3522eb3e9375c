internal import CSodium
import Glibc
import Threading

/// A bounded pool of worker threads that hash and verify passwords for blocking callers,
/// admitting a job by the wait it would have.
///
/// Callers are ordinary threads (HTTP worker threads), not Swift concurrency tasks: each call
/// blocks its thread until a worker has finished the job. At most `workers` jobs run at once
/// (each holds `memLimit` bytes, 64 MiB at `.interactive`); the others wait, holding no hash
/// memory. A job that finds `ahead` jobs queued or running starts at once if a worker is free,
/// else after `ahead - workers + 1` of them have finished, `workers` at a time: its expected
/// wait is `(ahead - workers + 1) × mean / workers`, with `mean` the recent mean CPU time of a
/// job. If that is more than `maxWait` seconds, the call throws `HashingPoolError.busy` at
/// once, so a burst waits and a flood is shed instead of piling up latency. Whatever `maxWait`,
/// at most ``maxQueued`` jobs wait (each holds its caller's thread and a copy of the password).
///
/// `mean` is an exponentially weighted mean (weight 1/8, as TCP's smoothed round-trip time) of
/// the CPU time of all jobs, whatever their cost (a bcrypt verification, an argon2id one of
/// another cost, several in one log-in). CPU time, not wall time: it is what a job costs the
/// workers whatever else runs on the machine, so the wait predicted is the wait when the workers
/// have the cores to themselves (as they do with the default of one worker a core); other work on
/// the machine makes real waits longer.
///
/// `mean` starts from the cheapest of ``startSamples`` hashes measured in `init`. A burst that
/// arrives at once is admitted on that estimate alone, before any of its jobs has finished, and
/// the first hash of a process can cost several times the next ones (its memory is touched for the
/// first time; on a fresh virtual machine, memory the host has never handed out): one sample taken
/// alone would refuse part of the first burst after start-up.
///
/// Thread-safe. `shutdown()` (also run by `deinit`) refuses new jobs, finishes the queued ones
/// and waits for the workers to exit. The workers are a `WorkerThreads` of `workers` threads
/// that never idle out; this class adds the admission and the result.
public final class PasswordHashingPool: Sendable {
    /// A snapshot of the pool for metrics.
    public struct Metrics: Sendable, Hashable {
        /// The number of worker threads.
        public var workers: Int
        /// The longest expected wait, in seconds, at which a job is still admitted.
        public var maxWait: Double
        /// The recent mean CPU time of a job, in seconds.
        public var meanJobSeconds: Double
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

    /// How many hashes `init` measures; the cheapest is the first estimate of a job.
    static let startSamples = 3

    /// The most jobs that wait for a worker, however long `maxWait` is.
    public static let maxQueued = 1024

    /// The hasher the workers use.
    public let hasher: PasswordHasher
    /// The longest expected wait, in seconds, at which a job is still admitted.
    public let maxWait: Double

    private let threads: WorkerThreads
    /// The recent mean CPU time of a job, in seconds.
    private let meanJobSeconds: Lock<Double>
    /// Measures each job (see `JobMeter`).
    private let meter: JobMeter
    /// Called on the worker with the kind of every hash verified (`HashKinds.kind(of:)`, or
    /// "unrecognized"): a hook for tests that compare the work of log-ins.
    private let onVerify: (@Sendable (String) -> Void)?

    /// Runs a job and returns what it cost, in seconds. The pool's own is ``threadCPUSeconds(_:)``;
    /// tests give fixed costs, so that what admission decides does not depend on the machine.
    package typealias JobMeter = @Sendable (_ job: () -> Void) -> Double

    /// A pool of `workers` threads (default: the number of online cores; each starts with the
    /// first job it takes and then stays) admitting jobs expected to wait at most `maxWait`
    /// seconds. Hashes a random password ``startSamples`` times first, to measure a job.
    ///
    /// - Precondition: `workers >= 1`, `maxWait >= 0`.
    public convenience init(
        hasher: PasswordHasher, workers: Int? = nil, maxWait: Double = 5, onVerify: (@Sendable (String) -> Void)? = nil
    ) {
        self.init(hasher: hasher, workers: workers, maxWait: maxWait, meter: Self.threadCPUSeconds, onVerify: onVerify)
    }

    /// A pool whose jobs, including the start-up hashes, are measured by `meter`.
    package init(
        hasher: PasswordHasher, workers: Int?, maxWait: Double, meter: @escaping JobMeter,
        onVerify: (@Sendable (String) -> Void)? = nil
    ) {
        let workerCount = workers ?? Self.onlineCores()
        precondition(workerCount >= 1, "PasswordHashingPool needs at least one worker")
        precondition(maxWait >= 0, "PasswordHashingPool's maximum wait cannot be negative")
        self.hasher = hasher
        self.maxWait = maxWait
        self.meter = meter
        self.onVerify = onVerify
        let samples = (0..<Self.startSamples).map { _ in meter { _ = try? hasher.hash(SecureRandom.bytes(16)) } }
        self.meanJobSeconds = Lock(samples.min()!)
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
    /// - Throws: `.busy` at once if it would wait too long, `.shutDown`, or `.hashingFailed`.
    public func hash(_ password: String) throws(HashingPoolError) -> String {
        try hash(Array(password.utf8))
    }

    /// Hashes the password `bytes` on a worker; blocks until done.
    ///
    /// - Throws: `.busy` at once if it would wait too long, `.shutDown`, or `.hashingFailed`.
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
    /// - Throws: `.busy` at once if it would wait too long, or `.shutDown`.
    public func verify(_ password: String, against storedHash: String) throws(HashingPoolError) -> VerifyResult {
        let bytes = Array(password.utf8)
        return try run { [self] in check(bytes, storedHash) }
    }

    /// A log-in's verification, in one job: `password` against `storedHash` (nil: no such
    /// account) and, unless it matches, against a dummy of every other kind of `kinds` (see
    /// `HashKinds.verify(_:against:check:)`); blocks until done.
    ///
    /// - Throws: `.busy` at once if it would wait too long, or `.shutDown`.
    public func verify(_ password: String, against storedHash: String?, kinds: HashKinds) throws(HashingPoolError) -> VerifyResult {
        let bytes = Array(password.utf8)
        return try run { [self] in kinds.verify(bytes, against: storedHash) { check(bytes, $0) } }
    }

    /// A snapshot of the queue, busy workers, the mean job and counters.
    public var metrics: Metrics {
        let stats = threads.stats
        return Metrics(
            workers: threads.maxThreads, maxWait: maxWait, meanJobSeconds: meanJobSeconds.withLock { $0 },
            queued: stats.queued, busyWorkers: stats.running,
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
    /// Admitted while fewer than `workers + ⌊maxWait × workers / mean⌋` jobs (at most
    /// `workers + maxQueued`) are queued or running: then the jobs ahead of it that must finish
    /// before it starts, `ahead - workers + 1`, take at most `maxWait` at `workers` at a time.
    @discardableResult
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) throws(HashingPoolError) -> T {
        let slot = ResultSlot<T>()
        let limit = Self.admissionLimit(
            workers: threads.maxThreads, maxWait: maxWait, meanJobSeconds: meanJobSeconds.withLock { $0 })
        do {
            try threads.runAndWait({ [meanJobSeconds, meter] in
                let seconds = meter { slot.value = work() }
                meanJobSeconds.withLock { $0 += (seconds - $0) / 8 }
            }, limit: limit)
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

    /// How many jobs may be queued or running when one more is admitted (see `run`).
    static func admissionLimit(workers: Int, maxWait: Double, meanJobSeconds: Double) -> Int {
        // A mean of 0 (immeasurably quick jobs) gives +infinity, capped below.
        let waiting = maxWait == 0 ? 0 : maxWait * Double(workers) / meanJobSeconds
        return workers + Int(min(Double(maxQueued), waiting.rounded(.down)))
    }

    /// Verifies one hash, telling `onVerify` its kind.
    private func check(_ password: [UInt8], _ hash: String) -> VerifyResult {
        onVerify?(HashKinds.kind(of: hash) ?? "unrecognized")
        return hasher.verify(password, against: hash)
    }

    /// The CPU seconds the calling thread spends in `body`: the pool's `JobMeter`.
    package static func threadCPUSeconds(_ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    private static func onlineCores() -> Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

/// Carries a job's result from the worker to the caller (ordered by the threads' mutex).
private final class ResultSlot<T>: @unchecked Sendable {
    var value: T?
}
