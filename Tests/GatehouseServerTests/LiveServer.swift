import Foundation
import GatehouseServer
import JSON
import Synchronization
import ServerTestSupport
import TestSupport

extension LogCapture {
    /// The request lines (`"msg":"request"`), parsed.
    func requestLines() throws -> [JSON] {
        try lines.map { try JSONParser().parse(Array($0.utf8)) }.filter { $0["msg"] == "request" }
    }
}

extension Settings {
    /// A server on `databaseURL` for tests that start it themselves: port 0, minimum hashing
    /// cost, small pool, few threads.
    static func forTest(databaseURL: String) -> Settings {
        var settings = Settings()
        settings.databaseURL = databaseURL
        settings.secretKey = InProcessServer.secretKey
        settings.port = 0
        settings.hashCost = "minimum"
        settings.poolSize = 2
        settings.httpThreads = 4
        return settings
    }
}

/// An `InProcessServer` with small pools, logging into a `LogCapture`; stopped on deinit.
final class LiveServer {
    let server: GatehouseServer
    let logs = LogCapture()

    init(level: LogLevel = .info, _ configure: (inout Settings) -> Void = { _ in }) throws {
        server = try InProcessServer(logger: Logger(level: level, write: logs.write)) { settings in
            settings.hashWorkers = 2
            settings.poolSize = 2
            settings.httpThreads = 4
            settings.shutdownTimeout = 5
            configure(&settings)
        }.server
    }

    deinit { server.stop() }

    func connect() throws -> HTTPConnection { try HTTPConnection(port: server.port) }

    /// One request on a fresh connection.
    func get(_ target: String, headers: [(String, String)] = []) throws -> RawResponse {
        try connect().request("GET", target, headers: headers)
    }

    func graphQL(
        _ query: String, variables: JSONObject = [:], operationName: String? = nil, headers: [(String, String)] = []
    ) throws -> RawResponse {
        try connect().graphQL(query, variables: variables, operationName: operationName, headers: headers)
    }
}

/// The documents of the scripted session.
enum Documents {
    static let signUp = """
        mutation SignUp($username: String!, $password: String!) {
          signUp(input: {fields: {username: $username, password: $password}}) { viewer { sessionToken user { username } } }
        }
        """
    static let logIn = """
        mutation LogIn($username: String!, $password: String!) {
          logIn(input: {username: $username, password: $password}) { viewer { sessionToken user { username } } }
        }
        """
    static let viewer = "query Viewer { viewer { sessionToken user { username } } }"
    static let logOut = "mutation LogOut { logOut(input: {}) { ok } }"

    static func credentials(_ username: String, _ password: String) -> JSONObject {
        ["username": .string(username), "password": .string(password)]
    }
}
