import Foundation
import Synchronization
import Testing
import Threading

/// Runs on its interval, at once when woken, one at a time, and stops.
@Suite struct PeriodicThreadTests {
    @Test func aWakeRunsAtOnceAndStopEndsTheThread() {
        let ran = DispatchSemaphore(value: 0)
        let thread = PeriodicThread(name: "test-periodic", interval: 3600) { ran.signal() }
        thread.start()
        thread.wake()
        #expect(ran.wait(timeout: .now() + 30) == .success, "woken, it runs without waiting the hour")
        thread.wake()
        #expect(ran.wait(timeout: .now() + 30) == .success)
        thread.stop()
        #expect(thread.runCount == 2)
    }

    @Test func runsEveryInterval() {
        let ran = DispatchSemaphore(value: 0)
        let thread = PeriodicThread(name: "test-periodic", interval: 0.01) { ran.signal() }
        thread.start()
        for _ in 0..<3 { #expect(ran.wait(timeout: .now() + 30) == .success) }
        thread.stop()
        #expect(thread.runCount >= 3)
    }

    /// Wakes during a run make one more run after it, and runs never overlap.
    @Test func wakesDuringARunMakeOneMoreRun() {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let thread = PeriodicThread(name: "test-periodic", interval: 3600) {
            if running.add(1, ordering: .relaxed).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
            entered.signal()
            release.wait()
            running.subtract(1, ordering: .relaxed)
        }
        thread.start()
        thread.wake()
        #expect(entered.wait(timeout: .now() + 30) == .success)
        for _ in 0..<5 { thread.wake() }
        release.signal()
        #expect(entered.wait(timeout: .now() + 30) == .success, "the wakes made a second run")
        release.signal()
        thread.stop()
        #expect(thread.runCount == 2)
        let overlaps = overlapped.load(ordering: .relaxed)
        #expect(!overlaps)
    }

    @Test func stopWithoutStartReturns() {
        PeriodicThread(name: "test-periodic", interval: 1) {}.stop()
    }
}
