import Locking
/// The shared state of a `PasswordHashingPool`: the queue, the counters and the workers' loop.
///
/// Workers hold the core, not the pool, so the pool's `deinit` can shut them down.
/// @unchecked Sendable: every `var` below is read and written only with `mutex` held.
final class PoolCore: @unchecked Sendable {
    /// One unit of work and the condition its caller waits on.
    final class Job: @unchecked Sendable {
        // @unchecked: `done` is guarded by the pool's mutex; `body` is immutable.
        let body: @Sendable () -> Void
        let finished = ConditionMutex.Condition()
        var done = false
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    let workerCount: Int
    let queueDepth: Int

    private let mutex = ConditionMutex()
    private let workAvailable = ConditionMutex.Condition()

    // Guarded by `mutex`.
    private var pending: [Job] = []
    private var pendingHead = 0
    private var busy = 0
    private var accepting = true
    private var completed: UInt64 = 0
    private var rejected: UInt64 = 0

    init(workerCount: Int, queueDepth: Int) {
        self.workerCount = workerCount
        self.queueDepth = queueDepth
    }

    /// Queues `job` and blocks until a worker has run it, or throws at once if there is no room.
    ///
    /// Room means fewer than `workerCount + queueDepth` jobs queued or running, so at most
    /// `workerCount` hashes hold memory at a time and at most `queueDepth` callers wait for a worker.
    func submitAndWait(_ job: Job) throws(HashingPoolError) {
        mutex.lock()
        defer { mutex.unlock() }
        guard accepting else { throw .shutDown }
        guard queuedCount + busy < workerCount + queueDepth else {
            rejected += 1
            throw .busy
        }
        pending.append(job)
        workAvailable.signal()
        while !job.done {
            mutex.wait(job.finished)
        }
    }

    /// The loop of one worker thread: runs jobs until the pool stops accepting and the queue is empty.
    func workerLoop() {
        mutex.lock()
        while true {
            while queuedCount == 0 && accepting {
                mutex.wait(workAvailable)
            }
            guard queuedCount > 0 else { break }  // shut down and drained
            let job = pending[pendingHead]
            pendingHead += 1
            if pendingHead == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingHead = 0
            }
            busy += 1
            mutex.unlock()

            job.body()

            mutex.lock()
            busy -= 1
            completed += 1
            job.done = true
            job.finished.signal()
        }
        mutex.unlock()
    }

    /// Refuses new jobs from now on and wakes idle workers so they exit once the queue is drained.
    func stopAccepting() {
        mutex.withLock {
            accepting = false
            workAvailable.broadcast()
        }
    }

    /// A consistent snapshot of the counters.
    func metrics() -> PasswordHashingPool.Metrics {
        mutex.withLock {
            PasswordHashingPool.Metrics(
                workers: workerCount, queueDepth: queueDepth,
                queued: queuedCount, busyWorkers: busy,
                completed: completed, rejected: rejected, isShutDown: !accepting)
        }
    }

    private var queuedCount: Int { pending.count - pendingHead }
}
