import Foundation
@testable import GatehouseServer
import JSON
import Postgres
import ServerTestSupport
import Synchronization
import TestSupport
import Testing

/// What a failover looks like from one instance: a database that is away or read-only for a
/// while (at start-up or under a running server), and `LISTEN` connections that drop.
@Suite struct ResilienceTests {
    /// A password in the connection string; trust authentication ignores it, and no log line or
    /// error may show it.
    static let password = "pw-never-logged-11"

    /// Starts a server on another thread (its start blocks while it waits for the database).
    final class Starting: Sendable {
        private let outcome = Mutex<Result<GatehouseServer, GatehouseServer.StartError>?>(nil)

        init(_ settings: Settings, _ logs: LogCapture) {
            Thread { [self] in
                let result = Result { () throws(GatehouseServer.StartError) in
                    try GatehouseServer(settings: settings, logger: Logger(level: .info, write: logs.write))
                }
                outcome.withLock { $0 = result }
            }.start()
        }

        /// The outcome, once the start returned or failed.
        var result: Result<GatehouseServer, GatehouseServer.StartError>? { outcome.withLock { $0 } }
    }

    /// The lines saying start-up is waiting for the database.
    static func waitLines(_ logs: LogCapture) -> [String] {
        logs.lines.filter { $0.contains("database not ready for migrations, trying again") }
    }

    /// Started while its database is down (as while the proxy has no primary to route to), the
    /// server waits, logging each attempt, and starts once the database is up.
    @Test func startUpWaitsForTheDatabaseToComeUp() throws {
        let privateCluster = try PrivateTestCluster()
        defer { privateCluster.destroy() }
        let cluster = privateCluster.cluster
        let connectionString = try cluster.start() + " password=\(Self.password)"
        try cluster.stop()
        let logs = LogCapture()
        var settings = Settings.forTest(databaseURL: connectionString)
        settings.databaseWait = 120
        let starting = Starting(settings, logs)
        #expect(eventually { Self.waitLines(logs).count >= 2 })
        #expect(starting.result == nil, "still waiting")
        try cluster.start()
        #expect(eventually { starting.result != nil })
        let server = try #require(try starting.result?.get())
        defer { server.stop() }
        #expect(try HTTPConnection(port: server.port).request("GET", "/ready").status == 200)
        let line = try JSONParser().parse(Array(try #require(Self.waitLines(logs).first).utf8))
        #expect(line["level"] == "warn" && line["attempt"] == 1 && line["retryInSeconds"] != nil)
        #expect(line["error"]?.stringValue?.hasPrefix("database unavailable: cannot connect to PostgreSQL") == true, "\(line)")
        #expect(!logs.text.contains(Self.password))
    }

    /// A database that stays away past `GATEHOUSE_DATABASE_WAIT` stops the start with the last
    /// error, as without waiting; 0 tries once. (How many attempts a wait allows:
    /// `theWaitBoundsTheAttempts`, on a test's clock.)
    @Test(arguments: [0.0, 1.0])
    func startUpGivesUpAfterTheWait(_ seconds: Double) throws {
        let directory = TemporaryDirectory.make(prefix: "ghnodb")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logs = LogCapture()
        var settings = Settings.forTest(databaseURL: "host=\(directory) dbname=gatehouse password=\(Self.password)")
        settings.databaseWait = seconds
        let error = try #require(throws: GatehouseServer.StartError.self) {
            _ = try GatehouseServer(settings: settings, logger: Logger(level: .info, write: logs.write))
        }
        #expect(error.description.hasPrefix("database migration failed: database unavailable: cannot connect to PostgreSQL"), "\(error)")
        #expect(!error.description.contains(Self.password) && !logs.text.contains(Self.password))
        if seconds == 0 { #expect(Self.waitLines(logs).isEmpty) }
    }

    /// Started while its database answers read-only (the proxy still points at the standby), the
    /// server waits instead of exiting on `25006`, and starts once writes are taken: the
    /// read-only connection is not kept.
    @Test func startUpWaitsWhileTheDatabaseIsReadOnly() throws {
        let database = try TestDatabase.create()
        let admin = try database.connect()
        defer { admin.close() }
        try admin.unsafeExecuteScript("ALTER DATABASE \(database.name) SET default_transaction_read_only = on")
        let logs = LogCapture()
        var settings = Settings.forTest(databaseURL: database.connectionString)
        settings.databaseWait = 120
        let starting = Starting(settings, logs)
        #expect(eventually { !Self.waitLines(logs).isEmpty })
        #expect(Self.waitLines(logs).first?.contains("25006 (read_only_sql_transaction)") == true, "\(logs.text)")
        #expect(starting.result == nil, "still waiting")
        try admin.unsafeExecuteScript("ALTER DATABASE \(database.name) RESET default_transaction_read_only")
        #expect(eventually { starting.result != nil })
        let server = try #require(try starting.result?.get())
        defer { server.stop() }
        #expect(logs.text.contains("migration applied"))
    }

    /// Connecting is bounded by the pool timeout (rounded up; libpq's minimum is 2 s), as
    /// waiting for a free connection is: a request that cannot reach a primary fails within it.
    @Test(arguments: [(0.5, 2), (5.0, 5), (7.5, 8)])
    func connectTimeoutFollowsThePoolTimeout(_ poolTimeout: Double, _ connectTimeout: Int) throws {
        var settings = Settings.forTest(databaseURL: "host=/nonexistent dbname=gatehouse")
        settings.poolTimeout = poolTimeout
        let (_, pool, connection) = try GatehouseServer.openDatabase(settings, Logger(level: .error, write: { _ in }))
        defer { pool.close() }
        #expect(connection.connectTimeoutSeconds == connectTimeout)
        #expect(pool.configuration.connection.connectTimeoutSeconds == connectTimeout)
        #expect(pool.configuration.checkoutTimeoutSeconds == poolTimeout)
    }

    /// A wait of 1 s with pauses of 0.25 s, doubled: attempts at 0, 0.25 and 0.75 s, each logged
    /// but the last, whose pause (1 s) would end past the wait, so its error stops the start.
    @Test func theWaitBoundsTheAttempts() throws {
        final class TestTime {
            var now = ContinuousClock.now
        }
        let logs = LogCapture()
        let time = TestTime()
        let start = time.now
        var wait = DatabaseWait(seconds: 1, logger: Logger(level: .info, write: logs.write))
        wait.now = { time.now }
        wait.sleep = { seconds in time.now += .milliseconds(Int(seconds * 1000)) }
        var attempts: [Duration] = []
        let error = try #require(throws: PostgresError.self) {
            try wait.run("migrations") {
                attempts.append(time.now - start)
                throw PostgresError(.databaseUnavailable, message: "connection refused")
            }
        }
        #expect(error.isUnavailable)
        #expect(attempts == [.zero, .milliseconds(250), .milliseconds(750)])
        let lines = try Self.waitLines(logs).map { try JSONParser().parse(Array($0.utf8)) }
        #expect(lines.map { $0["attempt"] } == [1, 2])
        #expect(lines.map { $0["retryInSeconds"] } == [0.25, 0.5])
    }

    /// Only errors that pass by themselves are waited out; any other stops at once.
    @Test func otherErrorsAreNotWaitedOut() throws {
        let logs = LogCapture()
        let runs = Mutex(0)
        let wait = DatabaseWait(seconds: 60, logger: Logger(level: .info, write: logs.write))
        let error = try #require(throws: PostgresError.self) {
            try wait.run("migrations") {
                runs.withLock { $0 += 1 }
                throw PostgresError(.server, message: "syntax error", sqlState: "42601")
            }
        }
        #expect(error.sqlState == "42601")
        #expect(runs.withLock { $0 } == 1)
        #expect(Self.waitLines(logs).isEmpty)
    }
}

extension ResilienceTests {
    /// A `/metrics` sample: `name` with its labels as written (`name{a="b"}`).
    static func sample(_ live: LiveServer, _ name: String) throws -> Double? {
        let text = try live.get("/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    /// Both `LISTEN` connections (session cache, mail wake-ups) come back after their server
    /// processes are killed; the session cache is emptied and serves again, each listener's
    /// reconnect is counted in `/metrics` and logged, and a mail written afterwards is sent at
    /// once (its wake-up arrived).
    @Test func listeningConnectionsComeBackAndTheCacheIsEmptied() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer { $0.smtpURL = smtp.url }
        let sessionReconnects = #"gatehouse_notification_reconnects_total{listener="session_cache"}"#
        let mailReconnects = #"gatehouse_notification_reconnects_total{listener="mail"}"#
        #expect(try eventually { try Self.sample(live, "gatehouse_session_cache_live") == 1 })
        #expect(try Self.sample(live, sessionReconnects) == 0 && Self.sample(live, mailReconnects) == 0)
        let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("lena", "larch-ridge-11"), operationName: "SignUp")
        let token = try #require(try signUp.json()["data"]?["signUp"]?["viewer"]?["sessionToken"]?.stringValue)
        #expect(try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)]).status == 200)
        #expect(try eventually { try Self.sample(live, "gatehouse_session_cache_sessions") == 1 })

        let admin = try Connection(live.server.settings.databaseURL!)
        defer { admin.close() }
        let killed = try admin.query("""
            SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
            WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
            """).count
        #expect(killed == 2)
        #expect(try eventually {
            try Self.sample(live, sessionReconnects) == 1 && Self.sample(live, mailReconnects) == 1
                && Self.sample(live, "gatehouse_session_cache_live") == 1 && live.logs.text.contains("session cache on again")
        })
        #expect(try Self.sample(live, "gatehouse_session_cache_sessions") == 0, "emptied on reconnect")
        for message in [
            "session cache off: notification connection lost", "session cache on again: notification connection restored, cache emptied",
            "mail wake-ups off", "mail wake-ups on again: notification connection restored",
        ] {
            #expect(live.logs.text.contains(message), "\(message)")
        }
        // The cache serves again, and the mail listener hears NOTIFY again.
        #expect(try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)]).status == 200)
        #expect(try eventually { try Self.sample(live, "gatehouse_session_cache_sessions") == 1 })
        let ids = try Outbox(live.server).insert()
        #expect(eventually { smtp.messageIds() == ids })
    }

    /// A database that turns read-only under a running server (a primary demoted, or the proxy
    /// pointing at a standby): `/ready` says so, a write fails with 503 and `Retry-After` (the
    /// client may try again), and once writes are taken again both work with no restart.
    @Test func aReadOnlyDatabaseAnswers503UntilWritesAreTakenAgain() throws {
        let live = try LiveServer()
        let admin = try Connection(live.server.settings.databaseURL!)
        defer { admin.close() }
        let name = try #require(try admin.queryFirst("SELECT current_database()")?.decode(String.self, at: 0))
        try admin.unsafeExecuteScript("ALTER DATABASE \(name) SET default_transaction_read_only = on")
        // The pool's connections were made read-write: end them, so that it reconnects read-only.
        try admin.execute("""
            SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'
            """)
        let ready = try live.get("/ready")
        #expect(ready.status == 503)
        #expect(try ready.json() == ["status": "unavailable", "reason": "database read-only"])
        let refused = try live.graphQL(Documents.signUp, variables: Documents.credentials("mira", "larch-ridge-11"), operationName: "SignUp")
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.header("Retry-After") == "1")
        #expect(try refused.json()["errors"]?[0]?["extensions"]?["code"] == 1)

        try admin.unsafeExecuteScript("ALTER DATABASE \(name) RESET default_transaction_read_only")
        #expect(try eventually { try live.get("/ready").status == 200 })
        let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("mira", "larch-ridge-11"), operationName: "SignUp")
        #expect(try signUp.status == 200 && signUp.json()["errors"] == nil, "\(signUp.text)")
    }
}

extension ResilienceTests {
    /// `GATEHOUSE_POLL_INTERVAL` above 0 (engines without LISTEN/NOTIFY and session advisory
    /// locks), on plain PostgreSQL: no connection listens, migrations took the row lock, a
    /// session ended elsewhere stops being served from the cache within the bound, and mail
    /// written elsewhere is sent without a wake-up.
    @Test func withoutNotificationsTheServerPolls() throws {
        let smtp = try SMTPTestServer.start()
        let live = try LiveServer {
            $0.smtpURL = smtp.url
            $0.pollInterval = 1
        }
        let admin = try Connection(live.server.settings.databaseURL!)
        defer { admin.close() }
        let listening = try admin.queryFirst(
            "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'")
        #expect(try listening?.decode(Int.self, at: 0) == 0)
        #expect(try admin.queryFirst("SELECT count(*)::int8 FROM schema_migrations_lock")?.decode(Int.self, at: 0) == 1)
        #expect(live.logs.text.contains(#""msg":"session cache without notifications""#) && live.logs.text.contains(#""ttlSeconds":1"#))
        let metrics = try live.get("/metrics").text
        #expect(metrics.contains("gatehouse_session_cache_live 1") && !metrics.contains("gatehouse_notification_reconnects_total"))

        let signUp = try live.graphQL(Documents.signUp, variables: Documents.credentials("nora", "larch-ridge-11"), operationName: "SignUp")
        let token = try #require(try signUp.json()["data"]?["signUp"]?["viewer"]?["sessionToken"]?.stringValue)
        let viewer = { try live.graphQL(Documents.viewer, headers: [("X-Parse-Session-Token", token)]).json()["errors"]?[0]?["extensions"]?["code"] }
        #expect(try viewer() == nil)
        #expect(try eventually { try Self.sample(live, "gatehouse_session_cache_sessions") == 1 })
        // Ended by another instance: no notification comes; the cache forgets it within the bound.
        try admin.execute("DELETE FROM sessions")
        #expect(try eventually { try viewer() == 209 })

        let ids = try Outbox(live.server).insert()
        #expect(eventually { smtp.messageIds() == ids })
    }

    /// An engine without NOTIFY, played by plain PostgreSQL: the database's `search_path` puts a
    /// `pg_notify` that fails ahead of `pg_catalog`'s. Polling, every write that fires a change
    /// trigger works and the mail goes out; listening, on the same database, those writes fail.
    @Test func withoutNotificationsNoWriteCallsPgNotify() throws {
        let database = try TestDatabase.create()
        let setup = try database.connect()
        try setup.unsafeExecuteScript("""
            CREATE SCHEMA nonotify;
            CREATE FUNCTION nonotify.pg_notify(text, text) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'this engine has no NOTIFY';
            END
            $$;
            ALTER DATABASE \(database.name) SET search_path = public, nonotify, pg_catalog;
            """)
        setup.close()
        let admin = try database.connect()
        defer { admin.close() }
        let shadowed = try #require(throws: PostgresError.self) { try admin.execute("SELECT pg_notify('x', 'y')") }
        #expect(shadowed.message == "this engine has no NOTIFY")

        let smtp = try SMTPTestServer.start()
        // Without security notices: the sign-ins from three devices below would each add one, and
        // the reset mail is the one whose delivery the test follows.
        let polling = try LiveServer {
            $0.databaseURL = database.connectionString
            $0.smtpURL = smtp.url
            $0.pollInterval = 1
            $0.securityNotices = false
        }
        func call(_ live: LiveServer, _ document: String, _ token: String? = nil, userAgent: String = "Laptop/1.0") throws -> JSON {
            var headers = [("User-Agent", userAgent)]
            if let token { headers.append(("X-Parse-Session-Token", token)) }
            return try live.graphQL(document, headers: headers).json()
        }
        func viewerError(_ live: LiveServer, _ token: String) throws -> JSON? {
            try call(live, Documents.viewer, token)["errors"]?[0]?.at("extensions", "code")
        }
        let logIn = #"mutation { logIn(input: {username: "nora", password: "larch-ridge-11"}) { viewer { sessionToken } } }"#
        let updateUser = { (id: String, name: String) in
            "mutation { updateUser(input: {id: \"\(id)\", fields: {username: \"\(name)\"}}) { user { username } } }"
        }
        let resetPassword = #"mutation { resetPassword(input: {email: "nora@example.com"}) { ok } }"#

        let signUp = try call(polling, """
            mutation { signUp(input: {fields: {username: "nora", password: "larch-ridge-11", email: "nora@example.com"}}) {
              viewer { sessionToken user { objectId } } } }
            """)
        let laptop = try #require(signUp.at("data", "signUp", "viewer", "sessionToken")?.stringValue, "\(signUp)")
        let userId = try #require(signUp.at("data", "signUp", "viewer", "user", "objectId")?.stringValue)
        let phone = try #require(try call(polling, logIn, userAgent: "Phone/1.0").at("data", "logIn", "viewer", "sessionToken")?.stringValue)
        let tablet = try #require(try call(polling, logIn, userAgent: "Tablet/1.0").at("data", "logIn", "viewer", "sessionToken")?.stringValue)

        let renamed = try call(polling, updateUser(userId, "nora2"), laptop)
        #expect(renamed.at("data", "updateUser", "user", "username") == "nora2", "\(renamed)")
        let renamedBack = try call(polling, updateUser(userId, "nora"), laptop)
        #expect(renamedBack.at("data", "updateUser", "user", "username") == "nora", "\(renamedBack)")
        let list = try call(polling, SessionsLiveTests.sessions, laptop).at("data", "viewer", "sessions")?.arrayValue ?? []
        let phoneId = try #require(list.first { $0["userAgent"] == "Phone/1.0" }?["id"]?.stringValue, "\(list)")
        let revoked = try polling.graphQL(
            SessionsLiveTests.revoke, variables: ["id": .string(phoneId)], headers: [("X-Parse-Session-Token", laptop)]).json()
        #expect(revoked.at("data", "revokeSession", "ok") == true, "\(revoked)")
        #expect(try viewerError(polling, phone) == 209)
        let reset = try call(polling, resetPassword)
        #expect(reset.at("data", "resetPassword", "ok") == true, "\(reset)")
        let loggedOut = try call(polling, Documents.logOut, laptop)
        #expect(loggedOut.at("data", "logOut", "ok") == true, "\(loggedOut)")
        #expect(try viewerError(polling, laptop) == 209)
        #expect(try eventually {
            try admin.queryFirst("SELECT count(*)::int8 FROM mail_outbox WHERE kind = 'reset_password' AND state = 'sent'")?
                .decode(Int.self, at: 0) == 1
        })
        #expect(smtp.messageIds().count == 1)

        // Listening, the same writes meet the failing pg_notify and are rolled back.
        let listening = try LiveServer { $0.databaseURL = database.connectionString }
        #expect(try call(listening, updateUser(userId, "nora3"), tablet)["errors"]?[0]?.at("extensions", "code") == 1)
        #expect(try call(listening, resetPassword)["errors"]?[0]?.at("extensions", "code") == 1)
        #expect(try call(listening, Documents.logOut, tablet)["errors"]?[0]?.at("extensions", "code") == 1)
        #expect(try viewerError(listening, tablet) == nil)
        #expect(try admin.queryFirst("SELECT username FROM users")?.decode(String.self, at: 0) == "nora")
        #expect(try admin.queryFirst("SELECT count(*)::int8 FROM mail_outbox")?.decode(Int.self, at: 0) == 1)
        #expect(listening.logs.text.contains("PostgreSQL error P0001"), "the raised error, logged by its SQLSTATE")
    }
}

extension ResilienceTests {
    /// A streaming standby of `primary` (running), by `pg_basebackup -R`; not started.
    static func standby(of primary: PrivateTestCluster) throws -> PrivateTestCluster {
        // Only socket connections, trusted; replication needs its own entry.
        let hba = try FileHandle(forWritingTo: URL(fileURLWithPath: primary.cluster.clusterDirectory + "/pg_hba.conf"))
        hba.seekToEndOfFile()
        hba.write(Data("local replication all trust\n".utf8))
        try hba.close()
        let primaryAdmin = try Connection(primary.cluster.connectionString(database: "postgres"))
        defer { primaryAdmin.close() }
        _ = try primaryAdmin.query("SELECT pg_reload_conf()")

        let standbyDirectory = TemporaryDirectory.make(prefix: "ghstandby")
        if getuid() == 0 {
            let account = try ServiceAccount.ensure()
            #expect(chown(standbyDirectory, account.uid, account.gid) == 0)
        }
        let standby = try PrivateTestCluster(dataDirectory: standbyDirectory)
        let (status, output) = try runPostgresTool("pg_basebackup", [
            "-D", standby.cluster.clusterDirectory, "-R", "--no-sync", "-X", "stream", "--checkpoint=fast",
            "-h", primary.cluster.socketDirectory, "-p", String(primary.cluster.options.port), "-U", primary.cluster.options.user,
        ])
        #expect(status == 0, "\(output)")
        return standby
    }

    /// Runs a PostgreSQL client program (from `pg_config --bindir`) as the clusters' account when
    /// root (as the clusters' files belong to it); returns its exit status and output.
    static func runPostgresTool(_ tool: String, _ arguments: [String]) throws -> (status: Int32?, output: String) {
        let bin = try Child.run(executable: "/usr/bin/pg_config", ["--bindir"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = getuid() == 0
            ? try Child.run(executable: "/usr/sbin/runuser", ["-u", ServiceAccount.name, "--", bin + "/" + tool] + arguments)
            : try Child.run(executable: bin + "/" + tool, arguments)
        return (result.status, result.stdout + result.stderr)
    }

    /// The issue's case, with a real standby: started while the proxy still points at the standby
    /// (`pg_is_in_recovery()`), the server waits instead of exiting on `25006`, and starts on
    /// the same connection string once the standby is promoted.
    @Test func startUpWaitsForTheStandbyToBePromoted() throws {
        let primary = try PrivateTestCluster()
        defer { primary.destroy() }
        try primary.cluster.start()
        let standby = try Self.standby(of: primary)
        defer { standby.destroy() }
        let standbyURL = try standby.cluster.start()
        let standbyAdmin = try Connection(standbyURL)
        defer { standbyAdmin.close() }
        #expect(try standbyAdmin.queryFirst("SELECT pg_is_in_recovery()")?.decode(Bool.self, at: 0) == true)

        let logs = LogCapture()
        var settings = Settings.forTest(databaseURL: standbyURL)
        settings.databaseWait = 120
        let starting = Starting(settings, logs)
        #expect(eventually { Self.waitLines(logs).count >= 2 })
        #expect(Self.waitLines(logs).first?.contains("25006 (read_only_sql_transaction)") == true, "\(logs.text)")
        #expect(starting.result == nil, "still waiting")
        #expect(try standbyAdmin.queryFirst("SELECT pg_promote()")?.decode(Bool.self, at: 0) == true)
        #expect(eventually { starting.result != nil })
        let server = try #require(try starting.result?.get())
        defer { server.stop() }
        #expect(logs.text.contains("migration applied"))
        #expect(try HTTPConnection(port: server.port).request("GET", "/ready").status == 200)
    }
}
