import Foundation
import Synchronization

/// The default database: a private PostgreSQL cluster inside Gatehouse's data directory.
///
/// Layout under the data directory (default `./.gatehouse`):
/// - `pg/`: the cluster (created by `initdb` on first run, UTF-8, superuser ``Options/user``).
/// - `run/`: the Unix socket directory. The server listens on nothing else
///   (`listen_addresses = ''`), `pg_hba.conf` trusts only local socket connections, and the
///   socket is mode 0700, so only the owning account (and root) can connect.
/// - `postgres.log`: the server log.
///
/// A socket path must fit in 107 bytes (`sun_path`). When `<dataDir>/run/.s.PGSQL.<port>` would not,
/// ``start()`` makes a fresh socket directory `/tmp/gatehouse-XXXXXX` (mkdtemp: no other user can
/// guess its name and make it first), or finds a running server's in `postmaster.pid`;
/// ``socketDirectory`` reports it. An existing `<dataDir>/run` that is a symbolic link, belongs to
/// another user or is not mode 0700 is refused (whoever controls it could answer as the database).
///
/// The cluster runs as the user that calls ``start()``. The `gatehouse` binary gives root up first
/// (``prepareForAccount(dataDirectory:account:)``, then the server drops to that account). A
/// caller that is still root (a test process) gets `initdb`, `pg_ctl` and `postgres` run as the
/// ``ServiceAccount`` through `runuser`, since PostgreSQL refuses to run as root; the data
/// directory is then handed to that account. Files written here are opened without following
/// symbolic links (``ClusterFiles``), and the tools get a minimal environment.
///
/// Thread-safety: the stored properties are immutable, but for the socket directory in /tmp that
/// ``start()`` records under a lock; `start`/`stop` act on the file system and must not run
/// concurrently for the same data directory.
public final class EmbeddedPostgres: Sendable {
    /// How the cluster is created and run.
    public struct Options: Sendable {
        /// Where the cluster lives; created if missing.
        public var dataDirectory: String
        /// The database created for the application (if missing) and named in ``connectionString``.
        public var databaseName: String
        /// The cluster's superuser role, used in ``connectionString``.
        public var user: String
        /// `true` (production): fsync on. `false` (tests only): `initdb --no-sync`, `fsync = off`,
        /// `synchronous_commit = off`, `full_page_writes = off` — fast, and a crash may lose data.
        public var durable: Bool
        /// The port number; it only names the socket file (`.s.PGSQL.<port>`), no TCP is opened.
        public var port: Int
        /// `max_connections`.
        public var maxConnections: Int
        /// The directory of `initdb`/`pg_ctl`/`postgres`; `nil` finds it (`pg_config --bindir`,
        /// then the highest `/usr/lib/postgresql/*/bin`).
        public var binDirectory: String?

        /// Production defaults: `./.gatehouse`, database and user `gatehouse`, durable.
        public init(
            dataDirectory: String = "./.gatehouse", databaseName: String = "gatehouse", user: String = "gatehouse",
            durable: Bool = true, port: Int = 5432, maxConnections: Int = 100, binDirectory: String? = nil
        ) {
            self.dataDirectory = dataDirectory
            self.databaseName = databaseName
            self.user = user
            self.durable = durable
            self.port = port
            self.maxConnections = maxConnections
            self.binDirectory = binDirectory
        }
    }

    /// The options.
    public let options: Options
    /// The data directory, absolute.
    public let dataDirectory: String
    /// The cluster directory (`<dataDirectory>/pg`).
    public let clusterDirectory: String
    /// The Unix socket directory: `<dataDirectory>/run`, or for a path too long for a socket the
    /// one ``start()`` made or found (empty before it; see the type's notes).
    public var socketDirectory: String { ownSocketDirectory ?? temporarySocketDirectory.withLock { $0 } }
    private let ownSocketDirectory: String?
    private let temporarySocketDirectory = Mutex("")
    /// The server log.
    public let logFile: String
    private let binDirectory: String

    /// Prepares (does not start) an embedded cluster; finds the server binaries.
    public init(options: Options = Options()) throws(PostgresError) {
        guard Self.isIdentifier(options.databaseName), Self.isIdentifier(options.user) else {
            throw PostgresError(.usage, message: "embedded database and user names must match [a-z_][a-z0-9_]*")
        }
        self.options = options
        let absolute = Self.absolute(options.dataDirectory)
        dataDirectory = absolute
        clusterDirectory = absolute + "/pg"
        logFile = absolute + "/postgres.log"
        let preferred = absolute + "/run"
        ownSocketDirectory = (preferred + "/.s.PGSQL.\(options.port)").utf8.count <= 100 ? preferred : nil
        binDirectory = try PostgresBinaries.locate(override: options.binDirectory)
    }

    /// As root, before giving root up to `account`: makes the data directory ready for it (see
    /// ``start()``) and returns the directory the cluster is to use. That is `dataDirectory` itself,
    /// unless a parent shuts the account out (a checkout under root's 0700 home, say): then
    /// `/var/lib/gatehouse/<hash of the path>`, stable so that restarts find it.
    public static func prepareForAccount(dataDirectory: String, account: ServiceAccount) throws(PostgresError) -> String {
        let absolute = absolute(dataDirectory)
        var home = absolute
        if !account.canReach(absolute) {
            let relocated = "/var/lib/gatehouse"
            do {
                try FileManager.default.createDirectory(
                    atPath: relocated, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            } catch {
                throw PostgresError(.embedded, message: "cannot create \(relocated): \(error.localizedDescription)")
            }
            home = relocated + "/" + fnv1a(absolute)
        }
        try ClusterFiles.prepareDataDirectory(home, for: account)
        return home
    }

    /// A libpq connection string for the application database over the socket.
    public var connectionString: String { connectionString(database: options.databaseName) }

    /// A libpq connection string for `database` over the socket.
    public func connectionString(database: String) -> String {
        "host=\(Self.quote(socketDirectory)) port=\(options.port) dbname=\(Self.quote(database)) user=\(Self.quote(options.user))"
    }

    /// Whether the cluster has been created.
    public var isInitialized: Bool {
        FileManager.default.fileExists(atPath: clusterDirectory + "/PG_VERSION")
    }

    /// Whether a server is running on the cluster (`pg_ctl status`).
    public var isRunning: Bool {
        guard isInitialized, let (status, _) = try? pgctl(["status", "-D", clusterDirectory]) else { return false }
        // `pg_ctl status` only asks whether the pid in postmaster.pid exists. After a crash that
        // pid can be an unreaped zombie (SIGKILLed postmaster; seen in bench/faults.sh: the
        // restart "adopted" it and failed with connection refused) or, in a container, another
        // process: require a live postgres process.
        return status == 0 && postmasterPID.map(Self.isPostgresProcess) == true
    }

    /// Creates the cluster on first use, starts it (or adopts one already running on it), creates
    /// the application database if missing, and returns ``connectionString``.
    ///
    /// The data directory is created (mode 0700) if missing. It must not be a symbolic link nor
    /// writable by group or others, and must belong to the caller, or as root to the
    /// ``ServiceAccount`` (one owned by root or `postgres`, from earlier versions, is handed to it).
    @discardableResult
    public func start() throws(PostgresError) -> String {
        let account = try clusterAccount()
        try ClusterFiles.prepareDataDirectory(dataDirectory, for: account)
        if let ownSocketDirectory {
            try ClusterFiles.makePrivateDirectory(ownSocketDirectory, what: "the socket directory", for: account)
        }
        if !isInitialized { try initialize(account) }
        let running = isRunning
        if ownSocketDirectory == nil { try findTemporarySocketDirectory(running: running, account) }
        try writeSettings(account)
        if !running {
            removeStalePidFile()
            var (status, output) = try pgctl([
                "start", "-D", clusterDirectory, "-l", logFile, "-w", "-t", "60", "-s",
            ])
            // Right after a crash the old backends may still hold the shared memory for a moment
            // ("pre-existing shared memory block is still in use"): retry a few times.
            var retries = 0
            while status != 0 && retries < 5 && !isRunning {
                retries += 1
                usleep(1_000_000)
                removeStalePidFile()
                (status, output) = try pgctl(["start", "-D", clusterDirectory, "-l", logFile, "-w", "-t", "60", "-s"])
            }
            if status != 0 {
                throw PostgresError(
                    .embedded, message: "pg_ctl start failed (status \(status)): \(output) \(logTail())")
            }
        }
        try createDatabaseIfMissing()
        return connectionString
    }

    /// Stops the server cleanly (`pg_ctl stop -m fast`: ends sessions, checkpoints). No-op if not running.
    public func stop() throws(PostgresError) {
        guard isRunning else { return }
        let (status, output) = try pgctl(["stop", "-D", clusterDirectory, "-m", "fast", "-w", "-t", "60", "-s"])
        if status != 0 && isRunning {
            throw PostgresError(.embedded, message: "pg_ctl stop failed (status \(status)): \(output)")
        }
        removeTemporarySocketDirectory()
    }

    /// The postmaster's process id from `postmaster.pid`, if the file exists.
    public var postmasterPID: pid_t? {
        guard let text = ClusterFiles.read(clusterDirectory + "/postmaster.pid"),
            let line = text.split(separator: "\n").first, let pid = pid_t(line.trimmingCharacters(in: .whitespaces))
        else { return nil }
        return pid
    }

    /// Fast shutdown by signal (SIGINT), waiting up to `timeoutSeconds` for the server to exit.
    /// Spawns no process, so it is safe in an `atexit` handler. Returns whether the server is gone.
    @discardableResult
    public func signalFastShutdown(timeoutSeconds: Double = 20) -> Bool {
        guard let pid = postmasterPID, Self.isPostgresProcess(pid) else { return true }
        kill(pid, SIGINT)
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if kill(pid, 0) != 0 && errno == ESRCH {
                removeTemporarySocketDirectory()
                return true
            }
            usleep(20_000)
        }
        return false
    }

    // MARK: Steps

    private func initialize(_ account: ServiceAccount?) throws(PostgresError) {
        if FileManager.default.fileExists(atPath: clusterDirectory) {
            // An interrupted earlier initdb leaves a partial directory; initdb refuses non-empty ones.
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: clusterDirectory)) ?? []
            if !contents.isEmpty {
                throw PostgresError(
                    .embedded,
                    message: "\(clusterDirectory) exists but holds no cluster (no PG_VERSION); remove it to re-create")
            }
        }
        var arguments = [
            "-D", clusterDirectory, "-U", options.user, "--auth=trust", "--encoding=UTF8",
            "--lc-collate=C", "--lc-ctype=C.UTF-8", "--lc-messages=C", "--no-instructions",
        ]
        if !options.durable { arguments.append("--no-sync") }
        let (status, output) = try Subprocess.run(binDirectory + "/initdb", arguments, as: account)
        guard status == 0 else {
            throw PostgresError(.embedded, message: "initdb failed (status \(status)): \(output)")
        }
        // Only local socket connections, trusted: the socket's directory and mode guard access.
        try ClusterFiles.write(
            clusterDirectory + "/pg_hba.conf",
            """
            # Gatehouse embedded cluster: Unix-domain socket only (listen_addresses = '').
            # TYPE  DATABASE  USER  METHOD
            local   all       all   trust

            """, for: account)
        try ClusterFiles.write(
            clusterDirectory + "/postgresql.conf",
            "\n# Gatehouse: settings rewritten on every start.\ninclude_if_exists = 'gatehouse.conf'\n",
            append: true, for: account)
    }

    /// For a data directory path too long for a socket: the running server's socket directory
    /// (the fifth line of `postmaster.pid`), else a new one; either is checked to be private.
    private func findTemporarySocketDirectory(running: Bool, _ account: ServiceAccount?) throws(PostgresError) {
        let recorded = ClusterFiles.read(clusterDirectory + "/postmaster.pid")?.split(separator: "\n", omittingEmptySubsequences: false)
        let directory: String
        if running, let recorded, recorded.count > 4, recorded[4].hasPrefix("/") {
            directory = String(recorded[4])
        } else {
            var template = Array("/tmp/gatehouse-XXXXXX".utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
                throw PostgresError(.embedded, message: "cannot create a socket directory in /tmp: \(String(cString: strerror(errno)))")
            }
            directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let account { lchown(directory, account.uid, account.gid) }
        }
        try ClusterFiles.makePrivateDirectory(directory, what: "the socket directory", for: account)
        temporarySocketDirectory.withLock { $0 = directory }
    }

    /// Removes the socket directory ``start()`` made in /tmp, once the server is gone (PostgreSQL
    /// removes its socket and lock files itself).
    private func removeTemporarySocketDirectory() {
        guard ownSocketDirectory == nil else { return }
        let directory = temporarySocketDirectory.withLock { $0 }
        if !directory.isEmpty { rmdir(directory) }
    }

    private func writeSettings(_ account: ServiceAccount?) throws(PostgresError) {
        var lines = [
            "# Written by Gatehouse on every start; edit postgresql.conf for your own settings.",
            "listen_addresses = ''",
            "unix_socket_directories = '\(socketDirectory.replacingOccurrences(of: "'", with: "''"))'",
            "unix_socket_permissions = 0700",
            "port = \(options.port)",
            "max_connections = \(options.maxConnections)",
            "log_min_messages = warning",
        ]
        if !options.durable {
            lines += ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        }
        try ClusterFiles.write(clusterDirectory + "/gatehouse.conf", lines.joined(separator: "\n") + "\n", for: account)
    }

    /// A `postmaster.pid` left by a crash names a process that is gone (or, after a reboot or in a
    /// container, reused by something else). PostgreSQL copes with a dead pid itself; a reused one
    /// would block it, so remove the file when its pid is not a postgres process.
    private func removeStalePidFile() {
        guard let pid = postmasterPID else { return }
        if !Self.isPostgresProcess(pid) {
            try? FileManager.default.removeItem(atPath: clusterDirectory + "/postmaster.pid")
        }
    }

    private func createDatabaseIfMissing() throws(PostgresError) {
        let connection = try Connection(configuration: ConnectionConfiguration(
            connectionString(database: "postgres"), statementTimeoutMilliseconds: 0))
        defer { connection.close() }
        let exists = try connection.queryFirst("SELECT 1 FROM pg_database WHERE datname = \(options.databaseName)")
        guard exists == nil else { return }
        do {
            // The name was checked to be a plain identifier in init.
            try connection.unsafeExecuteScript("CREATE DATABASE \(options.databaseName)")
        } catch where error.sqlState == "42P04" {
            // Another instance created it first.
        }
    }

    // MARK: Helpers

    private func pgctl(_ arguments: [String]) throws(PostgresError) -> (status: Int32, output: String) {
        try Subprocess.run(binDirectory + "/pg_ctl", arguments, as: try clusterAccount())
    }

    /// The account the tools run as: the ``ServiceAccount`` when we are root (created if missing),
    /// else nil (ourselves).
    private func clusterAccount() throws(PostgresError) -> ServiceAccount? {
        geteuid() == 0 ? try ServiceAccount.ensure() : nil
    }

    private func logTail() -> String {
        guard let text = ClusterFiles.read(logFile) else { return "" }
        return "; log: " + text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    static func isPostgresProcess(_ pid: pid_t) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            stat[stat.index(after: close)...].split(separator: " ").first.map({ $0 == "Z" || $0 == "X" }) == true
        {
            return false  // exited, not yet reaped
        }
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return true }
        let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
        return name == "postgres" || name == "postmaster"
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || (first >= 97 && first <= 122) else { return false }
        return name.utf8.count <= 63
            && name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) }
    }

    /// A conninfo value in single quotes with backslash escapes.
    static func quote(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
