import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
@testable import Sodium

/// The pool at minimum cost; blocking is made deterministic with semaphores, never with sleeps
/// or timing assertions.
@Suite struct PasswordHashingPoolTests {
    let hasher = try! PasswordHasher(cost: .minimum)

    @Test func hashAndVerifyThroughThePool() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 2)
        defer { pool.shutdown() }
        let hash = try pool.hash("pw")
        #expect(try pool.verify("pw", against: hash) == .valid(needsRehash: false))
        #expect(try pool.verify("px", against: hash) == .invalid)
        #expect(try pool.verify("pw", against: "nonsense") == .unrecognizedHash)
        #expect(try pool.verify("pw", against: nil, kinds: HashKinds(current: hasher.cost)) == .invalid)
        #expect(pool.metrics.completed == 5)
    }

    @Test func defaults() {
        let pool = PasswordHashingPool(hasher: hasher)
        defer { pool.shutdown() }
        let metrics = pool.metrics
        #expect(metrics.workers >= 1)
        #expect(metrics.maxWait == 5)
        #expect(metrics.meanJobSeconds > 0, "measured at start")
        #expect(metrics.queued == 0 && metrics.busyWorkers == 0 && !metrics.isShutDown)
    }

    /// Workers run with the short time slice where the kernel has custom slices (6.12+), at the
    /// process's own niceness.
    @Test func workersHaveTheShortSliceAndTheProcesssNiceness() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 1)
        defer { pool.shutdown() }
        errno = 0
        let processNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let (sched, nice) = try pool.run { () -> (String?, Int32) in
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            return (try? String(contentsOfFile: "/proc/thread-self/sched", encoding: .utf8), nice)
        }
        #expect(nice == processNice)
        let slice = sched?.split(separator: "\n").first { $0.hasPrefix("se.slice") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
        if let slice, kernelHasCustomSlices() {
            #expect(UInt64(slice) == PasswordHashingPool.workerSliceNanoseconds)
        }
    }

    private func kernelHasCustomSlices() -> Bool {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let parts = release.split(separator: ".").prefix(2).compactMap { Int($0.prefix { $0.isNumber }) }
        return parts.count == 2 && (parts[0], parts[1]) >= (6, 12)
    }

    @Test func concurrentHashingFromManyThreads() throws {
        let clients = 16, perClient = 5
        // Minimum-cost jobs are quick: every client is admitted.
        let pool = PasswordHashingPool(hasher: hasher, workers: 2)
        defer { pool.shutdown() }
        let failures = Mutex(0)
        let threads = (0..<clients).map { client in
            spawn {
                for round in 0..<perClient {
                    let password = "client-\(client)-round-\(round)"
                    do {
                        let hash = try pool.hash(password)
                        let ok = try pool.verify(password, against: hash) == .valid(needsRehash: false)
                            && pool.verify(password + "!", against: hash) == .invalid
                        if !ok { failures.withLock { $0 += 1 } }
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
            }
        }
        threads.forEach { $0.wait() }
        #expect(failures.withLock { $0 } == 0)
        let metrics = pool.metrics
        #expect(metrics.completed == UInt64(clients * perClient * 3))
        #expect(metrics.rejected == 0)
        #expect(metrics.queued == 0 && metrics.busyWorkers == 0)
    }

    /// Admitted while the jobs ahead would finish within the budget: `workers + maxWait ×
    /// workers / mean` queued or running, at most `workers + maxQueued`.
    @Test(arguments: [
        (1, 5.0, 0.1, 1 + 50), (2, 5.0, 0.1, 2 + 100), (2, 3.0, 1.0, 2 + 6), (2, 0.5, 1.0, 2 + 1), (2, 0.4, 1.0, 2),
        (4, 0.0, 0.1, 4), (2, 0.0, 0.0, 2), (2, 5.0, 0.0, 2 + PasswordHashingPool.maxQueued), (2, 3600.0, 0.1, 2 + PasswordHashingPool.maxQueued),
    ])
    func admissionLimit(_ workers: Int, _ maxWait: Double, _ mean: Double, _ limit: Int) {
        #expect(PasswordHashingPool.admissionLimit(workers: workers, maxWait: maxWait, meanJobSeconds: mean) == limit)
    }

    /// A flood past the budget is refused at once: the calls beyond it throw `.busy` while every
    /// worker is still held and the admitted jobs still wait.
    @Test func jobsBeyondTheBudgetAreRefusedAtOnce() throws {
        // 2 workers, 1 s per job, 3 s budget: 2 running and 6 waiting are admitted.
        let pool = PasswordHashingPool(hasher: hasher, workers: 2, maxWait: 3, meter: costs(1))
        defer { pool.shutdown() }
        let release = DispatchSemaphore(value: 0)
        let admitted = (0..<8).map { _ in spawn { try? pool.run { release.wait() } } }
        while pool.metrics.busyWorkers < 2 || pool.metrics.queued < 6 { sched_yieldForTest() }

        #expect(throws: HashingPoolError.busy) { try pool.hash("pw") }
        #expect(throws: HashingPoolError.busy) { try pool.verify("pw", against: "$2b$") }
        #expect(throws: HashingPoolError.busy) { try pool.verify("pw", against: nil, kinds: HashKinds(current: hasher.cost)) }
        let metrics = pool.metrics
        #expect(metrics.rejected == 3)
        #expect(metrics.busyWorkers == 2 && metrics.queued == 6 && metrics.completed == 0)

        for _ in admitted { release.signal() }
        admitted.forEach { $0.wait() }
        #expect(pool.metrics.completed == 8)
        // With the queue empty, work is accepted again.
        #expect(try pool.verify("pw", against: pool.hash("pw")).isValid)
    }

    /// The mean follows the measured costs: a pool that expected 100 s jobs admits none to
    /// wait, and after quick jobs it admits waiting ones again.
    @Test func theMeanFollowsMeasuredJobs() throws {
        let cost = Mutex(100.0)
        let pool = PasswordHashingPool(hasher: hasher, workers: 1, maxWait: 5, meter: { job in
            job()
            return cost.withLock { $0 }
        })
        defer { pool.shutdown() }
        #expect(pool.metrics.meanJobSeconds == 100)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        var holder = spawn { try? pool.run { started.signal(); release.wait() } }
        started.wait()
        #expect(throws: HashingPoolError.busy) { try pool.hash("pw") }
        release.signal()
        holder.wait()

        // Each job moves the mean an eighth of the way: 0.01 + (100 - 0.01) × (7/8)^80 < 0.02.
        cost.withLock { $0 = 0.01 }
        for _ in 0..<80 { _ = try pool.hash("pw") }
        #expect(pool.metrics.meanJobSeconds < 0.02)
        holder = spawn { try? pool.run { started.signal(); release.wait() } }
        started.wait()
        let waiter = spawn { _ = try? pool.hash("queued") }
        while pool.metrics.queued < 1 { sched_yieldForTest() }
        release.signal()
        holder.wait()
        waiter.wait()
        #expect(pool.metrics.rejected == 1)
    }

    /// A burst that arrives at once is admitted before any of its jobs has finished, on the
    /// start-up estimate alone. The first hash of a process can cost several times the next ones
    /// (on a fresh virtual machine its 64 MiB are memory the host has never handed out): taken
    /// alone, a first hash of 0.23 s CPU where the others cost 0.067 s admits 2 + ⌊5 × 2 / 0.23⌋ =
    /// 45 of 50 jobs, the 5 refusals of a suite run on a fresh clone.
    @Test func aSlowFirstHashDoesNotShrinkTheFirstBurst() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 2, maxWait: 5, meter: costs(0.23, 0.067))
        defer { pool.shutdown() }
        #expect(pool.metrics.meanJobSeconds == 0.067)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holders = (0..<2).map { _ in spawn { try? pool.run { started.signal(); release.wait() } } }
        started.wait()
        started.wait()
        let burst = (0..<48).map { _ in spawn { _ = try? pool.hash("pw") } }
        // Each of the 48 is queued or refused, and no job finishes while the two are held.
        while pool.metrics.queued + Int(pool.metrics.rejected) < 48 { sched_yieldForTest() }
        let metrics = pool.metrics
        #expect(metrics.rejected == 0)
        #expect(metrics.queued == 48 && metrics.busyWorkers == 2)
        release.signal()
        release.signal()
        (holders + burst).forEach { $0.wait() }
        #expect(pool.metrics.completed == 50)
    }

    @Test func zeroMaxWaitRunsOnlyOnAFreeWorker() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 2, maxWait: 0)
        defer { pool.shutdown() }
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = spawn { try? pool.run { started.signal(); release.wait() } }
        started.wait()
        // One worker is free: no wait, so admitted.
        let second = spawn { try? pool.run { started.signal(); release.wait() } }
        started.wait()
        #expect(throws: HashingPoolError.busy) { try pool.hash("pw") }
        release.signal()
        release.signal()
        first.wait()
        second.wait()
        _ = try pool.hash("pw")
    }

    @Test func shutdownFinishesQueuedJobsThenRefuses() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 1)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let queuedResult = Mutex<Result<String, HashingPoolError>?>(nil)

        let holder = spawn { try? pool.run { started.signal(); release.wait() } }
        started.wait()
        let waiter = spawn {
            let result = Result { () throws(HashingPoolError) -> String in try pool.hash("queued") }
            queuedResult.withLock { $0 = result }
        }
        while pool.metrics.queued < 1 { sched_yieldForTest() }

        let stopper = spawn { pool.shutdown() }
        while !pool.metrics.isShutDown { sched_yieldForTest() }
        #expect(throws: HashingPoolError.shutDown) { try pool.hash("late") }

        release.signal()
        stopper.wait()  // returns only after the workers have drained the queue and exited
        holder.wait()
        waiter.wait()
        let hash = try #require(queuedResult.withLock { $0 }).get()
        #expect(hasher.verify("queued", against: hash).isValid)
        #expect(pool.metrics.queued == 0 && pool.metrics.busyWorkers == 0)
        pool.shutdown()  // idempotent
        #expect(throws: HashingPoolError.shutDown) { try pool.verify("x", against: hash) }
    }
}

/// A `JobMeter` that runs each job and reports `seconds...` in turn, then the last one for
/// every later job (the first ones measure the pool's start-up hashes).
private func costs(_ seconds: Double...) -> PasswordHashingPool.JobMeter {
    let remaining = Mutex(seconds[...])
    return { job in
        job()
        return remaining.withLock { $0.count > 1 ? $0.removeFirst() : $0.first! }
    }
}

/// Runs `body` on a new thread; `wait()` on the result returns once it has finished.
private func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchGroup {
    let finished = DispatchGroup()
    finished.enter()
    Thread {
        body()
        finished.leave()
    }.start()
    return finished
}

/// Gives up the processor while polling pool metrics for a state another thread will reach.
func sched_yieldForTest() {
    // Not a timing assumption: the loop waits for as long as it takes.
    _ = sched_yield()
}
