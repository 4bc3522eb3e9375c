import Foundation
import GatehouseServer
import HTTPServer
import Sodium

/// A GatehouseServer on 127.0.0.1, port 0, on its own fresh database in the shared test cluster,
/// hashing at minimum cost, with a fixed `GATEHOUSE_SECRET_KEY`, logging to `logger` (default: errors to standard error). Call ``stop()``
/// when done.
public struct InProcessServer: Sendable {
    public let server: GatehouseServer

    /// `listenSocket`: a listening socket to serve on instead of a new one on `settings.port`.
    public init(logger: Logger? = nil, listenSocket: Int32? = nil, _ adjust: (inout Settings) -> Void = { _ in }) throws {
        try self.init(logger: logger, listenSocket: listenSocket, hashingMeter: nil, adjust)
    }

    /// A server whose password hashing pool measures its jobs with `hashingMeter`, which runs a
    /// job and returns what it cost in seconds: for tests that fix the cost admission sees.
    public init(
        hashingMeter: @escaping @Sendable (() -> Void) -> Double, _ adjust: (inout Settings) -> Void = { _ in }
    ) throws {
        try self.init(logger: nil, listenSocket: nil, hashingMeter: .some(hashingMeter), adjust)
    }

    private init(
        logger: Logger?, listenSocket: Int32?, hashingMeter: (@Sendable (() -> Void) -> Double)?,
        _ adjust: (inout Settings) -> Void
    ) throws {
        var settings = Settings()
        settings.databaseURL = try TestDatabase.create().connectionString
        settings.port = 0
        settings.hashCost = "minimum"
        settings.poolSize = 4
        settings.logLevel = .error
        settings.secretKey = InProcessServer.secretKey
        adjust(&settings)
        server = try GatehouseServer(settings: settings, logger: logger, listenSocket: listenSocket, hashingMeter: hashingMeter)
    }

    /// A server whose `GATEHOUSE_PUBLIC_URL` is `http://localhost:PORT` (``localhostOrigin``):
    /// browsers allow WebAuthn only with a domain name as the relying party id, so passkey tests
    /// open the pages there. The port is picked (port 0) before the server starts.
    public static func onLocalhost(_ adjust: (inout Settings) -> Void = { _ in }) throws -> InProcessServer {
        let socket = try HTTPServer.openListeningSocket(host: "127.0.0.1", port: 0)
        guard let port = HTTPServer.port(ofListeningSocket: socket) else {
            close(socket)
            throw HTTPServerError.startFailed("no port for the listening socket")
        }
        return try InProcessServer(listenSocket: socket) {
            $0.publicURL = "http://localhost:\(port)"
            adjust(&$0)
        }
    }

    /// `http://localhost:PORT`: the origin of a server made by ``onLocalhost(_:)``.
    public var localhostOrigin: String { "http://localhost:\(server.port)" }

    /// `http://127.0.0.1:PORT` (no path).
    public var origin: String { "http://127.0.0.1:\(server.port)" }

    public func stop() { server.stop() }

    /// The `GATEHOUSE_SECRET_KEY` test servers on an external database use.
    public static let secretKey = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7"

    /// The box test servers seal the links of their outbox with (``secretKey``, purpose `mailLinks`).
    public static let mailLinkBox = try! SecretBox(secretKey: secretKey, purpose: .mailLinks)

    /// A link sealed in a test server's outbox, opened; nil when it was sealed under another key.
    public static func openMailLink(_ sealed: [UInt8]) -> String? {
        mailLinkBox.open(sealed).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension InProcessServer {
    /// The GraphQL endpoint as a URL.
    public var url: URL { URL(string: server.endpoint)! }
}
