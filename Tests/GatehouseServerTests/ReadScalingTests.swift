import Foundation
@testable import GatehouseServer
import JSON
import Postgres
import ServerTestSupport
import TestSupport
import Testing

/// `GATEHOUSE_READ_DATABASE_URL`: viewer lookups on a real streaming standby, answered there only
/// when it is as current as the primary; otherwise, and when it is down, by the primary.
@Suite struct ReadScalingTests {
    /// A primary, its streaming standby, and a server on the primary reading sessions from the
    /// standby, without the session cache (every viewer is a lookup); all stopped on deinit.
    final class Pair {
        let primary: PrivateTestCluster
        let standby: PrivateTestCluster
        let standbyURL: String
        let server: GatehouseServer
        let logs = LogCapture()

        init() throws {
            primary = try PrivateTestCluster()
            let primaryURL = try primary.cluster.start()
            standby = try ResilienceTests.standby(of: primary)
            standbyURL = try standby.cluster.start()
            var settings = Settings.forTest(databaseURL: primaryURL)
            settings.readDatabaseURL = standbyURL
            settings.sessionCache = false
            server = try GatehouseServer(settings: settings, logger: Logger(level: .info, write: logs.write))
        }

        deinit {
            server.stop()
            standby.destroy()
            primary.destroy()
        }

        func signUp(_ username: String) throws -> String {
            let response = try HTTPConnection(port: server.port).graphQL(
                Documents.signUp, variables: Documents.credentials(username, "larch-ridge-11"), operationName: "SignUp")
            return try #require(try response.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue)
        }

        /// The viewer's error code (nil: the session is valid).
        func viewerError(_ token: String) throws -> JSON? {
            let response = try HTTPConnection(port: server.port).graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)])
            let json = try response.json()
            if json["errors"] == nil { #expect(json.at("data", "viewer", "sessionToken")?.stringValue == token) }
            return json["errors"]?[0]?["extensions"]?["code"]
        }

        func logOut(_ token: String) throws {
            let response = try HTTPConnection(port: server.port).graphQL(
                Documents.logOut, headers: [("X-Parse-Session-Token", token)])
            #expect(try response.json().at("data", "logOut", "ok") == true)
        }

        /// Batches answered by `label` (`standby`, `primary",reason="behind`, ...).
        func batches(_ label: String) throws -> Double {
            let name = "gatehouse_read_lookup_batches_total{answered_by=\"\(label)\"}"
            let text = try HTTPConnection(port: server.port).request("GET", "/metrics").text
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last!) } ?? -1
        }
    }

    /// With replay paused on the standby: a session made on the primary since is found (the
    /// primary answers), and a logged-out token answers 209 though the standby still has its
    /// session. Once replay resumes the standby answers again, with the same results.
    @Test func freshAndLoggedOutTokensWhileTheStandbyLags() throws {
        let pair = try Pair()
        let standbyAdmin = try Connection(pair.standbyURL)
        defer { standbyAdmin.close() }

        let rita = try pair.signUp("rita")
        // The standby answers once it has replayed the sign-up.
        #expect(try eventually { try pair.viewerError(rita) == nil && pair.batches("standby") >= 1 })
        let standbySessions = { try standbyAdmin.queryFirst("SELECT count(*)::int8 FROM sessions")?.decode(Int.self, at: 0) }
        #expect(try standbySessions() == 1)

        _ = try standbyAdmin.query("SELECT pg_wal_replay_pause()")
        #expect(try eventually {
            try standbyAdmin.queryFirst("SELECT pg_get_wal_replay_pause_state()")?.decode(String.self, at: 0) == "paused"
        })
        let sam = try pair.signUp("sam")
        #expect(try pair.viewerError(sam) == nil, "made a moment ago: the primary answers")
        #expect(try pair.batches("primary\",reason=\"behind") >= 1)
        try pair.logOut(rita)
        #expect(try standbySessions() == 1, "the standby still has rita's session")
        #expect(try pair.viewerError(rita) == 209)
        #expect(try pair.viewerError(sam) == nil)
        #expect(pair.logs.text.contains("read database behind the primary, session lookups go to the primary until it catches up"))

        let answered = try pair.batches("standby")
        _ = try standbyAdmin.query("SELECT pg_wal_replay_resume()")
        #expect(try eventually { try pair.viewerError(sam) == nil && pair.batches("standby") > answered })
        #expect(try standbySessions() == 1, "sam's; rita's is gone")
        #expect(try pair.viewerError(rita) == 209)
        #expect(pair.logs.text.contains(#""msg":"read database serving session lookups""#))
    }

    /// A standby that is down fails no request: the primary answers, the change is logged and
    /// counted, and the standby is used again once it is back.
    @Test func aStandbyThatIsDownLeavesLookupsToThePrimary() throws {
        let pair = try Pair()
        let token = try pair.signUp("tess")
        #expect(try eventually { try pair.viewerError(token) == nil && pair.batches("standby") >= 1 })

        try pair.standby.cluster.stop()
        #expect(try pair.viewerError(token) == nil)
        #expect(try pair.viewerError(token) == nil)
        #expect(try pair.batches("primary\",reason=\"unavailable") >= 2)
        #expect(pair.logs.text.contains("read database unavailable, session lookups go to the primary"))
        #expect(!pair.logs.text.contains("password="), "no connection string in the log")

        try pair.standby.cluster.start()
        let answered = try pair.batches("standby")
        #expect(try eventually { try pair.viewerError(token) == nil && pair.batches("standby") > answered })
    }

    /// A read database that is not in recovery (here the primary itself; after a promotion, the
    /// former standby) is not trusted: positions of two primaries say nothing about each other.
    @Test func aReadDatabaseThatIsNoStandbyIsNotUsed() throws {
        let live = try LiveServer { settings in
            settings.readDatabaseURL = settings.databaseURL
            settings.sessionCache = false
        }
        let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("una", "larch-ridge-11"), operationName: "SignUp")
        let token = try #require(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue)
        let viewer = try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)]).json()
        #expect(viewer.at("data", "viewer", "sessionToken")?.stringValue == token)
        #expect(live.logs.text.contains("not in recovery (not a standby of the primary)"))
        let metrics = try live.get("/metrics").text
        #expect(metrics.contains(#"gatehouse_read_lookup_batches_total{answered_by="standby"} 0"#))
        #expect(!metrics.contains(#"gatehouse_read_lookup_batches_total{answered_by="primary",reason="unavailable"} 0"#))
    }

    /// The embedded database has no standby.
    @Test func aReadDatabaseNeedsDatabaseURL() throws {
        var settings = Settings()
        settings.port = 0
        settings.readDatabaseURL = "host=standby"
        #expect(throws: GatehouseServer.StartError.self) { try GatehouseServer(settings: settings, logger: Logger(level: .error, write: { _ in })) }
        do { _ = try GatehouseServer(settings: settings, logger: Logger(level: .error, write: { _ in })) } catch {
            #expect(error.description.contains("GATEHOUSE_READ_DATABASE_URL (--read-database-url) needs DATABASE_URL"))
        }
    }
}
