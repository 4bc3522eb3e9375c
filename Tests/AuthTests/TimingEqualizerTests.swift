import Foundation
import Synchronization
import Testing

@testable import Auth

/// The waits TimingEqualizer asks for (recorded, not waited).
@Suite struct TimingEqualizerTests {
    /// The waits asked for, in seconds from when they were asked.
    final class Sleeps: Sendable {
        let waits = Mutex<[Double]>([])
        var all: [Double] { waits.withLock { $0 } }
        func record(_ deadline: ContinuousClock.Instant) {
            let wait = deadline - .now
            waits.withLock { $0.append(Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18) }
        }
    }

    @Test func nothingWaitsBeforeAFullAnswerIsSeen() {
        let sleeps = Sleeps()
        let equalizer = TimingEqualizer(waitUntil: { deadline in sleeps.record(deadline) })
        equalizer.equalize(since: .now)
        #expect(sleeps.all.isEmpty)
    }

    @Test func aLighterAnswerWaitsUntilItTookAsLongAsAFullOne() {
        let sleeps = Sleeps()
        let equalizer = TimingEqualizer(maximumWait: 100, waitUntil: { deadline in sleeps.record(deadline) })
        equalizer.recordFullWork(since: .now - .seconds(10))
        equalizer.equalize(since: .now)
        equalizer.equalize(since: .now - .seconds(4))
        equalizer.equalize(since: .now - .seconds(11))  // took longer already: no wait
        #expect(sleeps.all.count == 2)
        #expect(sleeps.all.first.map { $0 > 9 && $0 < 10.5 } == true, "\(sleeps.all)")
        #expect(sleeps.all.last.map { $0 > 5 && $0 < 6.5 } == true, "\(sleeps.all)")
    }

    @Test func waitsAreCappedAndDrawnFromTheRecentFullAnswers() {
        let sleeps = Sleeps()
        let equalizer = TimingEqualizer(capacity: 2, maximumWait: 30, waitUntil: { deadline in sleeps.record(deadline) })
        equalizer.recordFullWork(since: .now - .seconds(1000))  // pushed out by the next two
        equalizer.recordFullWork(since: .now - .seconds(20))
        equalizer.recordFullWork(since: .now - .seconds(40))
        for _ in 0..<50 { equalizer.equalize(since: .now) }
        #expect(sleeps.all.allSatisfy { $0 <= 30 })
        #expect(sleeps.all.contains { $0 < 21 } && sleeps.all.contains { $0 > 29 }, "both recent samples are drawn")
    }
}
