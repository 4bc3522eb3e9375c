import Foundation
import Threading

/// Makes answers that did less work take as long as answers that did more, where the difference
/// would tell an attacker something (resetPassword: whether an account has the address).
///
/// It keeps the durations of the latest answers that did the full work, and every answer, full or
/// not, waits until it has taken as long as the 90th percentile of them: nine in ten answers of
/// either kind then end at that one time, whatever the database's speed today, with no constant
/// to tune. Until a full answer has been seen, nothing waits.
final class TimingEqualizer: Sendable {
    private struct Samples {
        var durations: [Double] = []
        var next = 0
    }

    private let samples = Lock(Samples())
    private let capacity: Int
    /// The longest wait, so that slow outliers cannot hold threads for long.
    private let maximumWait: Double
    private let waitUntil: @Sendable (ContinuousClock.Instant) -> Void

    init(
        capacity: Int = 64, maximumWait: Double = 1,
        waitUntil: @escaping @Sendable (ContinuousClock.Instant) -> Void = TimingEqualizer.waitUntil
    ) {
        self.capacity = capacity
        self.maximumWait = maximumWait
        self.waitUntil = waitUntil
    }

    /// Ends an answer that started at `start` (`fullWork`: one that did the work the others
    /// must not be told apart from): waits until it has taken the usual time of a full answer.
    func finish(since start: ContinuousClock.Instant, fullWork: Bool) {
        let elapsed = Self.seconds(ContinuousClock.now - start)
        let target = samples.withLock { samples -> Double? in
            if fullWork {
                if samples.durations.count < capacity {
                    samples.durations.append(elapsed)
                } else {
                    samples.durations[samples.next] = elapsed
                    samples.next = (samples.next + 1) % capacity
                }
            }
            guard !samples.durations.isEmpty else { return nil }
            let sorted = samples.durations.sorted()
            return sorted[(sorted.count - 1) * 9 / 10]
        }
        guard let target else { return }
        let wait = min(target - elapsed, maximumWait)
        if wait > 0 { waitUntil(.now + .microseconds(Int64(wait * 1e6))) }
    }

    /// Sleeps until shortly before `deadline` and spins the rest: a sleep overshoots by tens of
    /// microseconds, as much as the differences this hides.
    static func waitUntil(_ deadline: ContinuousClock.Instant) {
        let early = deadline - .microseconds(200)
        let now = ContinuousClock.now
        if early > now { Thread.sleep(forTimeInterval: seconds(early - now)) }
        while ContinuousClock.now < deadline {}
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
