import Foundation

/// The file-system work of the embedded cluster, done so that a symbolic link planted by whoever
/// runs code as the cluster's account leads nowhere: no link is followed below the data directory,
/// the data directory itself must not be a link, and a directory that must be private is checked
/// to be the account's own, mode 0700.
enum ClusterFiles {
    /// Makes `path` (absolute) ready to be a data directory of `account` (nil: ourselves, not
    /// root): created (mode 0700) if missing, else checked not to be a symbolic link or writable by
    /// group or others. As root, one owned by root or by the `postgres` account (which ran the
    /// cluster in earlier versions) is handed to `account` with everything in it; another owner is
    /// refused, as is a directory the account cannot reach.
    static func prepareDataDirectory(_ path: String, for account: ServiceAccount?) throws(PostgresError) {
        let parent = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw PostgresError(.embedded, message: "cannot create \(parent): \(error.localizedDescription)")
        }
        mkdir(path, 0o700)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw failure("the data directory", path, errno) }
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        if info.st_mode & 0o022 != 0 {
            throw PostgresError(
                .embedded,
                message: "the data directory \(path) is writable by other users (mode \(octal(info.st_mode))); "
                    + "make it private (chmod 700)")
        }
        let owner = account?.uid ?? geteuid()
        if info.st_uid != owner {
            let formerOwners = [0, ServiceAccount.passwordEntry(name: "postgres")?.uid].compactMap { $0 }
            guard let account, formerOwners.contains(info.st_uid) else {
                throw PostgresError(
                    .embedded,
                    message: "the data directory \(path) belongs to \(ServiceAccount.describe(uid: info.st_uid)), "
                        + "not to \(ServiceAccount.describe(uid: owner))")
            }
            try giveTree(fd, path, to: account, from: formerOwners)
        }
        if let account, !account.canReach(path) {
            throw PostgresError(
                .embedded,
                message: "the `\(ServiceAccount.name)` account cannot reach the data directory \(path): "
                    + "a parent directory is closed to other users; choose another (GATEHOUSE_DATA_DIR)")
        }
    }

    /// Creates the private directory `path` (mode 0700) if missing; an existing one must be a real
    /// directory owned by `account` (nil: ourselves) with mode 0700, else it is refused, since
    /// whoever controls it could answer as the database. (Checked by `lstat`: its parent is the
    /// account's data directory or sticky `/tmp`, where no other user can swap it.)
    static func makePrivateDirectory(_ path: String, what: String, for account: ServiceAccount?) throws(PostgresError) {
        if mkdir(path, 0o700) == 0, let account {
            lchown(path, account.uid, account.gid)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw failure(what, path, errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw failure(what, path, info.st_mode & S_IFMT == S_IFLNK ? ELOOP : ENOTDIR)
        }
        let owner = account?.uid ?? geteuid()
        guard info.st_uid == owner else {
            throw PostgresError(
                .embedded,
                message: "\(what) \(path) exists and belongs to \(ServiceAccount.describe(uid: info.st_uid)), "
                    + "not to \(ServiceAccount.describe(uid: owner)); remove it")
        }
        guard info.st_mode & 0o777 == 0o700 else {
            throw PostgresError(
                .embedded, message: "\(what) \(path) has mode \(octal(info.st_mode)), not 0700; remove it or chmod 700 it")
        }
    }

    /// Writes (or appends) `text` to the file `path`, never through a symbolic link or a file
    /// with other hard links; a new file is mode 0600 and, as root, given to `account`.
    static func write(_ path: String, _ text: String, append: Bool = false, for account: ServiceAccount?) throws(PostgresError) {
        let fd = try openFile(path, O_WRONLY | O_CREAT | (append ? O_APPEND : 0))
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        guard info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
            throw PostgresError(.embedded, message: "refusing to write \(path): not a plain file with a single name")
        }
        if let account, fchown(fd, account.uid, account.gid) != 0 {
            throw failure("file", path, errno)
        }
        if !append { ftruncate(fd, 0) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw failure("file", path, errno) }
            bytes = bytes.dropFirst(count)
        }
    }

    /// The text of the plain file `path`, read without following a symbolic link; nil if it
    /// cannot be read.
    static func read(_ path: String) -> String? {
        guard let fd = try? openFile(path, O_RDONLY) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            data += chunk[..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Opens `path` with `flags`, following no symbolic link in its last two components (the file
    /// and the directory holding it: those lie inside the account's data directory). Non-blocking,
    /// so that a FIFO put in a file's place cannot hold the open up; callers accept plain files only.
    private static func openFile(_ path: String, _ flags: Int32) throws(PostgresError) -> Int32 {
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { throw failure("directory", (path as NSString).deletingLastPathComponent, errno) }
        defer { close(directory) }
        let fd = openat(directory, (path as NSString).lastPathComponent, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("file", path, errno) }
        return fd
    }

    /// Gives the directory open as `fd`, and everything below it that belongs to one of
    /// `formerOwners`, to `account`: like `chown -hR`, no symbolic link is followed (links are
    /// changed themselves) and a directory is entered only through a descriptor opened without
    /// following links, so a link swapped in meanwhile is not entered either. The top directory
    /// goes last, so an interrupted hand-over is done again at the next start.
    private static func giveTree(_ fd: Int32, _ path: String, to account: ServiceAccount, from formerOwners: [uid_t])
        throws(PostgresError)
    {
        guard let stream = fdopendir(dup(fd)) else { throw failure("directory", path, errno) }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            var nameBytes = entry.pointee.d_name
            let name = withUnsafeBytes(of: &nameBytes) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw failure("file", path + "/" + name, errno) }
            if info.st_mode & S_IFMT == S_IFDIR {
                let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else { throw failure("directory", path + "/" + name, errno) }
                defer { close(child) }
                try giveTree(child, path + "/" + name, to: account, from: formerOwners)
            } else if formerOwners.contains(info.st_uid), fchownat(fd, name, account.uid, account.gid, AT_SYMLINK_NOFOLLOW) != 0 {
                throw failure("file", path + "/" + name, errno)
            }
        }
        var info = stat()
        fstat(fd, &info)
        if formerOwners.contains(info.st_uid), fchown(fd, account.uid, account.gid) != 0 {
            throw failure("directory", path, errno)
        }
    }

    private static func failure(_ what: String, _ path: String, _ code: Int32) -> PostgresError {
        var info = stat()
        let isLink = code == ELOOP || (lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        let reason = isLink ? "it is a symbolic link" : String(cString: strerror(code))
        return PostgresError(.embedded, message: "refusing to use \(what) \(path): \(reason)")
    }

    private static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o777, radix: 8)
    }
}
