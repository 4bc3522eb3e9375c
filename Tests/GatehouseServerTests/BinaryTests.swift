import Foundation
import Auth
import GraphQL
import Postgres
import Testing
import ServerTestSupport
import TestSupport

/// The built `gatehouse` binary, run as a child process.
@Suite struct BinaryTests {
    /// `gatehouse --port 0` on its own embedded PostgreSQL, a session over HTTP, then SIGTERM
    /// (or SIGINT, as from Ctrl-C).
    @Test(arguments: [SIGTERM, SIGINT])
    func serveAndStopOnSignal(_ signal: Int32) throws {
        let dataDirectory = TemporaryDirectory.make(prefix: "ghbin") + "/data"
        defer { try? FileManager.default.removeItem(atPath: (dataDirectory as NSString).deletingLastPathComponent) }
        let child = try Child(["--port", "0"], environment: childEnvironment([
            "GATEHOUSE_DATA_DIR": dataDirectory, "GATEHOUSE_HASH_COST": "minimum", "GATEHOUSE_SHUTDOWN_TIMEOUT": "5",
        ]))
        defer { child.kill() }

        let listening = child.stdout.wait(timeout: 60) { $0.split(separator: "\n").count >= 2 }
        let lines = try #require(listening?.split(separator: "\n").map(String.init), "stderr: \(child.stderr.text)")
        let prefix = "gatehouse listening on http://127.0.0.1:"
        #expect(lines[0].hasPrefix(prefix) && lines[0].hasSuffix("/graphql"), "\(lines)")
        let port = try #require(Int(lines[0].dropFirst(prefix.count).dropLast("/graphql".count)))
        // The page's address: localhost, where browsers allow passkeys.
        #expect(lines[1] == "the sample app and the explorer: http://localhost:\(port)/", "\(lines)")

        let connection = try HTTPConnection(port: port)
        let signUp = try connection.graphQL(Documents.signUp, variables: Documents.credentials("binary", "larch-ridge-11"))
        let token = try #require(try signUp.json().at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(signUp.text)")
        let viewer = try connection.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)])
        #expect(try viewer.json().at("data", "viewer", "user", "username") == "binary")
        #expect(try connection.graphQL(Documents.logOut, headers: [("X-Parse-Session-Token", token)]).status == 200)
        let after = try connection.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)])
        #expect(try after.json()["errors"]?[0]?.at("extensions", "code") == 209)

        let postmasterPid = dataDirectory + "/pg/postmaster.pid"
        #expect(FileManager.default.fileExists(atPath: postmasterPid), "the embedded cluster runs under the data directory")
        #expect(!processes(matching: dataDirectory).isEmpty, "postgres runs with the data directory on its command line")

        kill(child.pid, signal)
        let status = child.waitForExit(timeout: 30)
        #expect(status == 0, "stderr: \(child.stderr.text)")
        #expect(!FileManager.default.fileExists(atPath: postmasterPid))
        #expect(processes(matching: dataDirectory).isEmpty)
        #expect(child.stderr.text.contains(#""msg":"stopped""#))
        #expect(child.stderr.text.contains(signal == SIGTERM ? #""signal":"SIGTERM""# : #""signal":"SIGINT""#))
    }

    @Test func version() throws {
        let result = try Child.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("gatehouse ") && result.stdout.split(separator: " ").count == 2)
    }

    @Test(arguments: [["--help"], ["help"], ["schema", "--help"], ["migrate", "--help"], ["settings", "--help"]])
    func help(_ arguments: [String]) throws {
        let result = try Child.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage"))
    }

    @Test func serveHelpListsEverySetting() throws {
        let result = try Child.run(["serve", "--help"])
        #expect(result.status == 0)
        let known = [
            "DATABASE_URL", "GATEHOUSE_DATA_DIR", "GATEHOUSE_HOST", "GATEHOUSE_PORT", "GATEHOUSE_APP_ID",
            "GATEHOUSE_MASTER_KEY", "GATEHOUSE_HASH_COST", "GATEHOUSE_RATE_LIMIT_ADDRESS", "GATEHOUSE_CORS_ORIGINS",
            "GATEHOUSE_TRUSTED_PROXIES", "GATEHOUSE_LOG_LEVEL", "GATEHOUSE_SHUTDOWN_TIMEOUT",
        ]
        for name in known { #expect(result.stdout.contains(name), "\(name)") }
        for setting in settingCases {
            #expect(result.stdout.contains("--\(setting.flag) "), "--\(setting.flag)")
            #expect(result.stdout.contains(setting.environment), "\(setting.environment)")
        }
        // Help never shows the master key, even when it is set.
        let withKey = try Child.run(["serve", "--help"], environment: childEnvironment(["GATEHOUSE_MASTER_KEY": "hunter2-key"]))
        #expect(!withKey.stdout.contains("hunter2-key"))
    }

    /// The binary prints the committed settings page (SettingsDocumentationTests compares the
    /// page with the declarations).
    @Test func settingsMarkdown() throws {
        let result = try Child.run(["settings", "--markdown"])
        #expect(result.status == 0, "\(result.stderr)")
        let committed = try String(contentsOfFile: PackagePaths.root + "/docs/settings.md", encoding: .utf8)
        #expect(result.stdout == committed)

        let bare = try Child.run(["settings"])
        #expect(bare.status == 2)
        #expect(bare.stderr.contains("settings needs --markdown"))
    }

    @Test func schemaPrint() throws {
        let result = try Child.run(["schema", "print"])
        #expect(result.status == 0)
        let file = try String(contentsOfFile: PackagePaths.schema, encoding: .utf8)
        func trimmed(_ text: String) -> String {
            var text = Substring(text)
            while text.last == "\n" { text.removeLast() }
            return String(text)
        }
        #expect(trimmed(result.stdout) == trimmed(file))
    }

    @Test func schemaDiff() throws {
        let directory = TemporaryDirectory.make(prefix: "ghsdl")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let old = directory + "/old.graphql", removed = directory + "/removed.graphql", added = directory + "/added.graphql"
        try "type Query { a: String b: Int }\n".write(toFile: old, atomically: true, encoding: .utf8)
        try "type Query { a: String }\n".write(toFile: removed, atomically: true, encoding: .utf8)
        try "type Query { a: String b: Int c: Boolean }\n".write(toFile: added, atomically: true, encoding: .utf8)

        let breaking = try Child.run(["schema", "diff", old, removed])
        #expect(breaking.status == 1)
        #expect(breaking.stdout.contains("BREAKING"))

        let compatible = try Child.run(["schema", "diff", old, added])
        #expect(compatible.status == 0, "\(compatible.stdout)")
        #expect(!compatible.stdout.contains("BREAKING"))

        let missing = try Child.run(["schema", "diff", old, directory + "/absent.graphql"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("absent.graphql"))

        #expect(try Child.run(["schema", "diff", old]).status == 2)
    }

    @Test(arguments: [
        (["--port", "x"], [:], #"GATEHOUSE_PORT (--port) must be a whole number from 0 to 65535, not "x"."#),
        ([], ["GATEHOUSE_PORT": "x"], #"GATEHOUSE_PORT (--port) must be a whole number from 0 to 65535, not "x"."#),
        (["--bogus"], [:], "Unknown option --bogus; see --help."),
        (["migrate", "--pool-size=0"], [:], #"GATEHOUSE_POOL_SIZE (--pool-size) must be a whole number from 1 to 1000, not "0"."#),
        (["frobnicate"], [:], #"unknown command "frobnicate""#),
    ] as [([String], [String: String], String)])
    func invalidInvocationExits2(_ arguments: [String], _ environment: [String: String], _ message: String) throws {
        let result = try Child.run(arguments, environment: childEnvironment(environment))
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func migrate() throws {
        let database = try TestDatabase.create()
        let environment = childEnvironment(["DATABASE_URL": database.connectionString])
        let first = try Child.run(["migrate"], environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("applied") && first.stdout.contains("schema version \(AuthMigrations.all.last!.version)"), "\(first.stdout)")

        let second = try Child.run(["migrate"], environment: environment)
        #expect(second.status == 0)
        #expect(second.stdout.contains("database is up to date (schema version \(AuthMigrations.all.last!.version))"), "\(second.stdout)")

        // The schema is really there.
        let connection = try database.connect()
        defer { connection.close() }
        #expect(try connection.queryFirst("SELECT count(*) FROM users") != nil)
    }
}
