import Foundation
import Synchronization

/// Keeps one dedicated connection listening on a few channels, on its own thread,
/// and hands each notification to `onNotification`. When the connection drops it
/// calls `onDisconnect` (notifications may have been missed) and reconnects with
/// back-off; `onConnect` runs each time listening (re)starts, after the `LISTEN`s, so that
/// nothing notified from then on is missed.
public final class NotificationListener: Sendable {
    public let configuration: ConnectionConfiguration
    public let channels: [String]
    private let onNotification: @Sendable (PostgresNotification) -> Void
    private let onConnect: @Sendable () -> Void
    private let onDisconnect: @Sendable (PostgresError) -> Void
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        var started = false
        var finished = false
        var connected = false
        var connects = 0
    }

    public init(
        configuration: ConnectionConfiguration, channels: [String],
        onNotification: @escaping @Sendable (PostgresNotification) -> Void,
        onConnect: @escaping @Sendable () -> Void = {},
        onDisconnect: @escaping @Sendable (PostgresError) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.channels = channels
        self.onNotification = onNotification
        self.onConnect = onConnect
        self.onDisconnect = onDisconnect
    }

    /// Whether the listening connection is up now.
    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Times listening restarted after a lost connection (the first connect not counted).
    public var reconnectCount: Int { state.withLock { max(0, $0.connects - 1) } }

    /// Starts the listening thread (once).
    public func start() {
        let first = state.withLock { state -> Bool in
            guard !state.started else { return false }
            state.started = true
            return true
        }
        guard first else { return }
        let thread = Thread { [self] in run() }
        thread.name = "gatehouse-listen"
        thread.start()
    }

    /// Stops listening and waits (up to a few seconds) for the thread to end.
    public func stop() {
        state.withLock { $0.stopping = true }
        for _ in 0..<300 where !state.withLock({ $0.finished || !$0.started }) {
            usleep(10_000)
        }
    }

    private var stopping: Bool { state.withLock { $0.stopping } }

    private func run() {
        var backoff = 0.2
        while !stopping {
            do {
                let connection = try Connection(configuration: configuration)
                for channel in channels { try connection.listen(channel) }
                state.withLock { state in
                    state.connected = true
                    state.connects += 1
                }
                onConnect()
                backoff = 0.2
                while !stopping {
                    for notification in try connection.waitForNotifications(timeout: 0.25) {
                        onNotification(notification)
                    }
                }
                connection.close()
                state.withLock { $0.connected = false }
            } catch {
                let wasConnected = state.withLock { state -> Bool in
                    defer { state.connected = false }
                    return state.connected
                }
                if wasConnected || backoff == 0.2 { onDisconnect(error) }
                let deadline = Date().addingTimeInterval(backoff)
                while !stopping && Date() < deadline { usleep(20_000) }
                backoff = min(backoff * 2, 5)
            }
        }
        state.withLock { $0.finished = true }
    }
}
