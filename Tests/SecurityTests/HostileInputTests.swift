import Foundation
import GatehouseServer
import Synchronization
import Testing
import ServerTestSupport
import TestSupport

/// Hostile input over real HTTP: every case gets a clear error (a GraphQL error with a
/// code, or the right status), and the server stays healthy afterwards.
@Suite(.serialized) struct HostileInputTests {
    final class Server: Sendable {
        let server: GatehouseServer
        let capture = LogCapture()

        init() throws {
            var settings = Settings()
            settings.databaseURL = try TestDatabase.create().connectionString
            settings.secretKey = InProcessServer.secretKey
            settings.port = 0
            settings.hashCost = "minimum"
            settings.rateLimitPerAddress = 0
            settings.rateLimitPerAccount = 0
            settings.connectionTimeout = 2
            settings.logLevel = .debug
            server = try GatehouseServer(settings: settings, logger: Logger(level: .debug, write: capture.write))
        }

        var port: Int { server.port }
        var log: String { capture.text }
    }

    static let shared: Server = try! Server()

    func client() throws -> HTTPConnection { try HTTPConnection(port: Self.shared.port) }


    /// The server still answers a health check and a whole sign-up/viewer round trip.
    func expectHealthy() throws {
        let client = try client()
        #expect(try client.request("GET", "/health").status == 200)
        let name = "healthy" + String(UInt32.random(in: 0...UInt32.max))
        let signUp = try client.post(#"{"query":"mutation { signUp(input: {fields: {username: \"\#(name)\", password: \"larch-ridge-123\"}}) { viewer { sessionToken } } }"}"#)
        #expect(signUp.status == 200 && signUp.text.contains("sessionToken"), "\(signUp.text)")
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{0}"..."\u{1F}": out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static let metacharacters = [
        "'; DROP TABLE users; --", "\" OR 1=1 --", "x' OR 'a'='a", "\\", "$1", "%", "_", "a\u{0}b", "\u{0}",
        "'||pg_sleep(5)||'", "\u{202E}evil", "😀🚀", String(repeating: "'", count: 300),
    ]

    @Test(arguments: metacharacters)
    func metacharactersAndNULsInEveryStringArgument(value: String) throws {
        let client = try client()
        let quoted = Self.quote(value)
        // signUp: as username, password, email and clientMutationId, through variables.
        for field in ["username", "password", "email"] {
            var fields = [#""username": "meta\#(UInt32.random(in: 0...UInt32.max))""#, #""password": "larch-ridge-123""#]
            if field == "username" { fields[0] = "\"username\": \(quoted)" }
            if field == "password" { fields[1] = "\"password\": \(quoted)" }
            if field == "email" { fields.append("\"email\": \(quoted)") }
            let body = #"{"query":"mutation($f: CreateUserFieldsInput, $c: String) { signUp(input: {fields: $f, clientMutationId: $c}) { viewer { user { username email } } clientMutationId } }","variables":{"f":{\#(fields.joined(separator: ","))},"c":\#(quoted)}}"#
            let response = try client.post(body)
            #expect(response.status == 200)
            // Either it worked (stored literally) or a specific Parse code came back; never code 1.
            #expect(!response.text.contains("\"code\":1}"), "internal error for \(field)=\(value.debugDescription): \(response.text)")
            #expect(response.text.contains("\"data\""))
        }
        // logIn with it as username and as password: a plain 101 (or 200/201 when empty).
        let logIn = try client.post(#"{"query":"mutation($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) { viewer { sessionToken } } }","variables":{"u":\#(quoted),"p":\#(quoted)}}"#)
        #expect(logIn.status == 200)
        #expect(logIn.text.contains("\"code\":101") || logIn.text.contains("\"code\":200") || logIn.text.contains("\"code\":201"), "\(logIn.text)")
        // As a session token.
        let viewer = try client.request("POST", "/graphql", headers: [("Content-Type", "application/json"), ("Authorization", "Bearer " + value.filter { $0 != "\u{0}" && $0 != "\r" && $0 != "\n" })], body: Array(#"{"query":"{ viewer { user { username } } }"}"#.utf8))
        #expect(viewer.status == 200)
        #expect(viewer.text.contains("\"code\":209"), "\(viewer.text)")
    }

    @Test func aMetacharacterUsernameIsStoredLiterally() throws {
        let client = try client()
        let name = "o'brien\"; --" + String(UInt32.random(in: 0...UInt32.max))
        let response = try client.post(#"{"query":"mutation($f: CreateUserFieldsInput) { signUp(input: {fields: $f}) { viewer { user { username } } } }","variables":{"f":{"username":\#(Self.quote(name)),"password":"larch-ridge-123"}}}"#)
        #expect(response.text.contains(Self.quote(name).replacingOccurrences(of: "\\\"", with: "\\\"")), "\(response.text)")
        let logIn = try client.post(#"{"query":"mutation($u: String!) { logIn(input: {username: $u, password: \"larch-ridge-123\"}) { viewer { user { username } } } }","variables":{"u":\#(Self.quote(name.uppercased()))}}"#)
        #expect(logIn.text.contains("sessionToken") || logIn.text.contains("\"username\""), "\(logIn.text)")
    }

    @Test func hugeBodiesAndStrings() throws {
        let tenMegabytes = String(repeating: "a", count: 10 << 20)
        // 10 MB string argument: the body is over the limit.
        let response = try client().post(#"{"query":"mutation { logIn(input: {username: \"\#(tenMegabytes)\", password: \"x\"}) { viewer { sessionToken } } }"}"#)
        #expect(response.status == 413)
        // 10 MB string as a variable.
        let variables = try client().post(#"{"query":"{ health }","variables":{"x":"\#(tenMegabytes)"}}"#)
        #expect(variables.status == 413)
        // A document over the document limit but within the body limit.
        let document = "{ health " + String(repeating: "health ", count: 12_000) + "}"
        let large = try client().post(#"{"query":"\#(document)"}"#)
        #expect(large.status == 413)
        try expectHealthy()
    }

    @Test(arguments: [
        ("deep nesting (30 levels)", String(repeating: "{ viewer ", count: 30) + "{ a" + String(repeating: " }", count: 31), 200),
        ("nesting past the parser limit", String(repeating: "{ a ", count: 200) + String(repeating: "}", count: 200), 200),
        ("deep list value", "{ health(x: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + ") }", 200),
        ("alias bomb", "{ " + (0..<2000).map { "a\($0): health" }.joined(separator: " ") + " }", 200),
        ("token bomb", "{ " + String(repeating: "a ", count: 11_000) + "}", 200),
    ])
    func queryShapeBombsGetClearErrors(name: String, query: String, status: Int) throws {
        let response = try client().post(#"{"query":\#(Self.quote(query))}"#)
        #expect(response.status == status, "\(name)")
        #expect(response.text.hasPrefix("{\"errors\":[{\"message\":"), "\(name): \(response.text.prefix(300))")
        #expect(!response.text.contains("\"data\""), "\(name) must not execute")
        try expectHealthy()
    }

    @Test func fragmentBombFinishesAndIsRefused() throws {
        // Each fragment spreads the next twice: 2^30 fields if expanded naively.
        var fragments = ""
        for i in 0..<30 { fragments += "fragment F\(i) on Query { ...F\(i + 1) ...F\(i + 1) } " }
        fragments += "fragment F30 on Query { health }"
        let response = try client().post(#"{"query":\#(Self.quote("{ ...F0 } " + fragments))}"#)
        #expect(response.status == 200)
        #expect(response.text.contains("errors") || response.text.contains("\"health\":true"))
        try expectHealthy()
    }

    @Test func hugeVariableObjects() throws {
        let keys = (0..<5000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let response = try client().post(#"{"query":"mutation($i: LogInInput!) { logIn(input: $i) { viewer { sessionToken } } }","variables":{"i":{\#(keys)}}}"#)
        #expect(response.status == 200)
        #expect(response.text.contains("Variable \\\"$i\\\" got invalid value"), "\(response.text.prefix(300))")
        let deep = String(repeating: "{\"a\":", count: 5000) + "1" + String(repeating: "}", count: 5000)
        let nested = try client().post(#"{"query":"{ health }","variables":{"x":\#(deep)}}"#)
        #expect(nested.status == 400)
        try expectHealthy()
    }

    @Test func invalidUTF8AndMalformedJSON() throws {
        var body = Array(#"{"query":"{ health }", "x": ""#.utf8)
        body += [0xFF, 0xFE, 0xC0, 0xAF]
        body += Array(#""}"#.utf8)
        let response = try client().request("POST", "/graphql", headers: [("Content-Type", "application/json")], body: body)
        #expect(response.status == 400)
        #expect(response.text.contains("not valid JSON"))
        for malformed in ["{", "{\"query\":", "null", "[]", "{\"query\": \"{ health }\",}", "\u{0}"] {
            #expect(try client().request("POST", "/graphql", headers: [("Content-Type", "application/json")], body: Array(malformed.utf8)).status == 400)
        }
        try expectHealthy()
    }

    @Test func headerInjectionStaysInTheBody() throws {
        let response = try client().post(#"{"query":"mutation { logOut(input: {clientMutationId: \"x\\r\\nSet-Cookie: evil=1\\r\\n\\r\\n<html>\"}) { ok clientMutationId } }","operationName":null}"#)
        #expect(response.status == 200)
        #expect(response.header("Set-Cookie") == nil)
        #expect(response.text.contains(#"x\r\nSet-Cookie: evil=1"#))
        // An operation name with line breaks is one JSON-escaped log field, not a new log line.
        _ = try client().post(#"{"query":"query Q { health }","operationName":"Q\n{\"level\":\"error\"}"}"#)
        let injected = Self.shared.log.split(separator: "\n").filter { $0.hasPrefix("{\"level\":\"error\"}") }
        #expect(injected.isEmpty)
        try expectHealthy()
    }

    @Test(arguments: ["text/plain", "application/xml", "multipart/form-data; boundary=x", "application/json; charset=iso-8859-1", ""])
    func wrongContentTypes(contentType: String) throws {
        var headers: [(String, String)] = []
        if !contentType.isEmpty { headers.append(("Content-Type", contentType)) }
        #expect(try client().request("POST", "/graphql", headers: headers, body: Array(#"{"query":"{ health }"}"#.utf8)).status == 415)
    }

    @Test func secretsNeverReachTheLog() throws {
        let client = try client()
        let password = "Sup3r-Secret-" + String(UInt32.random(in: 0...UInt32.max))
        let name = "secret" + String(UInt32.random(in: 0...UInt32.max))
        let signUp = try client.post(#"{"query":"mutation { signUp(input: {fields: {username: \"\#(name)\", password: \"\#(password)\"}}) { viewer { sessionToken } } }"}"#)
        let token = try #require(signUp.text.split(separator: "\"").first { $0.hasPrefix("r:") }.map(String.init))
        _ = try client.post(#"{"query":"mutation { logIn(input: {username: \"\#(name)\", password: \"wrong-\#(password)\"}) { viewer { sessionToken } } }"}"#)
        _ = try client.post(#"{"query":"{ viewer { user { username } } }"}"#, headers: [("X-Parse-Session-Token", token)])
        _ = try client.post(#"{"query":"mutation { logOut(input: {}) { ok } }"}"#, headers: [("X-Parse-Session-Token", token)])
        let log = Self.shared.log
        #expect(!log.isEmpty)
        #expect(!log.contains(password))
        #expect(!log.contains(token))
        #expect(!log.contains("$argon2id$"))
    }
}

extension HTTPConnection {
    /// POSTs a JSON body, given as text, to /graphql.
    func post(_ json: String, headers: [(String, String)] = []) throws -> RawResponse {
        try request("POST", "/graphql", headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
    }
}
