import Foundation
import Glibc
import Threading
import Synchronization
import Testing

/// Jobs all run, never more than `maxThreads` at once, on the warmest idle thread.
@Suite struct WorkerThreadsTests {
    @Test func runsEveryJobWithAtMostMaxThreadsAtOnce() {
        let pool = WorkerThreads(name: "test-workers", maxThreads: 3)
        let ran = Atomic<Int>(0), running = Atomic<Int>(0), mostRunning = Atomic<Int>(0)
        let done = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<250 {
                done.enter()
                pool.run {
                    let now = running.add(1, ordering: .relaxed).newValue
                    _ = mostRunning.max(now, ordering: .relaxed)
                    usleep(50)
                    running.subtract(1, ordering: .relaxed)
                    ran.add(1, ordering: .relaxed)
                    done.leave()
                }
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(ran.load(ordering: .relaxed) == 1_000)
        #expect((1...3).contains(mostRunning.load(ordering: .relaxed)))
        pool.shutDown(waiting: true)
    }

    /// After a burst has started three threads, jobs run one at a time all go to the thread
    /// that finished last, not to each idle thread in turn.
    @Test func aJobGoesToTheMostRecentlyIdleThread() {
        let pool = WorkerThreads(name: "test-workers", maxThreads: 3)
        let release = DispatchSemaphore(value: 0)
        let burst = DispatchGroup()
        for _ in 0..<3 {
            burst.enter()
            pool.run {
                release.wait()
                burst.leave()
            }
        }
        for _ in 0..<3 { release.signal() }
        #expect(burst.wait(timeout: .now() + 30) == .success)
        #expect(eventually { pool.stats.idle == 3 })
        let threads = Lock([pthread_t]())
        for _ in 0..<20 {
            let done = DispatchSemaphore(value: 0)
            pool.run {
                threads.withLock { $0.append(pthread_self()) }
                done.signal()
            }
            done.wait()
            #expect(eventually { pool.stats.idle == 3 })  // it is idle again before the next job
        }
        let seen = threads.withLock { $0 }
        #expect(seen.count == 20)
        #expect(Set(seen.map { UInt($0) }).count == 1, "jobs went to \(Set(seen.map { UInt($0) }).count) threads")
        pool.shutDown(waiting: true)
    }

    /// A pool's owner that shuts it down when it goes (as the session lookups' batcher and the
    /// session-use recorder do) may go on one of the pool's threads, when a job held its last
    /// reference: the thread lets go of the job before it takes the pool's lock again, so the
    /// shutdown does not wait for a lock its own thread holds.
    @Test func aJobHoldingTheLastReferenceToThePoolsOwnerLetsItShutDown() {
        final class Owner: Sendable {
            let pool = WorkerThreads(name: "test-owner", maxThreads: 1)
            deinit { pool.shutDown(waiting: false) }
        }
        let go = DispatchSemaphore(value: 0)
        let pool: WorkerThreads
        do {
            let owner = Owner()
            pool = owner.pool
            owner.pool.run { go.wait(); withExtendedLifetime(owner) {} }
        }
        go.signal()
        // Asked from another thread, so that a deadlocked pool fails the test instead of hanging it.
        let shutDown = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            while !(pool.stats.isShutDown && pool.stats.threads == 0) { usleep(1_000) }
            shutDown.signal()
        }
        #expect(shutDown.wait(timeout: .now() + 60) == .success)
    }

    @Test func shutDownRunsTheQueuedJobsFirst() {
        let pool = WorkerThreads(name: "test-workers", maxThreads: 1)
        let release = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        pool.run { release.wait() }
        for _ in 0..<5 { pool.run { ran.add(1, ordering: .relaxed) } }
        DispatchQueue.global().async {
            _ = eventually { pool.stats.isShutDown }
            release.signal()
        }
        pool.shutDown(waiting: true)
        #expect(ran.load(ordering: .relaxed) == 5)
    }

    /// A thread idle for `idleSeconds` exits; the next job starts a new one and runs.
    @Test func idleThreadsExitAndNewOnesStart() {
        let started = Atomic<Int>(0)
        let pool = WorkerThreads(name: "test-workers", maxThreads: 2, idleSeconds: 0.05) {
            started.add(1, ordering: .relaxed)
        }
        for round in 1...3 {
            let done = DispatchSemaphore(value: 0)
            pool.run { done.signal() }
            #expect(done.wait(timeout: .now() + 30) == .success, "round \(round)")
            #expect(eventually { pool.stats.threads == 0 }, "round \(round)")
            #expect(started.load(ordering: .relaxed) == round)
        }
        pool.shutDown(waiting: true)
    }

    /// `runAndWait` returns after its job, refuses at once beyond its limit, and after shutdown.
    @Test func runAndWaitAdmitsUpToItsLimit() throws {
        let pool = WorkerThreads(name: "test-workers", maxThreads: 1, idleSeconds: .infinity)
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        try pool.runAndWait({ ran.add(1, ordering: .relaxed) }, limit: 1)
        #expect(ran.load(ordering: .relaxed) == 1)
        DispatchQueue.global().async { try? pool.runAndWait({ started.signal(); release.wait() }, limit: 1) }
        started.wait()
        #expect(throws: WorkerThreads.Refusal.full) { try pool.runAndWait({}, limit: 1) }
        #expect(pool.stats.running == 1 && pool.stats.refused == 1)
        release.signal()
        pool.shutDown(waiting: true)
        #expect(throws: WorkerThreads.Refusal.shutDown) { try pool.runAndWait({}, limit: 1) }
        #expect(pool.stats.completed == 2 && pool.stats.threads == 0)
    }
}

/// Polls `condition` until it holds or 30 seconds pass: for states that other threads reach.
func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        usleep(1_000)
    }
    return true
}
