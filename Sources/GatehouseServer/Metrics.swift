import Glibc
import Threading
import Synchronization

/// Request counters and a latency histogram, exposed in Prometheus text format
/// (exposition format 0.0.4) together with gauges read at scrape time.
public final class Metrics: Sendable {
    /// Latency bucket upper bounds in seconds.
    static let buckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Distinct operation names kept as labels (the contract's bound); later ones count as "other".
    static let maxOperations = 50

    private struct State {
        var requests: [RequestKey: Int] = [:]
        /// The last key counted and its position in `requests` (nil once a key is added,
        /// which may move the others): consecutive requests mostly repeat it, and comparing
        /// it costs less than hashing.
        var recent: (key: RequestKey, index: Dictionary<RequestKey, Int>.Index)? = nil
        /// Requests by the first bucket that holds their duration (the cumulative counts
        /// are summed at render time); the last counts those above every bound.
        var bucketCounts = [Int](repeating: 0, count: Metrics.buckets.count + 1)
        var durationCount = 0
        var durationSum = 0.0
        var operations: Set<String> = []
    }

    private struct RequestKey: Hashable {
        var operation: String
        var status: Int
    }

    /// Counters striped by thread: every request records here, and one shared lock made the
    /// request threads queue (and spin) on it; `render` adds the stripes up.
    private final class Stripe: Sendable {
        let state = Lock(State())
    }
    private static let stripeCount = 16
    private let stripes = (0..<Metrics.stripeCount).map { _ in Stripe() }
    /// Operation names admitted as labels (shared, read-mostly: checked before taking it).
    private let operations = Lock(Set<String>())

    public init() {}

    private var stripe: Stripe {
        let id = UInt64(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))))
        return stripes[Int((id &* 0x9E37_79B9_7F4A_7C15) >> 60) % Self.stripeCount]
    }

    /// Records one request: its operation (nil for non-GraphQL paths), status and duration.
    public func record(operation: String?, status: Int, seconds: Double) {
        stripe.state.withLock { state in
            let key = RequestKey(operation: operation ?? "none", status: status)
            if let recent = state.recent, recent.key == key {
                state.requests.values[recent.index] += 1
            } else if let index = state.requests.index(forKey: key) {
                // Seen before on this stripe (nearly every request): one hash lookup.
                state.requests.values[index] += 1
                state.recent = (key, index)
            } else {
                state.recent = nil
                var name = key.operation
                if !state.operations.contains(name) {
                    // First time on this stripe: admit it globally (at most maxOperations names).
                    let admitted = operations.withLock { names in
                        if names.contains(name) { return true }
                        if names.count < Self.maxOperations { names.insert(name); return true }
                        return false
                    }
                    if admitted { state.operations.insert(name) } else { name = "other" }
                }
                state.requests[RequestKey(operation: name, status: status), default: 0] += 1
            }
            state.bucketCounts[Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count] += 1
            state.durationCount += 1
            state.durationSum += seconds
        }
    }

    /// The exposition text; `gauges` are (name, help, labels, value) read now (those named
    /// `…_total` are typed as counters).
    public func render(gauges: [(name: String, help: String, labels: String, value: Double)]) -> String {
        var snapshot = State()
        for stripe in stripes {
            let part = stripe.state.withLock { $0 }
            for (key, count) in part.requests { snapshot.requests[key, default: 0] += count }
            for index in snapshot.bucketCounts.indices { snapshot.bucketCounts[index] += part.bucketCounts[index] }
            snapshot.durationCount += part.durationCount
            snapshot.durationSum += part.durationSum
        }
        var out = "# HELP gatehouse_requests_total HTTP requests by GraphQL operation and status.\n"
        out += "# TYPE gatehouse_requests_total counter\n"
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.operation, $0.key.status) < ($1.key.operation, $1.key.status) }) {
            out += "gatehouse_requests_total{operation=\"\(Self.escape(key.operation))\",status=\"\(key.status)\"} \(count)\n"
        }
        out += "# HELP gatehouse_request_duration_seconds HTTP request latency.\n"
        out += "# TYPE gatehouse_request_duration_seconds histogram\n"
        var cumulative = 0
        for (index, bound) in Self.buckets.enumerated() {
            cumulative += snapshot.bucketCounts[index]
            out += "gatehouse_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "gatehouse_request_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.durationCount)\n"
        out += "gatehouse_request_duration_seconds_sum \(snapshot.durationSum)\n"
        out += "gatehouse_request_duration_seconds_count \(snapshot.durationCount)\n"
        var described: Set<String> = []
        for gauge in gauges {
            if !described.contains(gauge.name) {
                described.insert(gauge.name)
                out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) \(gauge.name.hasSuffix("_total") ? "counter" : "gauge")\n"
            }
            out += gauge.name + (gauge.labels.isEmpty ? "" : "{\(gauge.labels)}") + " \(Self.number(gauge.value))\n"
        }
        return out
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Label values escape backslash, quote and newline.
    static func escape(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }
}
