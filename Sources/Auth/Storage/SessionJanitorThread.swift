import Foundation
import Synchronization

/// Runs a ``SessionJanitor`` periodically on its own background thread, until ``stop()``.
///
/// Errors (e.g. the database being down) go to `onError` and the next run happens on schedule.
public final class SessionJanitorThread: Sendable {
    private struct State {
        var stopping = false
        var runs = 0
        var running = false
    }

    /// The janitor run each period.
    public let janitor: SessionJanitor
    /// Seconds between runs (the first run is one interval after `start`).
    public let intervalSeconds: Double
    private let onError: @Sendable (any Error) -> Void
    private let onRun: @Sendable (SessionJanitor.Report) -> Void
    private let state = Mutex(State())
    /// Signalled by `stop` to cut a sleep short.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled by the thread as it exits.
    private let finished = DispatchSemaphore(value: 0)
    private let started = Mutex(false)

    /// A runner; call ``start()`` to begin.
    public init(
        janitor: SessionJanitor, intervalSeconds: Double,
        onRun: @escaping @Sendable (SessionJanitor.Report) -> Void = { _ in },
        onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) {
        self.janitor = janitor
        self.intervalSeconds = intervalSeconds
        self.onRun = onRun
        self.onError = onError
    }

    /// Completed runs so far (successful or not).
    public var runCount: Int { state.withLock { $0.runs } }

    /// Whether the background thread is alive: from ``start()`` until it exits, which
    /// ``stop()`` waits for, so once this is false no further run can begin.
    public var isRunning: Bool { state.withLock { $0.running } }

    /// Starts the background thread (once).
    public func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        state.withLock { $0.running = true }
        let thread = Thread { [self] in loop() }
        thread.name = "gatehouse-session-janitor"
        thread.start()
    }

    /// Stops the thread and waits until it has exited (a run in progress finishes first).
    public func stop() {
        let wasStarted = started.withLock { $0 }
        let alreadyStopping = state.withLock { state in
            defer { state.stopping = true }
            return state.stopping
        }
        guard wasStarted, !alreadyStopping else { return }
        wake.signal()
        finished.wait()
    }

    private func loop() {
        defer {
            state.withLock { $0.running = false }
            finished.signal()
        }
        while true {
            _ = wake.wait(timeout: .now() + intervalSeconds)
            if state.withLock({ $0.stopping }) { return }
            do {
                onRun(try janitor.deleteExpired())
            } catch {
                onError(error)
            }
            state.withLock { $0.runs += 1 }
        }
    }
}
