import Foundation
import TestSupport
import Postgres
import Synchronization

/// A fresh, empty database for one test, in the test process's shared embedded cluster.
///
/// The cluster (fsync off) starts lazily on first use, in a temporary directory, and is shut
/// down by an `atexit` handler (fast shutdown by signal, then the directory is removed), so no
/// postgres process outlives `swift test`. Each call to ``create()`` makes `CREATE DATABASE
/// test_<random>`, so tests run in parallel without sharing tables. Databases are not dropped:
/// they go with the cluster at exit.
public struct TestDatabase: Sendable {
    /// The database name (`test_<random hex>`).
    public let name: String
    /// A libpq connection string for it (Unix socket).
    public let connectionString: String

    /// Creates a new empty database in the shared cluster.
    public static func create() throws -> TestDatabase {
        let cluster = try SharedTestCluster.cluster()
        let name = "test_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try SharedTestCluster.admin { connection in
            // The name is generated above: a plain identifier, never input.
            try connection.unsafeExecuteScript("CREATE DATABASE \(name) STRATEGY = FILE_COPY")
        }
        return TestDatabase(name: name, connectionString: cluster.connectionString(database: name))
    }

    /// Where the shared cluster listens and its superuser, for tools such as psql (`PGHOST`,
    /// `PGPORT`, `PGUSER`). Local connections are trusted, whatever the role.
    public static func cluster() throws -> (socketDirectory: String, port: Int, superuser: String) {
        let cluster = try SharedTestCluster.cluster()
        return (cluster.socketDirectory, cluster.options.port, cluster.options.user)
    }

    /// A pool on this database.
    public func makePool(size: Int = 4, checkoutTimeoutSeconds: Double = 5, statementTimeoutMilliseconds: Int = 30_000)
        -> Pool
    {
        Pool(configuration: PoolConfiguration(
            connection: ConnectionConfiguration(connectionString, statementTimeoutMilliseconds: statementTimeoutMilliseconds),
            size: size, checkoutTimeoutSeconds: checkoutTimeoutSeconds))
    }

    /// A single connection to this database.
    public func connect() throws -> Connection {
        try Connection(connectionString)
    }
}

/// The one embedded cluster of a test process.
enum SharedTestCluster {
    private static let state = Mutex<(cluster: EmbeddedPostgres?, admin: Connection?)>((nil, nil))

    static func cluster() throws -> EmbeddedPostgres {
        try state.withLock { state in
            if let cluster = state.cluster { return cluster }
            let cluster = try EmbeddedPostgres(options: .init(
                dataDirectory: TemporaryDirectory.make(prefix: "ghtest"), databaseName: "gatehouse",
                durable: false, maxConnections: 200))
            state.cluster = cluster
            atexit { SharedTestCluster.shutDownAtExit() }
            try cluster.start()
            return cluster
        }
    }

    static func admin(_ body: (Connection) throws -> Void) throws {
        let cluster = try cluster()
        try state.withLock { state in
            if state.admin == nil || state.admin!.isBroken {
                state.admin = try Connection(cluster.connectionString(database: "postgres"))
            }
            try body(state.admin!)
        }
    }

    private static func shutDownAtExit() {
        let cluster = state.withLock { state in
            state.admin?.close()
            return state.cluster
        }
        guard let cluster else { return }
        if cluster.signalFastShutdown() {
            try? FileManager.default.removeItem(atPath: cluster.dataDirectory)
        }
    }
}
