import Synchronization

/// A bounded cache of prepared documents keyed by query text, shared by the
/// request threads. When full it evicts the least recently used entry.
final class DocumentCache<Value: Sendable>: Sendable {
    private struct State {
        var entries: [String: (value: Value, tick: UInt64)] = [:]
        var tick: UInt64 = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    func lookup(_ key: String) -> Value? {
        guard capacity > 0 else { return nil }
        return state.withLock { state in
            // One hash of the key (long for introspection queries), not two.
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.tick += 1
            state.entries.values[index].tick = state.tick
            return state.entries.values[index].value
        }
    }

    func store(_ key: String, _ value: Value) {
        guard capacity > 0 else { return }
        state.withLock { state in
            state.tick += 1
            if state.entries[key] == nil && state.entries.count >= capacity {
                // Evict the least recently used entry: O(n), rare once the working set fits.
                if let oldest = state.entries.min(by: { $0.value.tick < $1.value.tick })?.key {
                    state.entries[oldest] = nil
                }
            }
            state.entries[key] = (value, state.tick)
        }
    }
}
