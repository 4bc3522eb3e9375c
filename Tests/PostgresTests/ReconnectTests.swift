import Foundation
import Postgres
import ServerTestSupport
import Testing

/// The pool survives a PostgreSQL restart without being restarted itself. Uses its own cluster so
/// that the shared one, which parallel tests use, is never stopped.
@Suite struct ReconnectTests {
    @Test func poolRecoversAfterTheServerRestarts() throws {
        let privateCluster = try PrivateTestCluster()
        defer { privateCluster.destroy() }
        let cluster = privateCluster.cluster
        try cluster.start()
        let pool = Pool(configuration: PoolConfiguration(
            connection: ConnectionConfiguration(cluster.connectionString, connectTimeoutSeconds: 2),
            size: 2, checkoutTimeoutSeconds: 2))
        defer { pool.close() }
        try pool.withConnection { c in
            try c.unsafeExecuteScript("CREATE TABLE marks (v text)")
            try c.execute("INSERT INTO marks VALUES (\("before"))")
        }

        try cluster.stop()
        // During the outage: a clear error, fast (socket gone: no connect_timeout wait).
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection { c in _ = try c.query("SELECT 1") }
        }
        #expect(error.kind == .databaseUnavailable || error.isConnectionFailure)
        #expect(pool.stats.inUse == 0)

        try cluster.start()
        // The very first request after the restart succeeds, on the same pool.
        let values = try pool.withConnection { c in
            try c.query("SELECT v FROM marks").map { try $0.decode(String.self, at: 0) }
        }
        #expect(values == ["before"])
    }
}
