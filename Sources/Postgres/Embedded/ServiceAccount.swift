import Foundation
import Synchronization

/// The unprivileged system account `gatehouse`. Started as root, Gatehouse runs its server and
/// its embedded PostgreSQL as this account (least privilege): never as root,
/// and never as the shared `postgres` account, whose other users (any superuser of the machine's
/// own PostgreSQL, through `COPY … TO PROGRAM`) could otherwise reach Gatehouse's files.
public struct ServiceAccount: Sendable, Equatable {
    /// The account's name.
    public static let name = "gatehouse"

    /// The account's user id (never 0).
    public let uid: uid_t
    /// The account's own group (never 0).
    public let gid: gid_t

    /// The account, or nil if the system has none.
    public static func lookup() -> ServiceAccount? {
        passwordEntry(name: name).map { ServiceAccount(uid: $0.uid, gid: $0.gid) }
    }

    /// The account, created when missing (`useradd --system`: no home directory, no login shell,
    /// its own group). Creating it needs root.
    public static func ensure() throws(PostgresError) -> ServiceAccount {
        try creation.withLock { _ throws(PostgresError) in
            if let account = lookup() { return try account.checked() }
            guard geteuid() == 0 else {
                throw PostgresError(.embedded, message: "the system account `\(name)` is missing and only root can create it")
            }
            // Another process may be creating it at the same moment (parallel tests on a fresh
            // machine): useradd then fails on the lock of /etc/passwd, or finds the account made.
            var attempts = 0
            while true {
                attempts += 1
                let (status, output) = try Subprocess.run(
                    "/usr/sbin/useradd",
                    ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", "--user-group", name],
                    as: nil)
                if let account = lookup() { return try account.checked() }
                guard attempts < 50 else {
                    throw PostgresError(
                        .embedded, message: "cannot create the system account `\(name)` (useradd status \(status)): \(output)")
                }
                usleep(100_000)
            }
        }
    }

    private static let creation = Mutex(())

    private func checked() throws(PostgresError) -> ServiceAccount {
        guard uid != 0, gid != 0 else {
            throw PostgresError(.embedded, message: "the system account `\(Self.name)` has uid or gid 0; it must be unprivileged")
        }
        return self
    }

    /// Whether the account can search every existing parent of `path` (others may, or it owns the
    /// directory, or its group does), so that a directory made for it there is reachable.
    public func canReach(_ path: String) -> Bool {
        var directory = (path as NSString).deletingLastPathComponent
        while true {
            var info = stat()
            if stat(directory, &info) == 0 {
                let searchable = info.st_mode & 0o001 != 0
                    || (info.st_uid == uid && info.st_mode & 0o100 != 0)
                    || (info.st_gid == gid && info.st_mode & 0o010 != 0)
                if !searchable { return false }
            }
            if directory == "/" || directory.isEmpty { return true }
            directory = (directory as NSString).deletingLastPathComponent
        }
    }

    /// `name (uid N)` of a user id, for messages.
    static func describe(uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return "uid \(uid)"
        }
        return "\(String(cString: name)) (uid \(uid))"
    }

    /// uid and gid of the account `name` (getpwnam_r: tests look accounts up from many threads).
    static func passwordEntry(name: String) -> (uid: uid_t, gid: gid_t)? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return (entry.pw_uid, entry.pw_gid)
    }
}
