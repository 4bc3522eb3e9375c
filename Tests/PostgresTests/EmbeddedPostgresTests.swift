import Foundation
import Postgres
import ServerTestSupport
import TestSupport
import Testing

@Suite struct EmbeddedPostgresTests {
    @Test func clusterIsReusedAcrossRestartsAndDataSurvives() throws {
        let privateCluster = try PrivateTestCluster()
        defer { privateCluster.destroy() }
        let cluster = privateCluster.cluster
        #expect(!cluster.isInitialized)
        let conninfo = try cluster.start()
        #expect(cluster.isInitialized && cluster.isRunning)
        do {
            let c = try Connection(conninfo)
            try c.unsafeExecuteScript("CREATE TABLE kept (v text)")
            try c.execute("INSERT INTO kept VALUES (\("survives"))")
        }
        try cluster.stop()
        #expect(!cluster.isRunning)

        // A new instance over the same directory (as a restarted gatehouse would make).
        let again = try EmbeddedPostgres(options: cluster.options)
        try again.start()
        let c = try Connection(again.connectionString)
        let row = try #require(try c.queryFirst("SELECT v FROM kept"))
        #expect(try row.decode(String.self, at: 0) == "survives")
        c.close()
        try again.stop()
    }

    @Test func listensOnlyOnItsSocketWithLocalTrust() throws {
        let privateCluster = try PrivateTestCluster()
        defer { privateCluster.destroy() }
        let cluster = privateCluster.cluster
        let c = try Connection(try cluster.start())
        defer { c.close() }
        func setting(_ name: String) throws -> String {
            try #require(try c.queryFirst("SELECT current_setting(\(name))")).decode(String.self, at: 0)
        }
        #expect(try setting("listen_addresses") == "")
        #expect(try setting("unix_socket_directories") == cluster.socketDirectory)
        #expect(try setting("server_encoding") == "UTF8")
        #expect(try setting("fsync") == "off")
        let rules = try c.query("SELECT type FROM pg_hba_file_rules").map { try $0.decode(String?.self, at: 0) }
        #expect(rules == ["local"])
        #expect(cluster.connectionString.contains("host='\(cluster.socketDirectory)'"))
    }

    @Test func stalePidFileAfterACrashIsHandled() throws {
        let privateCluster = try PrivateTestCluster()
        defer { privateCluster.destroy() }
        let cluster = privateCluster.cluster
        try cluster.start()
        let pid = try #require(cluster.postmasterPID)
        // Simulate a crash: kill the postmaster outright (SIGKILL), leaving postmaster.pid behind.
        kill(pid, SIGKILL)
        eventually { kill(pid, 0) != 0 }
        // Children notice the postmaster is gone and exit; wait for them to release shared memory.
        eventually(timeout: .seconds(5)) { (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) == nil }
        let pidFile = cluster.clusterDirectory + "/postmaster.pid"
        #expect(FileManager.default.fileExists(atPath: pidFile))
        // Point the stale file at a live process that is not postgres (this test process).
        let contents = try String(contentsOfFile: pidFile, encoding: .utf8)
        let rest = contents.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        try (["\(getpid())"] + rest).joined(separator: "\n").write(toFile: pidFile, atomically: false, encoding: .utf8)

        var started = false
        for _ in 0..<50 where !started {
            // Orphaned backends may hold shared memory for a moment after a SIGKILL.
            if (try? cluster.start()) != nil { started = true } else { usleep(100_000) }
        }
        #expect(started)
        let c = try Connection(cluster.connectionString)
        #expect(try #require(try c.queryFirst("SELECT 1")).decode(Int.self, at: 0) == 1)
        c.close()
    }

    /// A socket under a long data directory path would not fit `sun_path`: the socket directory is
    /// a fresh one in /tmp (a name no other user can guess and make first), found again by an
    /// instance that adopts the running server, and removed at stop.
    @Test func longDataDirectoryGetsAFreshShortSocketDirectory() throws {
        let base = TemporaryDirectory.make(prefix: "ghlong")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let deep = base + "/" + String(repeating: "d", count: 60) + "/" + String(repeating: "e", count: 40)
        let cluster = try EmbeddedPostgres(options: .init(dataDirectory: deep, durable: false))
        #expect(try EmbeddedPostgres(options: .init(dataDirectory: "/tmp/x")).socketDirectory == "/tmp/x/run")
        defer { if (try? cluster.stop()) == nil { cluster.signalFastShutdown() } }
        let c = try Connection(try cluster.start())
        c.close()
        let directory = cluster.socketDirectory
        #expect(directory.hasPrefix("/tmp/gatehouse-") && (directory + "/.s.PGSQL.5432").utf8.count < 108)
        var info = stat()
        #expect(lstat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700 && info.st_uid == ServiceAccount.lookup()?.uid)

        let adopting = try EmbeddedPostgres(options: cluster.options)
        try adopting.start()
        #expect(adopting.socketDirectory == directory, "the running server's, from postmaster.pid")
        try adopting.stop()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    /// As root (this test process) the cluster's files are written by root: a link planted where
    /// `gatehouse.conf` goes is refused and its target untouched. `PG_VERSION` stands for a
    /// created cluster, so no initdb runs.
    @Test func symlinkedSettingsFileIsRefused() throws {
        let base = TemporaryDirectory.make(prefix: "ghlink")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let target = base + "/victim"
        try "untouched\n".write(toFile: target, atomically: false, encoding: .utf8)
        let cluster = try EmbeddedPostgres(options: .init(dataDirectory: base + "/data", durable: false))
        try FileManager.default.createDirectory(atPath: cluster.clusterDirectory, withIntermediateDirectories: true)
        try "15\n".write(toFile: cluster.clusterDirectory + "/PG_VERSION", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: cluster.clusterDirectory + "/gatehouse.conf", withDestinationPath: target)
        let error = try #require(throws: PostgresError.self) { try cluster.start() }
        #expect(error.message.contains("gatehouse.conf: it is a symbolic link"), "\(error.message)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "untouched\n")
    }

    /// A data directory of an earlier version (owned by root or `postgres`) is handed to the
    /// account with everything in it, like `chown -hR`: links are changed themselves, never their
    /// targets, and files of other users are left alone.
    @Test func dataDirectoryIsHandedToTheAccountWithoutFollowingLinks() throws {
        let account = try ServiceAccount.ensure()
        let base = TemporaryDirectory.make(prefix: "ghown")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let data = base + "/data", outside = base + "/outside"
        try FileManager.default.createDirectory(atPath: data + "/pg/base", withIntermediateDirectories: true)
        try "x".write(toFile: outside, atomically: false, encoding: .utf8)
        try "x".write(toFile: data + "/pg/base/file", atomically: false, encoding: .utf8)
        try "x".write(toFile: data + "/pg/theirs", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: data + "/pg/link", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: data + "/dirlink", withDestinationPath: base)
        chown(data + "/pg/theirs", 65534, 65534)
        if let postgres = getpwnam("postgres") { chown(data + "/pg", postgres.pointee.pw_uid, postgres.pointee.pw_gid) }

        #expect(try EmbeddedPostgres.prepareForAccount(dataDirectory: data, account: account) == data)
        func owner(_ path: String) -> uid_t? {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_uid : nil
        }
        for path in [data, data + "/pg", data + "/pg/base", data + "/pg/base/file", data + "/pg/link", data + "/dirlink"] {
            #expect(owner(path) == account.uid, "\(path)")
        }
        #expect(owner(data + "/pg/theirs") == 65534)
        #expect(owner(outside) == 0)
        #expect(owner(base) == 0)
    }

    @Test func missingBinariesNameTheDebianPackage() throws {
        let error = try #require(throws: PostgresError.self) {
            _ = try EmbeddedPostgres(options: .init(dataDirectory: "/tmp/unused", binDirectory: "/nonexistent/bin"))
        }
        #expect(error.kind == .embedded)
        #expect(error.message.contains("`postgresql`"))
    }
}
