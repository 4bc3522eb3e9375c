import Foundation

/// Runs the PostgreSQL command-line tools (and `useradd`) with a minimal environment.
struct Subprocess {
    /// Runs `tool` with `arguments`, output captured. Returns the exit status and combined output.
    /// As root, with `account` given, the tool runs as that account (`runuser`): `initdb`, `pg_ctl`
    /// and `postgres` refuse to run as root. Only test processes get here as root; the
    /// `gatehouse` binary gives root up before it starts the cluster.
    ///
    /// Uses `posix_spawn` and `waitpid` directly: Foundation's `Process.waitUntilExit` was seen to
    /// miss the child's exit when called from a Swift Testing worker thread (a zombie and a hang).
    static func run(_ tool: String, _ arguments: [String], as account: ServiceAccount?) throws(PostgresError)
        -> (status: Int32, output: String)
    {
        var argv: [String]
        if account != nil && geteuid() == 0 {
            let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
            guard let runuser else {
                throw PostgresError(.embedded, message: "running as root needs `runuser` (Debian package util-linux)")
            }
            argv = [runuser, "-u", ServiceAccount.name, "--", tool] + arguments
        } else {
            argv = [tool] + arguments
        }
        let envp = environment(ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }

        // Output goes to a file, not a pipe: the server started by pg_ctl must not inherit a pipe
        // we wait on.
        let capture = FileManager.default.temporaryDirectory
            .appendingPathComponent("gatehouse-pg-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out").path
        let fd = open(capture, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PostgresError(.embedded, message: "cannot create \(capture)") }
        defer {
            close(fd)
            unlink(capture)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fd, 1)
        posix_spawn_file_actions_adddup2(&actions, fd, 2)
        // The service account may not be able to enter our working directory: start from "/".
        // (posix_spawn_file_actions_addchdir_np is not visible to Swift here; a shell does it.)
        argv = ["/bin/sh", "-c", "cd / && exec \"$@\"", "sh"] + argv

        // The server blocks SIGINT/SIGTERM in its threads to sigwait for them; a child
        // would inherit that mask (and PostgreSQL would then ignore pg_ctl's stop signal),
        // so children start with an empty mask and default dispositions.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid: pid_t = 0
        let spawned = withCStrings(argv) { cArgv in
            withCStrings(envp) { cEnvp in posix_spawn(&pid, argv[0], &actions, &attributes, cArgv, cEnvp) }
        }
        guard spawned == 0 else {
            throw PostgresError(.embedded, message: "cannot run \(tool): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = ClusterFiles.read(capture) ?? ""
        // WIFEXITED / WEXITSTATUS, spelled out (the macros are not imported).
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitStatus, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The whole environment of a tool: a search path, an English UTF-8 locale and the time zone,
    /// taken from `inherited` only where named here. Nothing else passes: not the master key,
    /// `DATABASE_URL` or any other setting, nor libpq's `PG*` variables.
    private static func environment(_ inherited: [String: String]) -> [String: String] {
        var environment = ["PATH": inherited["PATH"] ?? "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
        if let zone = inherited["TZ"] { environment["TZ"] = zone }
        return environment
    }

    /// A NULL-terminated `char *[]`, valid only inside `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
