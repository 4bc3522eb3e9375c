/// A notification (NOTIFY) received on a channel a connection listens to.
public struct PostgresNotification: Sendable, Hashable {
    public var channel: String
    public var payload: String
    /// The process id of the server backend that sent it.
    public var backendPID: Int32

    public init(channel: String, payload: String, backendPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.backendPID = backendPID
    }
}
