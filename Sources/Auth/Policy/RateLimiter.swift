import Foundation
import Locking
import Synchronization

/// Fixed-window attempt counters by key (a client address or an account), held in
/// memory by each instance. Bounded: expired windows are pruned, and when `capacity`
/// keys are live the oldest window is dropped.
public final class RateLimiter: Sendable {
    private struct Window {
        var start: Double
        var length: Double
        var count: Int
    }

    private struct State {
        var windows: [String: Window] = [:]
        var lastPrune: Double = 0
    }

    private let capacity: Int
    private let state = Lock(State())
    private let now: @Sendable () -> Double

    public init(capacity: Int = 100_000, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.capacity = capacity
        self.now = now
    }

    /// Counts one attempt for `key`; returns nil when allowed, or the seconds until
    /// the window ends when `limit` attempts were already made in it.
    public func attempt(_ key: String, limit: Int, window: Int) -> Int? {
        guard limit > 0, window > 0 else { return nil }
        let time = now()
        return state.withLock { state in
            if time - state.lastPrune > 10 || state.windows.count >= capacity {
                prune(&state, time: time)
            }
            var entry = state.windows[key] ?? Window(start: time, length: Double(window), count: 0)
            if time - entry.start >= entry.length { entry = Window(start: time, length: Double(window), count: 0) }
            guard entry.count < limit else {
                return max(1, Int((entry.start + entry.length - time).rounded(.up)))
            }
            entry.count += 1
            state.windows[key] = entry
            return nil
        }
    }

    private func prune(_ state: inout State, time: Double) {
        state.lastPrune = time
        state.windows = state.windows.filter { time - $0.value.start < $0.value.length }
        if state.windows.count >= capacity, let oldest = state.windows.min(by: { $0.value.start < $1.value.start })?.key {
            state.windows[oldest] = nil
        }
    }
}
