import Foundation
import Threading
import Sodium
import Signatures

/// Fixed-window attempt counters held in memory by each instance: the per-address limit, and
/// the per-account limit of log-in names that match no account (a real account's count is kept
/// in PostgreSQL, shared by all instances, and never here). Windows are aligned to multiples of
/// `window` seconds since the epoch, as the database's are, so an unknown name's count starts
/// and ends exactly as an account's would.
///
/// Memory is bounded by construction: a key is a 16-byte digest whatever text it stands for,
/// at most `capacity` windows are held, and the windows are dropped in the order they were
/// opened (a ring of at most twice `capacity` records): each attempt drops a few windows of past
/// periods from its front, and a full limiter drops its oldest window to open a new one. No
/// attempt copies or scans the map, whatever the traffic.
///
/// When full, the oldest window goes rather than a new one being refused: refusing would let one
/// flood make every new address (or every unknown name) limited for everyone. Dropping the oldest
/// gives the flooder back only counts that nothing depends on: an unknown name's window guards no
/// password, and a full address limiter means the flood already comes from `capacity` networks.
public final class RateLimiter: Sendable {
    /// A window's key: the first 16 bytes of the SHA-256 digest of the text it stands for.
    public struct Key: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        public init(_ text: String) {
            let digest = SHA256.digest(text)
            var high: UInt64 = 0, low: UInt64 = 0
            for index in 0..<8 {
                high = high << 8 | UInt64(digest[index])
                low = low << 8 | UInt64(digest[8 + index])
            }
            self.high = high
            self.low = low
        }
    }

    /// 8 bytes, so that a full limiter's map and order take 24 bytes a window each.
    private struct Window {
        /// The period it counts: whole windows from the limiter's first to the one it opened in.
        var period: Int32
        var count: Int32
    }

    private struct State {
        var windows: [Key: Window] = [:]
        /// Every window opened, oldest first. A record whose window has since been dropped or
        /// opened again in a later period no longer matches its window's `period` and is skipped.
        var order = FIFO<(key: Key, period: Int32)>()
    }

    /// The windows' length in seconds.
    public let window: Int
    /// The most windows held at once.
    public let capacity: Int
    private let state: Lock<State>
    private let now: @Sendable () -> Double
    /// The period (whole windows since the epoch) that `Window.period` 0 stands for.
    private let origin: Int

    /// The default capacity: 3/4 of 64Ki, what a map of 64Ki buckets holds before it grows, so a
    /// full limiter takes at most 4.5 MiB (the map's 1.5 MiB, and a ring of 128Ki records).
    public static let defaultCapacity = 49_152

    /// A limiter of `window`-second windows (at least 1), holding at most `capacity` (at least 1).
    public init(window: Int, capacity: Int = RateLimiter.defaultCapacity, now: @escaping @Sendable () -> Double) {
        self.window = max(1, window)
        self.capacity = max(1, capacity)
        self.now = now
        self.origin = Int((now() / Double(self.window)).rounded(.down))
        self.state = Lock(State())
    }

    /// Counts one attempt against each key unless one of them already has `limit` attempts in
    /// the current window (a limit of 0 or less is never reached); returns nil when allowed, or
    /// the seconds until the window ends when refused (a refused attempt counts against none).
    public func attempt(_ counts: [(key: Key, limit: Int)]) -> Int? {
        let time = now()
        let absolute = Int((time / Double(window)).rounded(.down))
        let period = Int32(clamping: absolute - origin)
        return state.withLock { state in
            // More than an attempt can open, so the records of past periods drain.
            dropExpired(&state, before: period, atMost: counts.count + 2)
            for (key, limit) in counts where limit > 0 {
                if let open = state.windows[key], open.period == period, Int(open.count) >= limit {
                    return max(1, Int((Double((absolute + 1) * window) - time).rounded(.up)))
                }
            }
            for (key, limit) in counts where limit > 0 {
                if var open = state.windows[key], open.period == period {
                    open.count += 1
                    state.windows[key] = open
                } else {
                    if state.windows[key] == nil { makeRoom(&state) }
                    state.windows[key] = Window(period: period, count: 1)
                    state.order.append((key, period))
                }
            }
            return nil
        }
    }

    /// Windows held now, and records in their order (at most `capacity` and twice that).
    public var counts: (windows: Int, records: Int) {
        state.withLock { ($0.windows.count, $0.order.count) }
    }

    /// Pops up to `limit` records of periods before `period`, dropping their windows.
    private func dropExpired(_ state: inout State, before period: Int32, atMost limit: Int) {
        var popped = 0
        while popped < limit, let first = state.order.first, first.period < period {
            drop(state.order.popFirst()!, from: &state)
            popped += 1
        }
    }

    /// Drops the oldest windows until one more fits.
    private func makeRoom(_ state: inout State) {
        while state.windows.count >= capacity, let record = state.order.popFirst() {
            drop(record, from: &state)
        }
    }

    private func drop(_ record: (key: Key, period: Int32), from state: inout State) {
        if state.windows[record.key]?.period == record.period { state.windows[record.key] = nil }
    }
}
