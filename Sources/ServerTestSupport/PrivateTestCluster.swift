import Foundation
import TestSupport
import Postgres

/// A test's own embedded cluster (fsync off) in a temporary directory, for tests that stop and
/// start the server or inspect its files, so the shared cluster other tests use is never disturbed.
///
/// Call ``destroy()`` when done (e.g. in `defer`): it stops the server and removes the directory.
public final class PrivateTestCluster: Sendable {
    /// The cluster; not started by `init`.
    public let cluster: EmbeddedPostgres

    /// Prepares a cluster in a new temporary directory (or `dataDirectory`).
    public init(dataDirectory: String? = nil) throws {
        cluster = try EmbeddedPostgres(options: .init(
            dataDirectory: dataDirectory ?? TemporaryDirectory.make(prefix: "ghpriv"), durable: false, maxConnections: 20))
    }

    /// Stops the server (if running) and removes its directory.
    public func destroy() {
        if (try? cluster.stop()) == nil { cluster.signalFastShutdown() }
        try? FileManager.default.removeItem(atPath: cluster.dataDirectory)
    }
}
