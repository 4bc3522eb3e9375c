import Foundation
import Synchronization
import Testing

@testable import Auth

/// The waits TimingEqualizer asks for (recorded, not waited).
@Suite struct TimingEqualizerTests {
    /// The waits asked for, in seconds from when they were asked.
    final class Waits: Sendable {
        let waits = Mutex<[Double]>([])
        var all: [Double] { waits.withLock { $0 } }
        func record(_ deadline: ContinuousClock.Instant) {
            let wait = deadline - .now
            waits.withLock { $0.append(Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18) }
        }
    }

    @Test func nothingWaitsBeforeAFullAnswerIsSeen() {
        let waits = Waits()
        let equalizer = TimingEqualizer(waitUntil: { waits.record($0) })
        equalizer.finish(since: .now, fullWork: false)
        #expect(waits.all.isEmpty)
    }

    @Test func everyAnswerWaitsForTheNinetiethPercentileOfFullOnes() {
        let waits = Waits()
        let equalizer = TimingEqualizer(maximumWait: 1000, waitUntil: { waits.record($0) })
        // Ten full answers of 1 to 10 s: the 90th percentile is 9 s (the ninth of ten).
        for seconds in (1...10).reversed() { equalizer.finish(since: .now - .seconds(seconds), fullWork: true) }
        let full = waits.all
        #expect(full.count == 8, "the 9 s and 10 s answers wait for nothing: \(full)")
        equalizer.finish(since: .now, fullWork: false)
        equalizer.finish(since: .now - .seconds(4), fullWork: false)
        equalizer.finish(since: .now - .seconds(12), fullWork: false)  // took longer already
        let light = Array(waits.all.dropFirst(full.count))
        #expect(light.count == 2)
        #expect(light.first.map { $0 > 8.5 && $0 < 9.5 } == true, "\(light)")
        #expect(light.last.map { $0 > 4.5 && $0 < 5.5 } == true, "\(light)")
    }

    @Test func waitsAreCappedAndFollowTheRecentFullAnswers() {
        let waits = Waits()
        let equalizer = TimingEqualizer(capacity: 2, maximumWait: 30, waitUntil: { waits.record($0) })
        equalizer.finish(since: .now - .seconds(1000), fullWork: true)  // pushed out by the next two
        equalizer.finish(since: .now - .seconds(20), fullWork: true)
        equalizer.finish(since: .now - .seconds(40), fullWork: true)
        let before = waits.all.count
        equalizer.finish(since: .now, fullWork: false)
        let wait = waits.all.dropFirst(before).first
        #expect(wait.map { $0 > 19 && $0 < 21 } == true, "the 90th percentile of 20 s and 40 s is 20 s: \(waits.all)")
        let capped = TimingEqualizer(maximumWait: 2, waitUntil: { waits.record($0) })
        capped.finish(since: .now - .seconds(60), fullWork: true)
        capped.finish(since: .now, fullWork: false)
        #expect(waits.all.last.map { $0 <= 2 } == true)
    }
}
