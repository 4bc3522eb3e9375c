import Foundation

/// Polls `condition` every 2 ms until it holds or `timeout` passes; returns whether it held.
///
/// For waiting until something has happened (a thread started, a connection closed), never
/// for showing that something did not: give the code a hook or a counter for that instead.
@discardableResult
public func eventually(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(2_000)
    }
    return try condition()
}
