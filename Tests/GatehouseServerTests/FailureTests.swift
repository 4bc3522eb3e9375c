import Foundation
import GatehouseServer
import GraphQL
import Postgres
import Testing
import ServerTestSupport
import TestSupport

/// The server when its database goes away, and the binary when it cannot start.
@Suite struct FailureTests {
    /// The database stops under a running server: /ready and a request whose every
    /// root field needed the database answer 503 with Retry-After; health stays 200.
    @Test func databaseDown() throws {
        let privateCluster = try PrivateTestCluster()
        defer { privateCluster.destroy() }
        let connectionString = try privateCluster.cluster.start()
        var settings = Settings.forTest(databaseURL: connectionString)
        settings.poolTimeout = 1
        let logs = LogCapture()
        let server = try GatehouseServer(settings: settings, logger: Logger(level: .info, write: logs.write))
        defer { server.stop() }
        let connection = try HTTPConnection(port: server.port)
        #expect(try connection.request("GET", "/ready").status == 200)

        try privateCluster.cluster.stop()

        let ready = try connection.request("GET", "/ready")
        #expect(ready.status == 503)
        #expect(try ready.json()["status"] == "unavailable")

        let viewer = try connection.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", "r:" + String(repeating: "a", count: 32))])
        #expect(viewer.status == 503, "\(viewer.text)")
        #expect(viewer.header("Retry-After") != nil)
        let error = try #require(try viewer.json()["errors"]?[0])
        #expect(error["message"] != nil)

        let health = try connection.graphQL("{ health }")
        #expect(health.status == 200)
        // The failure detail goes to the log, not to the client.
        #expect(!viewer.text.contains(privateCluster.cluster.dataDirectory))
    }

    /// `gatehouse` on a port already taken: exit 1 with the reason, before any embedded
    /// PostgreSQL is created or started.
    @Test func cannotListenStopsBeforeTheDatabase() throws {
        let live = try LiveServer()
        let dataDirectory = TemporaryDirectory.make(prefix: "ghbusy") + "/data"
        defer { try? FileManager.default.removeItem(atPath: (dataDirectory as NSString).deletingLastPathComponent) }
        let result = try Child.run(["--port", String(live.server.port)], environment: childEnvironment([
            "GATEHOUSE_DATA_DIR": dataDirectory, "GATEHOUSE_HASH_COST": "minimum",
        ]), timeout: 90)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot listen"), "\(result.stderr)")
        #expect(!result.stdout.contains("listening"))
        // The port is taken before the database starts: no cluster is made for a server that cannot serve.
        #expect(!FileManager.default.fileExists(atPath: dataDirectory + "/pg/PG_VERSION"))
        #expect(!FileManager.default.fileExists(atPath: dataDirectory + "/pg/postmaster.pid"))
        #expect(processes(matching: dataDirectory).isEmpty)
    }

    /// A password blocklist that cannot be used stops `gatehouse` before anything starts: exit 1
    /// with a message naming the setting and the file, and no database created (started as root,
    /// the data directory itself is made before root is given up).
    @Test(arguments: [
        ("absent", nil, "cannot open"),
        ("unsorted", "ffffffffffffffffffffffffffffffffffffffff:1\r\n0000000000000000000000000000000000000000:2\r\n", "is not sorted by hash: line 2"),
        ("malformed", "not a hash\n", "line 1 of"),
    ] as [(String, String?, String)])
    func unusablePasswordBlocklistStopsTheStart(_ name: String, _ content: String?, _ expected: String) throws {
        let directory = TemporaryDirectory.make(prefix: "ghblock")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + name + ".txt"
        if let content { try Data(content.utf8).write(to: URL(fileURLWithPath: path)) }
        let result = try Child.run(["--password-blocklist", path], environment: childEnvironment([
            "GATEHOUSE_DATA_DIR": directory + "/data", "GATEHOUSE_PORT": "0",
        ]))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("GATEHOUSE_PASSWORD_BLOCKLIST (--password-blocklist): "), "\(result.stderr)")
        #expect(result.stderr.contains(path) && result.stderr.contains(expected), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data/pg/PG_VERSION"), "no cluster was created")
        #expect(processes(matching: directory).isEmpty)
    }
}

extension FailureTests {
    /// A provider configuration that is wrong stops `gatehouse` before the database: exit 1 with
    /// the setting, the provider and the field.
    @Test func aWrongProviderConfigurationStopsTheStart() throws {
        let directory = TemporaryDirectory.make(prefix: "ghproviders")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try Child.run([], environment: childEnvironment([
            "GATEHOUSE_DATA_DIR": directory + "/data", "GATEHOUSE_PORT": "0",
            "GATEHOUSE_AUTH_PROVIDERS": #"{"acme": {"issuer": "https://login.acme.example", "client_ids": ["x"]}}"#,
        ]))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains(#"GATEHOUSE_AUTH_PROVIDERS (--auth-providers): provider "acme": "jwks_uri" is missing"#), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data/pg/PG_VERSION"), "no cluster was created")
    }
}
