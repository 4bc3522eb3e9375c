import Foundation

/// A pool of threads for jobs that may block, which grows on demand up to `maxThreads`
/// (a job waits only when that many are busy) and shrinks again: a thread idle for
/// `idleSeconds` exits. The HTTP server runs handed-off requests on one (a burst of
/// log-ins gets a thread each, while quick requests never leave the event threads), the
/// session lookups their batches on another.
public final class WorkerThreads: @unchecked Sendable {
    // @unchecked: every `var` (here and in `Sleeper`) is read and written with `mutex` held.
    public typealias Job = @Sendable () -> Void

    /// An idle thread: the condition it waits on, and the job handed to it.
    private final class Sleeper {
        let wake = ConditionMutex.Condition()
        var job: Job?
    }

    private let mutex = ConditionMutex()
    private let allExited = ConditionMutex.Condition()
    private var jobs: [Job] = []
    private var head = 0
    private var threads = 0
    /// Idle threads, the most recently idle last. A job goes to the thread that finished one
    /// last (its stack and caches are warm), so under light load one thread does the work and
    /// the others idle out. With one condition for all, `signal` woke them in turn: two session
    /// lookup threads took alternate batches, each waking cold.
    private var sleepers: [Sleeper] = []
    private var shuttingDown = false
    public let maxThreads: Int
    public let idleSeconds: Double
    private let name: String

    /// `name` names the threads (at most 15 bytes: Linux's limit).
    public init(name: String, maxThreads: Int, idleSeconds: Double = 30) {
        precondition(maxThreads >= 1 && name.utf8.count <= 15)
        self.name = name
        self.maxThreads = maxThreads
        self.idleSeconds = idleSeconds
    }

    /// Runs `job` on a pool thread: the most recently idle one, else a new one, else the first
    /// to free up.
    public func run(_ job: @escaping Job) {
        let spawn: Bool = mutex.withLock {
            if let sleeper = sleepers.popLast() {
                sleeper.job = job
                sleeper.wake.signal()
                return false
            }
            jobs.append(job)
            guard threads < maxThreads else { return false }
            threads += 1
            return true
        }
        if spawn {
            Thread { [self] in
                Thread.current.name = name  // set from the thread itself: that names the OS thread
                work()
            }.start()
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

    private func work() {
        let sleeper = Sleeper()
        mutex.lock()
        while true {
            let job: Job
            if head < jobs.count {
                job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
            } else if shuttingDown {
                break
            } else {
                sleepers.append(sleeper)
                let signalled = mutex.wait(sleeper.wake, seconds: idleSeconds)
                guard let handed = sleeper.job else {
                    // Spurious wake-up, time-out or shutdown: `run` hands jobs only to threads it
                    // takes off `sleepers`, so this one may still be on it.
                    sleepers.removeAll { $0 === sleeper }
                    if !signalled && !shuttingDown && head == jobs.count { break }
                    continue
                }
                sleeper.job = nil
                job = handed
            }
            mutex.unlock()
            job()
            mutex.lock()
        }
        threads -= 1
        if threads == 0 { allExited.broadcast() }
        mutex.unlock()
    }
}
