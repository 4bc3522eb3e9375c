/// How to open a ``Connection``.
public struct ConnectionConfiguration: Sendable {
    /// A libpq connection string: a URI (`postgresql://user@host/db`) or key=value conninfo
    /// (`host=/path/to/socketdir dbname=gatehouse user=gatehouse`).
    public var connectionString: String
    /// libpq `connect_timeout` in seconds, used unless the connection string sets one (libpq
    /// treats values below 2 as 2). Bounds how long a connect can block during an outage.
    public var connectTimeoutSeconds: Int
    /// `statement_timeout` set on every connection, in milliseconds (0 disables it).
    public var statementTimeoutMilliseconds: Int
    /// Prepared statements kept per connection; beyond it, new SQL runs unprepared.
    public var preparedStatementCacheSize: Int

    /// A configuration with defaults: 5 s connect timeout, 30 s statement timeout, 256 statements.
    public init(
        _ connectionString: String, connectTimeoutSeconds: Int = 5, statementTimeoutMilliseconds: Int = 30_000,
        preparedStatementCacheSize: Int = 256
    ) {
        self.connectionString = connectionString
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.preparedStatementCacheSize = preparedStatementCacheSize
    }
}
