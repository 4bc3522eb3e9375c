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
    /// Run-time parameters set with `set_config` on every connection once it opens (custom
    /// `prefix.name` ones included), before any other statement. Set after connecting rather than
    /// through libpq's `options`, so a connection string's own `options` cannot drop them.
    public var runtimeParameters: [String: String] = [:]

    /// libpq's TCP settings on every connection unless the connection string sets its own, so a
    /// database host that vanished without closing its sockets (power loss, a partition) is noticed
    /// within about 30 s rather than the operating system's defaults (2 h for an idle connection,
    /// such as a `LISTEN` one; some 15 min of retransmissions for a statement in flight): keepalive
    /// probes after 10 s idle, every 5 s, and the connection ends once the peer has acknowledged
    /// nothing for 30 s (`tcp_user_timeout`; on Linux it also decides when the probing gives up,
    /// where other systems count 3 unanswered probes). Unix-domain socket connections ignore them.
    public static let tcpDefaults = [
        ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"), ("tcp_user_timeout", "30000"),
    ]

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
