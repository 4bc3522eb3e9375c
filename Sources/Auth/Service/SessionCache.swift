import Foundation
import Threading
import Synchronization

/// Recently seen sessions, so `viewer` needs no database round trip for a token it
/// just saw. Entries are dropped when PostgreSQL announces a change (LISTEN/NOTIFY,
/// wired by the server), after a short hard TTL, and all at once whenever the
/// notification connection drops or comes back (`reset`). While not live the cache
/// answers nothing, so correctness never depends on it.
///
/// Entries leave in the order they were stored: each store first drops the entries whose TTL
/// has run out, then the oldest while the cache is full, in O(1) per entry, so the tokens of
/// clients that have gone away do not stay until the cache is full.
public final class SessionCache: Sendable {
    struct Entry {
        var user: User
        var session: Session
        var storedAt: Double
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        var digestsByUser: [String: Set<[UInt8]>] = [:]
        /// Every store in order: (digest, storedAt). A record whose entry has since been
        /// removed or stored again no longer matches its entry's `storedAt` and is skipped.
        var order = FIFO<(digest: [UInt8], storedAt: Double)>()
        /// Bumped by every invalidation: a lookup that started before one must not store.
        var generation: UInt64 = 0
        var live = false
    }

    public let capacity: Int
    /// Seconds an entry may be served without asking the database again.
    public let ttl: Double
    private let state = Lock(State())
    private let clock: @Sendable () -> Double

    public init(capacity: Int = 10_000, ttl: Double = 30, clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.capacity = max(1, capacity)
        self.ttl = ttl
        self.clock = clock
    }

    /// Whether the cache is serving (its invalidation feed is connected).
    public var isLive: Bool { state.withLock { $0.live } }

    public var count: Int { state.withLock { $0.entries.count } }

    /// Drops everything and sets whether to serve from now on.
    public func reset(live: Bool) {
        state.withLock { state in
            state.entries.removeAll()
            state.digestsByUser.removeAll()
            state.order.removeAll()
            state.generation &+= 1
            state.live = live
        }
    }

    /// The cached session of `digest`, if live and fresh.
    func lookup(_ digest: [UInt8]) -> Entry? {
        let now = clock()
        return state.withLock { state in
            guard state.live, let entry = state.entries[digest] else { return nil }
            guard now - entry.storedAt < ttl else {
                Self.remove(digest, from: &state)
                return nil
            }
            return entry
        }
    }

    /// The generation to pass to `store` after reading the database.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Stores what the database said, unless an invalidation happened since `generation`.
    func store(_ digest: [UInt8], user: User, session: Session, ifGeneration generation: UInt64) {
        let now = clock()
        state.withLock { state in
            guard state.live, state.generation == generation else { return }
            dropOldest(&state, now: now, toMake: state.entries[digest] == nil ? 1 : 0)
            state.entries[digest] = Entry(user: user, session: session, storedAt: now)
            state.digestsByUser[user.objectId, default: []].insert(digest)
            state.order.append((digest, now))
        }
    }

    /// Sets the cached session's `lastUsedAt` to `time` (its use is being recorded), so that the
    /// next request does not record it again.
    func noteUse(_ digest: [UInt8], at time: Date) {
        state.withLock { state in state.entries[digest]?.session.lastUsedAt = time }
    }

    /// Drops expired entries, then the oldest until `room` more fit, from the front of `order`.
    private func dropOldest(_ state: inout State, now: Double, toMake room: Int) {
        while let (digest, storedAt) = state.order.first {
            let current = state.entries[digest]?.storedAt == storedAt
            if current && now - storedAt < ttl && state.entries.count + room <= capacity { break }
            if current { Self.remove(digest, from: &state) }
            _ = state.order.popFirst()
        }
    }

    /// Drops the session of `digest`.
    public func invalidate(digest: [UInt8]) {
        state.withLock { state in
            state.generation &+= 1
            Self.remove(digest, from: &state)
        }
    }

    /// Drops the session whose digest is `hex` (a notification's payload).
    public func invalidate(digestHex hex: String) {
        guard let digest = Self.bytes(hex: hex) else {
            reset(live: isLive)  // unreadable: be safe
            return
        }
        invalidate(digest: digest)
    }

    /// Drops every session of the user `userId`.
    public func invalidate(userId: String) {
        state.withLock { state in
            state.generation &+= 1
            for digest in state.digestsByUser[userId] ?? [] { state.entries[digest] = nil }
            state.digestsByUser[userId] = nil
        }
    }

    private static func remove(_ digest: [UInt8], from state: inout State) {
        guard let entry = state.entries.removeValue(forKey: digest) else { return }
        state.digestsByUser[entry.user.objectId]?.remove(digest)
        if state.digestsByUser[entry.user.objectId]?.isEmpty == true { state.digestsByUser[entry.user.objectId] = nil }
    }

    static func bytes(hex: String) -> [UInt8]? {
        let utf8 = Array(hex.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
