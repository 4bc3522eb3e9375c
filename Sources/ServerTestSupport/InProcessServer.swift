import Foundation
import GatehouseServer

/// A GatehouseServer on 127.0.0.1, port 0, on its own fresh database in the shared test cluster,
/// hashing at minimum cost, with a fixed `GATEHOUSE_SECRET_KEY`, logging to `logger` (default: errors to standard error). Call ``stop()``
/// when done.
public struct InProcessServer: Sendable {
    public let server: GatehouseServer

    public init(logger: Logger? = nil, _ adjust: (inout Settings) -> Void = { _ in }) throws {
        var settings = Settings()
        settings.databaseURL = try TestDatabase.create().connectionString
        settings.port = 0
        settings.hashCost = "minimum"
        settings.poolSize = 4
        settings.logLevel = .error
        settings.secretKey = InProcessServer.secretKey
        adjust(&settings)
        server = try GatehouseServer(settings: settings, logger: logger)
    }

    /// `http://127.0.0.1:PORT` (no path).
    public var origin: String { "http://127.0.0.1:\(server.port)" }

    public func stop() { server.stop() }

    /// The `GATEHOUSE_SECRET_KEY` test servers on an external database use.
    public static let secretKey = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7"
}

extension InProcessServer {
    /// The GraphQL endpoint as a URL.
    public var url: URL { URL(string: server.endpoint)! }
}
