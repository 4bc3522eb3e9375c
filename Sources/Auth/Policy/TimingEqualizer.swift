import Foundation
import Locking

/// Makes answers that did less work take as long as answers that did more, where the difference
/// would tell an attacker something (resetPassword: whether an account has the address).
///
/// It keeps the durations of the latest answers that did the full work; an answer that did less
/// waits until its own elapsed time reaches one of them, drawn at random. Both kinds of answer
/// then follow one distribution of durations, whatever the database's speed today, with no
/// constant to tune. Until a full answer has been seen, nothing waits.
final class TimingEqualizer: Sendable {
    private struct Samples {
        var durations: [Double] = []
        var next = 0
    }

    private let samples = Lock(Samples())
    private let capacity: Int
    /// The longest wait, so that one slow outlier cannot hold a thread for long.
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

    /// Notes the duration of an answer that did the full work, started at `start`.
    func recordFullWork(since start: ContinuousClock.Instant) {
        let seconds = Self.seconds(ContinuousClock.now - start)
        samples.withLock { samples in
            if samples.durations.count < capacity {
                samples.durations.append(seconds)
            } else {
                samples.durations[samples.next] = seconds
                samples.next = (samples.next + 1) % capacity
            }
        }
    }

    /// Waits, for an answer that did less work and started at `start`, until it has taken as
    /// long as a full answer drawn from the recent ones.
    func equalize(since start: ContinuousClock.Instant) {
        guard let target = samples.withLock({ $0.durations.randomElement() }) else { return }
        let wait = min(target - Self.seconds(ContinuousClock.now - start), maximumWait)
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
