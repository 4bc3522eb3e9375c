import Foundation

/// A background thread that runs `work` every `interval` seconds, and sooner when ``wake()`` asks
/// (a notification said something changed), until ``stop()``. Runs never overlap; wakes that
/// arrive during a run make one more run right after it, not one per wake.
///
/// Owns its thread: ``stop()`` ends it and waits until it has exited.
public final class PeriodicThread: Sendable {
    private struct State {
        var started = false
        var stopping = false
        var exited = false
        var woken = false
        var runs = 0
    }

    /// Seconds between runs when nothing wakes the thread.
    public let interval: Double
    private let name: String
    private let work: @Sendable () -> Void
    private let mutex = ConditionMutex()
    private let changed = ConditionMutex.Condition()
    // Guarded by `mutex`.
    nonisolated(unsafe) private var state = State()

    /// A thread named `name` that runs `work` every `interval` seconds (the first run one interval
    /// after ``start()``, or at the first ``wake()``); call ``start()`` to begin.
    public init(name: String, interval: Double, work: @escaping @Sendable () -> Void) {
        self.name = name
        self.interval = interval
        self.work = work
    }

    /// Runs completed so far: tests wait for a count, not for time.
    public var runCount: Int { mutex.withLock { state.runs } }

    /// Starts the thread (once).
    public func start() {
        let first = mutex.withLock {
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    /// Asks for a run now (after the one in progress, if any).
    public func wake() {
        mutex.withLock {
            state.woken = true
            changed.broadcast()
        }
    }

    /// Ends the thread and waits until it has exited (a run in progress finishes first).
    public func stop() {
        mutex.withLock {
            guard state.started else { return }
            state.stopping = true
            changed.broadcast()
            while !state.exited { mutex.wait(changed) }
        }
    }

    private func loop() {
        while true {
            let stop = mutex.withLock { () -> Bool in
                var remaining = interval
                let deadline = monotonicSeconds() + interval
                while !state.woken && !state.stopping && remaining > 0 {
                    _ = mutex.wait(changed, seconds: remaining)
                    remaining = deadline - monotonicSeconds()
                }
                state.woken = false
                return state.stopping
            }
            if stop { break }
            work()
            mutex.withLock {
                state.runs += 1
                changed.broadcast()
            }
        }
        mutex.withLock {
            state.exited = true
            changed.broadcast()
        }
    }

    private func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
