/// How a ``Pool`` connects and how long callers wait.
public struct PoolConfiguration: Sendable {
    /// How each connection is opened (connection string, connect and statement timeouts).
    public var connection: ConnectionConfiguration
    /// Most connections open at once.
    public var size: Int
    /// How long `withConnection` blocks for a free connection before failing with
    /// `database unavailable`.
    public var checkoutTimeoutSeconds: Double

    /// A configuration; the defaults suit an HTTP server with a few worker threads per core.
    public init(connection: ConnectionConfiguration, size: Int = 10, checkoutTimeoutSeconds: Double = 5) {
        self.connection = connection
        self.size = max(1, size)
        self.checkoutTimeoutSeconds = checkoutTimeoutSeconds
    }

    /// A configuration from a connection string (e.g. `DATABASE_URL`).
    public init(_ connectionString: String, size: Int = 10, checkoutTimeoutSeconds: Double = 5) {
        self.init(connection: ConnectionConfiguration(connectionString), size: size, checkoutTimeoutSeconds: checkoutTimeoutSeconds)
    }
}
