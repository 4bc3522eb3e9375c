import Foundation

/// The ``UserSelection`` of one ``GatehouseAuth``: learnt from the server once, and again when
/// the server's answer shows it outdated.
final class UserSelections: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var selection: UserSelection?

    /// The selection learnt last, if any.
    var current: UserSelection? {
        lock.lock()
        defer { lock.unlock() }
        return selection
    }

    func keep(_ new: UserSelection) {
        lock.lock()
        defer { lock.unlock() }
        selection = new
    }

    /// Forgets `old`, unless a newer selection replaced it meanwhile.
    func forget(_ old: UserSelection) {
        lock.lock()
        defer { lock.unlock() }
        if selection == old { selection = nil }
    }
}
