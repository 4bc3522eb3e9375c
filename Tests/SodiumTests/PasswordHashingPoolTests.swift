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
        try pool.dummyVerify("pw")
        #expect(pool.metrics.completed == 5)
    }

    @Test func defaults() {
        let pool = PasswordHashingPool(hasher: hasher)
        defer { pool.shutdown() }
        let metrics = pool.metrics
        #expect(metrics.workers >= 1)
        #expect(metrics.queueDepth == 8 * metrics.workers)
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
        // Room for every client, so none is refused.
        let pool = PasswordHashingPool(hasher: hasher, workers: 2, queueDepth: clients)
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

    @Test func fullQueueThrowsBusyAtOnce() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 1, queueDepth: 1)
        defer { pool.shutdown() }
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let queuedRan = Mutex(false)

        // Job 1 holds the only worker until we release it.
        let holder = spawn {
            try? pool.run { started.signal(); release.wait() }
        }
        started.wait()
        // Job 2 fills the queue (depth 1) and waits behind job 1.
        let waiter = spawn {
            try? pool.run { queuedRan.withLock { $0 = true } }
        }
        while pool.metrics.queued < 1 { sched_yieldForTest() }
        #expect(pool.metrics.busyWorkers == 1)

        // Job 3: no worker and no room. It must be refused, not queued.
        #expect(throws: HashingPoolError.busy) { try pool.hash("pw") }
        #expect(throws: HashingPoolError.busy) { try pool.verify("pw", against: "$2b$") }
        #expect(throws: HashingPoolError.busy) { try pool.dummyVerify("pw") }
        #expect(pool.metrics.rejected == 3)

        release.signal()
        holder.wait()
        waiter.wait()
        #expect(queuedRan.withLock { $0 })
        // With room again, work is accepted.
        #expect(try pool.verify("pw", against: pool.hash("pw")).isValid)
    }

    @Test func zeroQueueDepthRunsOnlyOnAFreeWorker() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 1, queueDepth: 0)
        defer { pool.shutdown() }
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = spawn { try? pool.run { started.signal(); release.wait() } }
        started.wait()
        #expect(throws: HashingPoolError.busy) { try pool.hash("pw") }
        release.signal()
        holder.wait()
        _ = try pool.hash("pw")
    }

    @Test func shutdownFinishesQueuedJobsThenRefuses() throws {
        let pool = PasswordHashingPool(hasher: hasher, workers: 1, queueDepth: 1)
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
