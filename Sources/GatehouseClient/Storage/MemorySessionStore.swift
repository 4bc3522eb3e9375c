import Foundation

/// A ``SessionStore`` in memory: nothing survives the process. For tests and previews.
public final class MemorySessionStore: SessionStore, @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var items: [SessionStoreKey: Data] = [:]

    /// Creates an empty store.
    public init() {}

    /// The stored bytes of `key`.
    public func read(_ key: SessionStoreKey) -> Data? {
        lock.lock()
        defer { lock.unlock() }
        return items[key]
    }

    /// Stores `data` under `key`.
    public func write(_ data: Data, for key: SessionStoreKey) {
        lock.lock()
        defer { lock.unlock() }
        items[key] = data
    }

    /// Removes `key`.
    public func remove(_ key: SessionStoreKey) {
        lock.lock()
        defer { lock.unlock() }
        items[key] = nil
    }
}
