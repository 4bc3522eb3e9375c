import Foundation

/// Runs the PostgreSQL command-line tools, as the unprivileged `postgres` account when we are root
/// (initdb, pg_ctl and postgres refuse to run as root).
struct Subprocess {
    /// The unprivileged account used when the effective user is root.
    static let serviceAccount = "postgres"

    /// `uid`/`gid` of the account the cluster runs as: the service account when root, else nil (ourselves).
    static func serviceOwner() throws(PostgresError) -> (uid: uid_t, gid: gid_t)? {
        guard geteuid() == 0 else { return nil }
        guard let entry = getpwnam(serviceAccount) else {
            throw PostgresError(
                .embedded,
                message: "running as root needs the unprivileged account `\(serviceAccount)` to run PostgreSQL "
                    + "(it is created by the Debian package `postgresql`)")
        }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// Runs `tool` with `arguments`, output captured. Returns the exit status and combined output.
    ///
    /// Uses `posix_spawn` and `waitpid` directly: Foundation's `Process.waitUntilExit` was seen to
    /// miss the child's exit when called from a Swift Testing worker thread (a zombie and a hang).
    static func run(_ tool: String, _ arguments: [String], asServiceAccount: Bool) throws(PostgresError)
        -> (status: Int32, output: String)
    {
        var argv: [String]
        if asServiceAccount && geteuid() == 0 {
            let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
            guard let runuser else {
                throw PostgresError(.embedded, message: "running as root needs `runuser` (Debian package util-linux)")
            }
            argv = [runuser, "-u", serviceAccount, "--", tool] + arguments
        } else {
            argv = [tool] + arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LC_MESSAGES"] = "C"
        for key in ["PGDATA", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGOPTIONS"] { environment[key] = nil }
        let envp = environment.map { "\($0.key)=\($0.value)" }

        // Output goes to a file, not a pipe: the server started by pg_ctl must not inherit a pipe
        // we wait on.
        let capture = FileManager.default.temporaryDirectory
            .appendingPathComponent("gatehouse-pg-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out").path
        let fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
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
        let output = (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS, spelled out (the macros are not imported).
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitStatus, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A NULL-terminated `char *[]`, valid only inside `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
