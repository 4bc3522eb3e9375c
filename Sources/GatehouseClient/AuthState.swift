import Foundation

/// The signed-in session of a ``GatehouseAuth`` and the listeners of its changes, behind one
/// lock so that every listener sees the changes in the order they happened.
@available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
final class AuthState: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var session: StoredSession?
    private var listeners: [UInt64: AsyncStream<User?>.Continuation] = [:]
    private var nextListener: UInt64 = 0

    init(session: StoredSession?) {
        self.session = session
    }

    deinit {
        for listener in listeners.values { listener.finish() }
    }

    var current: StoredSession? {
        lock.lock()
        defer { lock.unlock() }
        return session
    }

    /// Replaces the session; listeners hear the new user when it differs from the old one
    /// (always on a new sign-in, since the token changes).
    func set(_ new: StoredSession?) {
        lock.lock()
        defer { lock.unlock() }
        let changed = new != session
        session = new
        if changed { for listener in listeners.values { listener.yield(new?.user) } }
    }

    /// Clears the session only if it still holds `token`; returns whether it did. A refresh
    /// that fails with an old token must not clear a newer log-in.
    func clear(ifToken token: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard session?.sessionToken == token else { return false }
        session = nil
        for listener in listeners.values { listener.yield(nil) }
        return true
    }

    /// A new stream that starts with the current user and then yields every change.
    func stream() -> AsyncStream<User?> {
        AsyncStream(bufferingPolicy: .unbounded) { continuation in
            lock.lock()
            let id = nextListener
            nextListener += 1
            listeners[id] = continuation
            continuation.yield(session?.user)
            lock.unlock()
            continuation.onTermination = { [weak self] _ in self?.removeListener(id) }
        }
    }

    private func removeListener(_ id: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        listeners[id] = nil
    }
}
