import Foundation

/// A pool of threads for jobs that may block, which grows on demand up to `maxThreads`
/// (a job waits only when that many are busy) and shrinks again: a thread idle for
/// `idleSeconds` exits. The HTTP server runs handed-off requests on one (a burst of
/// log-ins gets a thread each, while quick requests never leave the event threads), the
/// session lookups their batches on another.
public final class WorkerThreads: @unchecked Sendable {
    // @unchecked: every `var` is read and written with `mutex` held.
    public typealias Job = @Sendable () -> Void

    private let mutex = ConditionMutex()
    private let workAvailable = ConditionMutex.Condition()
    private let allExited = ConditionMutex.Condition()
    private var jobs: [Job] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
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

    /// Runs `job` on a pool thread: an idle one, else a new one, else the first to free up.
    public func run(_ job: @escaping Job) {
        let spawn: Bool = mutex.withLock {
            jobs.append(job)
            if idle > jobs.count - head - 1 {
                workAvailable.signal()
                return false
            }
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
            workAvailable.broadcast()
            while waiting && threads > 0 { mutex.wait(allExited) }
        }
    }

    private func work() {
        mutex.lock()
        while true {
            if head < jobs.count {
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
                mutex.unlock()
                job()
                mutex.lock()
                continue
            }
            if shuttingDown { break }
            idle += 1
            let signalled = mutex.wait(workAvailable, seconds: idleSeconds)
            idle -= 1
            if !signalled && head == jobs.count { break }
        }
        threads -= 1
        if threads == 0 { allExited.broadcast() }
        mutex.unlock()
    }
}
