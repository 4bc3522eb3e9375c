import JSON
import ServerTestSupport
import TestSupport
import Foundation
import GatehouseServer
import Testing

/// End to end in-process: a real GatehouseServer over 127.0.0.1 with a real PostgreSQL.
@Suite struct LiveServerTests {
    @Test func signUpViewerLogOutViewer() throws {
        let live = try LiveServer()
        let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("alice", "correct horse"))
        #expect(signUp.status == 200)
        let signedUp = try signUp.json()
        let token = try #require(signedUp.at("data", "signUp", "viewer", "sessionToken")?.stringValue)
        #expect(token.hasPrefix("r:") && token.count == 34)
        #expect(signedUp.at("data", "signUp", "viewer", "user", "username") == "alice")

        let viewer = try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)])
        #expect(viewer.status == 200)
        #expect(try viewer.json().at("data", "viewer", "user", "username") == "alice")
        #expect(try viewer.json().at("data", "viewer", "sessionToken") == .string(token))

        // Bearer works the same way.
        let bearer = try live.graphQL(Documents.viewer, headers: [("Authorization", "Bearer \(token)")])
        #expect(try bearer.json().at("data", "viewer", "user", "username") == "alice")

        let logOut = try live.graphQL(Documents.logOut, headers: [("X-Parse-Session-Token", token)])
        #expect(logOut.status == 200)
        #expect(try logOut.json().at("data", "logOut", "ok") == true)

        let after = try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)])
        #expect(after.status == 200)
        let error = try #require(try after.json()["errors"]?[0])
        #expect(error.at("extensions", "code") == 209)
        #expect(error["message"] == "Invalid session token")
    }

    @Test func healthReadyAndNotFound() throws {
        let live = try LiveServer()
        let health = try live.get("/health")
        #expect(health.status == 200)
        #expect(health.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(try health.json() == ["status": "ok"])

        let ready = try live.get("/ready")
        #expect(ready.status == 200)
        #expect(ready.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(try ready.json() == ["status": "ready"])

        // ("/" is the sign-in page; BrowserTests cover it.)
        for path in ["/nope", "/graphql/extra", "/healthz", "/index.html"] {
            let missing = try live.get(path)
            #expect(missing.status == 404, "\(path)")
            #expect(missing.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(try missing.json() == ["error": "not found"])
        }
        // GET /graphql works for queries.
        let get = try live.get("/graphql?query=%7Bhealth%7D")
        #expect(get.status == 200)
        #expect(try get.json() == ["data": ["health": true]])
    }

    @Test func metrics() throws {
        let live = try LiveServer()
        _ = try live.graphQL(Documents.signUp, variables: Documents.credentials("metric", "larch-ridge-11"), operationName: "SignUp")
        _ = try live.graphQL(Documents.viewer, operationName: "Viewer")
        _ = try live.graphQL("{ health }")
        _ = try live.get("/nope")
        let response = try live.get("/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let lines = Set(response.text.split(separator: "\n").map(String.init))
        for expected in [
            "# TYPE gatehouse_requests_total counter",
            #"gatehouse_requests_total{operation="SignUp",status="200"} 1"#,
            #"gatehouse_requests_total{operation="Viewer",status="200"} 1"#,
            #"gatehouse_requests_total{operation="anonymous query",status="200"} 1"#,
            #"gatehouse_requests_total{operation="none",status="404"} 1"#,
            "# TYPE gatehouse_request_duration_seconds histogram",
            #"gatehouse_request_duration_seconds_bucket{le="+Inf"} 4"#,
            "gatehouse_request_duration_seconds_count 4",
            "# TYPE gatehouse_db_pool_connections gauge",
            "gatehouse_db_pool_capacity 2",
            "gatehouse_db_pool_waiting 0",
            "# TYPE gatehouse_hashing_queue_depth gauge",
            "gatehouse_hashing_busy_workers 0",
            "gatehouse_hashing_rejected_total 0",
        ] {
            #expect(lines.contains(expected), "\(expected)\n\(response.text)")
        }
        #expect(lines.contains { $0.hasPrefix(#"gatehouse_db_pool_connections{state="idle"} "#) })
        #expect(lines.contains { $0.hasPrefix("gatehouse_request_duration_seconds_sum ") })
        // Buckets are cumulative and end at the count.
        let buckets = lines.filter { $0.hasPrefix("gatehouse_request_duration_seconds_bucket") }
        #expect(buckets.count == 14)
    }

    @Test func appIdRequired() throws {
        let live = try LiveServer { $0.appId = "my-app" }
        for headers in [[], [("X-Parse-Application-Id", "other-app")], [("X-Parse-Application-Id", "")]] as [[(String, String)]] {
            let response = try live.graphQL("{ health }", headers: headers)
            #expect(response.status == 403)
            #expect(response.text == #"{"error":"unauthorized"}"#)
        }
        let get = try live.get("/graphql?query=%7Bhealth%7D")
        #expect(get.status == 403)
        #expect(get.text == #"{"error":"unauthorized"}"#)

        let allowed = try live.graphQL("{ health }", headers: [("X-Parse-Application-Id", "my-app")])
        #expect(allowed.status == 200)
        #expect(try allowed.json() == ["data": ["health": true]])
        // The operational endpoints are not behind the app id.
        #expect(try live.get("/health").status == 200)
    }

    @Test func cors() throws {
        let live = try LiveServer {
            $0.corsOrigins = ["https://app.example.com"]
            $0.appId = "my-app"
        }
        let preflight = try live.connect().request("OPTIONS", "/graphql", headers: [
            ("Origin", "https://app.example.com"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type, x-parse-session-token, x-parse-application-id"),
        ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example.com")
        let allowedHeaders = (preflight.header("Access-Control-Allow-Headers") ?? "").lowercased()
        for header in [
            "content-type", "authorization", "x-parse-application-id", "x-parse-session-token", "x-parse-installation-id",
            "x-parse-master-key",
        ] {
            #expect(allowedHeaders.contains(header), "\(header)")
        }
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)

        let denied = try live.connect().request("OPTIONS", "/graphql", headers: [
            ("Origin", "https://evil.example.com"), ("Access-Control-Request-Method", "POST"),
        ])
        #expect(denied.header("Access-Control-Allow-Origin") == nil)
        #expect(denied.header("Access-Control-Allow-Headers") == nil)

        // Ordinary responses carry Allow-Origin for allowed origins only.
        let post = try live.graphQL("{ health }", headers: [("X-Parse-Application-Id", "my-app"), ("Origin", "https://app.example.com")])
        #expect(post.status == 200)
        #expect(post.header("Access-Control-Allow-Origin") == "https://app.example.com")
        let other = try live.graphQL("{ health }", headers: [("X-Parse-Application-Id", "my-app"), ("Origin", "https://evil.example.com")])
        #expect(other.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func keepAlive() throws {
        let live = try LiveServer()
        let connection = try live.connect()
        let first = try connection.graphQL("{ health }")
        #expect(first.status == 200)
        #expect(first.header("Connection")?.lowercased() != "close")
        let second = try connection.request("GET", "/health")
        #expect(second.status == 200)
        let third = try connection.graphQL("{ health }")
        #expect(try third.json() == ["data": ["health": true]])
    }

    @Test func rateLimit() throws {
        let live = try LiveServer { $0.rateLimitPerAddress = 2 }
        // Three signUp fields in one request: two within the limit, the third refused.
        // Some root field produced a value, so the request stays 200.
        let mixed = try live.graphQL("""
            mutation {
              a: signUp(input: {fields: {username: "ra", password: "larch-ridge-11"}}) { viewer { user { username } } }
              b: signUp(input: {fields: {username: "rb", password: "larch-ridge-11"}}) { viewer { user { username } } }
              c: signUp(input: {fields: {username: "rc", password: "larch-ridge-11"}}) { viewer { user { username } } }
            }
            """)
        #expect(mixed.status == 200)
        #expect(mixed.header("Retry-After") == nil)
        let body = try mixed.json()
        #expect(body.at("data", "a", "viewer", "user", "username") == "ra")
        #expect(body.at("data", "b", "viewer", "user", "username") == "rb")
        #expect(body.at("data", "c") == .null)
        #expect(body["errors"]?[0]?.at("extensions", "code") == 155)

        // Now every root field is refused: HTTP 429 with Retry-After.
        let refused = try live.graphQL(Documents.signUp, variables: Documents.credentials("rd", "larch-ridge-11"))
        #expect(refused.status == 429)
        let retryAfter = try #require(refused.header("Retry-After"))
        #expect((Int(retryAfter) ?? 0) > 0)
        let error = try #require(try refused.json()["errors"]?[0])
        #expect(error["message"] == "Too many requests.")
        #expect(error.at("extensions", "code") == 155)

        // A query is not limited.
        let health = try live.graphQL("{ health viewer { sessionToken } }")
        #expect(health.status == 200)
    }

    @Test func oneLogLinePerRequest() throws {
        let live = try LiveServer()
        _ = try live.graphQL("{ health }", operationName: nil)
        _ = try live.graphQL("query Ping { health }", operationName: "Ping")
        _ = try live.get("/health")
        _ = try live.get("/nope")
        let lines = try live.logs.requestLines()
        #expect(lines.count == 4)
        for line in lines {
            for key in ["time", "level", "method", "path", "status", "duration_ms", "client"] {
                #expect(line[key] != nil, "\(key) in \(line)")
            }
            #expect(line["client"] == "127.0.0.1")
            #expect(line["time"]?.stringValue?.hasSuffix("Z") == true)
        }
        let byPath = Dictionary(grouping: lines) { $0["path"]?.stringValue ?? "" }
        #expect(byPath["/graphql"]?.count == 2)
        #expect(byPath["/graphql"]?.contains { $0["operation"] == "Ping" && $0["method"] == "POST" && $0["status"] == 200 } == true)
        #expect(byPath["/graphql"]?.contains { $0["operation"] == "anonymous query" } == true)
        #expect(byPath["/nope"]?.first?["status"] == 404)
        #expect(byPath["/health"]?.first?["operation"] == nil)
        // Every captured line is one JSON object.
        for line in live.logs.lines {
            #expect((try? JSONParser().parse(Array(line.utf8)))?.objectValue != nil, "\(line)")
        }
    }

    /// Logs and metrics name an operation only by a name found in the document, cut to 100 UTF-8
    /// bytes: a client's `operationName` that names no operation (here one grapheme cluster of
    /// 100,001 bytes) reaches neither.
    @Test func operationNamesInLogsAndMetricsComeFromTheDocumentCutByBytes() throws {
        let live = try LiveServer()
        let madeUp = "a" + String(repeating: "\u{301}", count: 50_000)
        _ = try live.graphQL("{ health }", operationName: madeUp)
        let long = String(repeating: "Q", count: 5000)
        #expect(try live.graphQL("query \(long) { health }", operationName: long).status == 200)
        let lines = try live.logs.requestLines().filter { $0["path"] == "/graphql" }
        #expect(lines.count == 2)
        #expect(lines.contains { $0["operation"] == nil }, "\(lines)")
        #expect(lines.contains { $0["operation"]?.stringValue == String(repeating: "Q", count: 100) }, "\(lines)")
        #expect(!live.logs.text.contains("\u{301}"))
        #expect(live.logs.lines.allSatisfy { $0.utf8.count < 1000 })
        let metrics = try live.get("/metrics").text
        #expect(!metrics.contains("\u{301}"))
        #expect(metrics.contains(#"gatehouse_requests_total{operation="\#(String(repeating: "Q", count: 100))",status="200"} 1"#), "\(metrics)")
    }

    /// A refused credential (here an anonymous id that is empty) is logged as a refusal at info
    /// level with why, not as an internal error: nothing went wrong in the server.
    @Test func aRefusedCredentialIsLoggedAsARefusal() throws {
        let live = try LiveServer()
        let response = try live.graphQL(
            "mutation { logInWith(input: {authData: {anonymous: {id: \"\"}}}) { viewer { sessionToken } } }")
        #expect(try response.json()["errors"]?[0]?.at("extensions", "code") == 101)
        let lines = live.logs.lines.compactMap { (try? JSONParser().parse(Array($0.utf8)))?.objectValue }
        let refusal = try #require(lines.first { $0["msg"] == "credential refused" }, "\(live.logs.text)")
        #expect(refusal["level"] == "info")
        #expect(refusal["detail"]?.stringValue?.hasPrefix("invalid authData for provider anonymous") == true)
        #expect(!lines.contains { $0["msg"] == "internal error" })
    }

    @Test func logsCarryNoSecrets() throws {
        let live = try LiveServer(level: .debug) { $0.masterKey = "master-key-value-42" }
        let password = "Zebra-Password-9137"
        let connection = try live.connect()
        let signUp = try connection.graphQL(
            Documents.signUp, variables: Documents.credentials("secretive", password), operationName: "SignUp",
            headers: [("X-Parse-Installation-Id", "inst-42"), ("X-Parse-Master-Key", "master-key-value-42")])
        let signUpToken = try #require(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue)
        let wrong = try connection.graphQL(Documents.logIn, variables: Documents.credentials("secretive", password + "x"))
        #expect(try wrong.json()["errors"]?[0]?.at("extensions", "code") == 101)
        let logIn = try connection.graphQL(Documents.logIn, variables: Documents.credentials("secretive", password))
        let token = try #require(try logIn.json().at("data", "logIn", "viewer", "sessionToken")?.stringValue)
        #expect(try connection.graphQL(Documents.viewer, headers: [("Authorization", "Bearer \(token)")]).status == 200)
        #expect(try connection.graphQL(Documents.logOut, headers: [("X-Parse-Session-Token", token)]).status == 200)
        #expect(try connection.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)]).status == 200)

        let lines = live.logs.lines
        #expect(try live.logs.requestLines().count == 6)
        for line in lines {
            for secret in [password, token, signUpToken, String(token.dropFirst(2)), "$argon2id$", "master-key-value-42"] {
                #expect(!line.contains(secret), "log line leaks \(secret): \(line)")
            }
        }
    }

    /// The links in mail carry tokens in their query string: the request log names the path only,
    /// for the page, the posted form and a new link asked for.
    @Test func linkPagesLogNoTokens() throws {
        let live = try LiveServer(level: .debug)
        let token = "tok-secret-7d1f0a9c"
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        #expect(try live.get("/verify-email?token=\(token)&username=ann").status == 200)
        #expect(try live.get("/reset-password?token=\(token)&username=ann").status == 200)
        #expect(try live.connect().request("POST", "/verify-email", headers: form, body: Array("username=ann&token=\(token)".utf8)).status == 200)
        #expect(try live.connect().request("POST", "/reset-password", headers: form, body: Array("email=ann%40example.com".utf8)).status == 200)

        let requests = try live.logs.requestLines()
        #expect(requests.map { $0["path"]?.stringValue } == ["/verify-email", "/reset-password", "/verify-email", "/reset-password"])
        for line in live.logs.lines {
            #expect(!line.contains(token), "log line leaks the token: \(line)")
        }
    }
}
