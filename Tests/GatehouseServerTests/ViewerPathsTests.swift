import Foundation
import GatehouseServer
import GraphQL
import JSON
import Synchronization
import Testing
import ServerTestSupport
import TestSupport

/// The viewer answers the same from the session cache (settled at once) as from a batched
/// database lookup (the request executes once it lands), for every way a document can ask for it.
@Suite struct ViewerPathsTests {
    @Test(arguments: [true, false])
    func viewerFromCacheOrLookup(sessionCache: Bool) throws {
        let live = try LiveServer { $0.sessionCache = sessionCache }
        let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("vera", "correct horse"))
        let token = try #require(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue)
        let headers = [("X-Parse-Session-Token", token)]

        for query in [
            Documents.viewer,
            "{ me: viewer { user { username } } health }",
            "query { ...V } fragment V on Query { viewer { user { username } } }",
            "{ ... on Query { viewer { user { username } } } }",
        ] {
            let response = try live.graphQL(query, headers: headers)
            #expect(response.status == 200, "\(query)")
            let data = try response.json()["data"]
            let viewer = data?["viewer"] ?? data?["me"]
            #expect(viewer?.at("user", "username") == "vera", "\(query)")
        }
        // A token on a query without the viewer changes nothing.
        #expect(try live.graphQL("{ health }", headers: headers).json() == ["data": ["health": true]])

        let bogus = try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", "r:" + String(repeating: "0", count: 32))])
        #expect(try bogus.json()["errors"]?[0]?.at("extensions", "code") == 209)
    }

    /// Viewer fields that read the database (passkeys, sessions, authData) run on a thread that may
    /// block even when the session itself is cached: on an event thread the database call would
    /// fail the debug build's precondition (``EventThread``) and end this test process.
    @Test(arguments: [true, false])
    func viewerFieldsThatReadTheDatabaseRunWhereTheyMayBlock(sessionCache: Bool) throws {
        let live = try LiveServer { $0.sessionCache = sessionCache }
        let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("petra", "correct horse"))
        let token = try #require(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue)
        let headers = [("X-Parse-Session-Token", token)]
        if sessionCache {
            // The cache serves once its notification connection listens; then a viewer lookup fills it.
            try #require(eventually { (try? live.metric("gatehouse_session_cache_live")) == 1 })
        }
        #expect(try live.graphQL(Documents.viewer, headers: headers).json().at("data", "viewer", "user", "username") == "petra")
        if sessionCache { #expect(try live.metric("gatehouse_session_cache_sessions") == 1) }

        for (query, path, expected) in [
            ("{ viewer { passkeys { id } } }", ["viewer", "passkeys"], JSON.array([])),
            ("{ viewer { user { authData } } }", ["viewer", "user", "authData"], .null),
            ("query { ...S } fragment S on Query { viewer { sessions { current } } }", ["viewer", "sessions"], [["current": true]]),
        ] as [(String, [String], JSON)] {
            let response = try live.graphQL(query, headers: headers)
            #expect(response.status == 200, "\(query)")
            let json = try response.json()
            #expect(json["errors"] == nil, "\(query)")
            #expect(path.reduce(json["data"]) { $0?[$1] } == expected, "\(query)")
        }
    }

    /// Concurrent lookups share batches; each request still gets its own user.
    @Test func concurrentLookupsGetTheirOwnUsers() throws {
        let live = try LiveServer { $0.sessionCache = false }
        var tokens: [String: String] = [:]
        for index in 0..<6 {
            let name = "user\(index)"
            let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials(name, "correct horse"))
            tokens[name] = try #require(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue)
        }
        let failures = Mutex<[String]>([])
        let port = live.server.port, byName = tokens
        DispatchQueue.concurrentPerform(iterations: 48) { index in
            let name = "user\(index % 6)"
            do {
                let response = try HTTPConnection(port: port).graphQL(
                    Documents.viewer, headers: [("X-Parse-Session-Token", byName[name]!)])
                if try response.json().at("data", "viewer", "user", "username") != .string(name) {
                    failures.withLock { $0.append("\(name): \(response.status)") }
                }
            } catch {
                failures.withLock { $0.append("\(name): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
    }
}
