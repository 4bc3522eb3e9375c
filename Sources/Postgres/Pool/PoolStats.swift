/// A snapshot of a ``Pool``'s counts, for metrics.
public struct PoolStats: Sendable, Hashable, CustomStringConvertible {
    /// Most connections the pool opens.
    public var capacity: Int
    /// Connections lent to callers.
    public var inUse: Int
    /// Open connections waiting to be lent.
    public var idle: Int
    /// Connections being opened.
    public var connecting: Int
    /// Callers blocked waiting for a connection.
    public var waiting: Int

    /// Creates a snapshot.
    public init(capacity: Int, inUse: Int, idle: Int, connecting: Int, waiting: Int) {
        self.capacity = capacity
        self.inUse = inUse
        self.idle = idle
        self.connecting = connecting
        self.waiting = waiting
    }

    /// `in use 3, idle 2, connecting 0, waiting 0 (capacity 5)`.
    public var description: String {
        "in use \(inUse), idle \(idle), connecting \(connecting), waiting \(waiting) (capacity \(capacity))"
    }
}
