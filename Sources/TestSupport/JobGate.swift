import Foundation

/// Holds the threads that call ``pass()`` while it is shut; open when made. A test shuts it to
/// hold jobs (say, password hashes in the pool's meter) at a known point, checks what was
/// decided meanwhile, then opens it.
public final class JobGate: @unchecked Sendable {
    // @unchecked: `isShut` is read and written with `condition` locked.
    private let condition = NSCondition()
    private var isShut = false

    public init() {}

    public func shut() {
        condition.lock()
        isShut = true
        condition.unlock()
    }

    public func open() {
        condition.lock()
        isShut = false
        condition.broadcast()
        condition.unlock()
    }

    /// Returns once the gate is open.
    public func pass() {
        condition.lock()
        while isShut { condition.wait() }
        condition.unlock()
    }
}
