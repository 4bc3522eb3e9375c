import Foundation
import Threading

/// Writes sessions' `lastUsedAt` off the requests' path: ``record(objectId:at:)`` only notes the
/// use; one thread writes what has been noted, each session once however often it was noted, up to
/// ``maxBatchSize`` sessions per statement. Callers note a session only when its `lastUsedAt` is
/// older than the resolution, so a session costs at most one write per resolution.
final class SessionUseRecorder: Sendable {
    typealias Write = @Sendable ([(objectId: String, at: Date)]) throws -> Int

    /// What has been done, for tests (which wait for a state, not for time).
    struct Stats: Sendable, Hashable {
        /// Uses noted and not yet written.
        var pending: Int
        /// Whether the writing thread has work (pending or being written).
        var busy: Bool
        /// Statements run.
        var statements: Int
        /// Session rows they wrote.
        var rowsWritten: Int
    }

    private struct State {
        /// The latest noted use of each session not yet written.
        var pending: [String: Date] = [:]
        var busy = false
        var statements = 0
        var rowsWritten = 0
    }

    static let maxBatchSize = 500
    private let state = Lock(State())
    private let thread = WorkerThreads(name: "gh-session-use", maxThreads: 1)
    private let write: Write
    private let log: @Sendable (String) -> Void

    /// `write` stores a batch of uses and returns the rows it changed; its failures go to `log`
    /// (the uses are dropped: the next use after the resolution notes them again).
    init(write: @escaping Write, log: @escaping @Sendable (String) -> Void) {
        self.write = write
        self.log = log
    }

    deinit {
        thread.shutDown(waiting: false)
    }

    /// Notes that the session `objectId` was used at `time`; written soon on the recorder's thread.
    func record(objectId: String, at time: Date) {
        let start = state.withLock { state in
            state.pending[objectId] = max(time, state.pending[objectId] ?? time)
            let idle = !state.busy
            state.busy = true
            return idle
        }
        if start { thread.run { [self] in drain() } }
    }

    var stats: Stats {
        state.withLock { Stats(pending: $0.pending.count, busy: $0.busy, statements: $0.statements, rowsWritten: $0.rowsWritten) }
    }

    /// Writes batches until nothing is pending.
    private func drain() {
        while true {
            let batch: [(objectId: String, at: Date)] = state.withLock { state in
                let batch = state.pending.prefix(Self.maxBatchSize).map { (objectId: $0.key, at: $0.value) }
                for use in batch { state.pending[use.objectId] = nil }
                if batch.isEmpty { state.busy = false }
                return batch
            }
            if batch.isEmpty { return }
            do {
                let rows = try write(batch)
                state.withLock { state in
                    state.statements += 1
                    state.rowsWritten += rows
                }
            } catch {
                log("session use not recorded: \(error)")
            }
        }
    }
}
