import Foundation
import HTTPServer
import Postgres
import Testing
import TestSupport

/// Least privilege (contract, Hardening): the `gatehouse` binary started as root (as this test
/// process is) runs its server and its embedded PostgreSQL as the `gatehouse` account.
@Suite struct PrivilegeTests {
    /// Port 0 gives root up before anything listens; a port below 1024 is opened first, as root.
    @Test(arguments: [false, true])
    func serverAndClusterRunAsTheAccount(privilegedPort: Bool) throws {
        try #require(getuid() == 0, "this test starts the binary as root")
        let account = try ServiceAccount.ensure()
        let base = TemporaryDirectory.make(prefix: "ghroot")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let dataDirectory = base + "/data"
        let masterKey = "master-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let port = privilegedPort ? try #require(freePrivilegedPort()) : 0
        let child = try Child(["--port", String(port)], environment: childEnvironment([
            "GATEHOUSE_DATA_DIR": dataDirectory, "GATEHOUSE_HASH_COST": "minimum", "GATEHOUSE_MASTER_KEY": masterKey,
            "GATEHOUSE_SHUTDOWN_TIMEOUT": "5",
        ]))
        defer { child.kill() }
        let listening = child.stdout.wait(timeout: 60) { $0.contains("\n") }
        let line = try #require(listening?.split(separator: "\n").first.map(String.init), "stderr: \(child.stderr.text)")
        let served = try #require(Int(line.dropFirst("gatehouse listening on http://127.0.0.1:".count).dropLast("/graphql".count)))
        #expect(port == 0 || served == port)
        #expect(try HTTPConnection(port: served).graphQL("{ health }").status == 200)

        let server = try Credentials(pid: child.pid)
        #expect(server == Credentials(account), "server: \(server)")
        // Having been root, the server is not dumpable: its /proc entries stay root's, so the
        // account's other processes (PostgreSQL's) cannot read its environment or memory.
        var procEntry = stat()
        #expect(stat("/proc/\(child.pid)/environ", &procEntry) == 0 && procEntry.st_uid == 0)
        let pidFile = try String(contentsOfFile: dataDirectory + "/pg/postmaster.pid", encoding: .utf8)
        let postmaster = try #require(pidFile.split(separator: "\n").first.flatMap { pid_t($0) })
        let cluster = [postmaster] + children(of: postmaster)
        #expect(cluster.count > 1, "the postmaster and its background processes")
        for pid in cluster {
            #expect(try Credentials(pid: pid) == Credentials(account), "postgres process \(pid)")
        }
        let environment = try String(contentsOfFile: "/proc/\(postmaster)/environ", encoding: .utf8).split(separator: "\0")
        #expect(!environment.contains { $0.contains(masterKey) })
        #expect(!environment.contains { $0.hasPrefix("GATEHOUSE_") || $0.hasPrefix("DATABASE_URL=") }, "\(environment)")
        var info = stat()
        #expect(lstat(dataDirectory, &info) == 0 && info.st_uid == account.uid, "the data directory belongs to the account")

        kill(child.pid, SIGTERM)
        #expect(child.waitForExit(timeout: 30) == 0, "stderr: \(child.stderr.text)")
    }

    /// A link planted where `gatehouse.conf` goes (as anyone running code as the account could):
    /// start-up stops with the reason, and the link's target is untouched. A `PG_VERSION` file
    /// stands for a created cluster, so no initdb runs.
    @Test func symlinkedSettingsFileIsRefused() throws {
        let base = TemporaryDirectory.make(prefix: "ghlink")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let target = base + "/victim"
        try "untouched\n".write(toFile: target, atomically: false, encoding: .utf8)
        let cluster = base + "/data/pg"
        try FileManager.default.createDirectory(atPath: cluster, withIntermediateDirectories: true)
        try "15\n".write(toFile: cluster + "/PG_VERSION", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: cluster + "/gatehouse.conf", withDestinationPath: target)

        let result = try Child.run(["--port", "0"], environment: childEnvironment(["GATEHOUSE_DATA_DIR": base + "/data"]))
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(cluster)/gatehouse.conf: it is a symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "untouched\n")
        var info = stat()
        #expect(stat(target, &info) == 0 && info.st_uid == 0, "the link was handed over, not its target")
    }

    /// Data and socket directories that others could control are refused before anything runs.
    @Test(arguments: [
        ("socket directory of another user", "exists and belongs to nobody (uid 65534)"),
        ("socket directory mode 0777", "has mode 0777, not 0700"),
        ("socket directory a link", "run: it is a symbolic link"),
        ("data directory a link", "data: it is a symbolic link"),
        ("data directory mode 0777", "is writable by other users (mode 0777)"),
        ("data directory of another user", "belongs to nobody (uid 65534)"),
    ])
    func unsafeDirectoriesAreRefused(_ layout: String, _ message: String) throws {
        let base = TemporaryDirectory.make(prefix: "ghdirs")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let data = base + "/data", elsewhere = base + "/elsewhere"
        for path in [data, elsewhere] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        switch layout {
        case "socket directory of another user":
            mkdir(data + "/run", 0o700)
            chown(data + "/run", 65534, 65534)
        case "socket directory mode 0777":
            mkdir(data + "/run", 0o700)
            chmod(data + "/run", 0o777)
        case "socket directory a link":
            try FileManager.default.createSymbolicLink(atPath: data + "/run", withDestinationPath: elsewhere)
        case "data directory a link":
            try FileManager.default.removeItem(atPath: data)
            try FileManager.default.createSymbolicLink(atPath: data, withDestinationPath: elsewhere)
        case "data directory mode 0777":
            chmod(data, 0o777)
        default:
            chown(data, 65534, 65534)
        }
        let result = try Child.run(["--port", "0"], environment: childEnvironment(["GATEHOUSE_DATA_DIR": data]))
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data + "/pg"), "nothing was started")
    }

    /// A free port below 1024 on 127.0.0.1 (this process is root), or nil.
    private func freePrivilegedPort() -> Int? {
        for port in (900..<1024).shuffled() {
            if let fd = try? HTTPServer.openListeningSocket(host: "127.0.0.1", port: port) {
                close(fd)
                return port
            }
        }
        return nil
    }

    /// The processes whose parent is `pid` (from /proc/*/stat).
    private func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }
}

/// A process's user and group ids (real, effective, saved, file system), supplementary groups
/// and capabilities, from /proc/<pid>/status.
private struct Credentials: Equatable, CustomStringConvertible {
    var uids: [String], gids: [String], groups: String, permitted: String, effective: String

    init(pid: pid_t) throws {
        let lines = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8).split(separator: "\n")
        func field(_ name: String) -> [String] {
            lines.first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).split(whereSeparator: \.isWhitespace).map(String.init) } ?? []
        }
        uids = field("Uid")
        gids = field("Gid")
        groups = field("Groups").joined(separator: " ")
        permitted = field("CapPrm").joined()
        effective = field("CapEff").joined()
    }

    /// What a process running as `account` with no way back to root shows.
    init(_ account: ServiceAccount) {
        uids = Array(repeating: String(account.uid), count: 4)
        gids = Array(repeating: String(account.gid), count: 4)
        groups = ""
        permitted = "0000000000000000"
        effective = "0000000000000000"
    }

    var description: String { "uids \(uids) gids \(gids) groups [\(groups)] CapPrm \(permitted) CapEff \(effective)" }
}
