import Threading
import Synchronization

/// A bounded cache of prepared documents keyed by query text, shared by the
/// request threads. When a shard is full it evicts its least recently used entry.
///
/// Split into shards by the key's hash, each behind its own lock: with one lock, every
/// request of every thread serialised on it, and `Synchronization.Mutex` spins before it
/// sleeps, so with dozens of request threads on two cores a fifth of the server's CPU went
/// to spinning there (perf, `{ health }` at 64 connections).
final class DocumentCache<Value: Sendable>: Sendable {
    /// A query text with its hash, computed once per lookup: it picks the shard, and
    /// the shard's dictionary hashes only this integer rather than the whole text again.
    private struct Key: Hashable {
        let text: String
        let hash: Int

        init(_ text: String) {
            self.text = text
            self.hash = text.hashValue
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (left: Key, right: Key) -> Bool { left.hash == right.hash && left.text == right.text }
    }

    private struct State {
        var entries: [Key: (value: Value, tick: UInt64)] = [:]
        var tick: UInt64 = 0
    }

    static var shardCount: Int { 16 }
    private let capacity: Int
    private let shardCapacity: Int

    private final class Box: Sendable {
        let state: Lock<State>
        init() { state = Lock(State()) }
    }
    private let boxes: [Box]

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        // Small caches (tests) keep one shard, so their LRU order stays exact.
        let count = self.capacity >= 4 * Self.shardCount ? Self.shardCount : 1
        self.shardCapacity = (self.capacity + count - 1) / count
        self.boxes = (0..<count).map { _ in Box() }
    }

    private func shard(_ key: Key) -> Box {
        boxes.count == 1 ? boxes[0] : boxes[Int(UInt(bitPattern: key.hash) % UInt(boxes.count))]
    }

    func lookup(_ text: String) -> Value? {
        guard capacity > 0 else { return nil }
        let key = Key(text)
        return shard(key).state.withLock { state in
            // One search for the key, not a search and then an update by key.
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.tick += 1
            state.entries.values[index].tick = state.tick
            return state.entries.values[index].value
        }
    }

    func store(_ text: String, _ value: Value) {
        guard capacity > 0 else { return }
        let key = Key(text)
        let capacity = shardCapacity
        shard(key).state.withLock { state in
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
