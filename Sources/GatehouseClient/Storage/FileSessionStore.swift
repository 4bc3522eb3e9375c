import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A ``SessionStore`` of one file per key in a directory only its owner may enter.
///
/// The directory is created with mode 0700 (and tightened to 0700 if it exists with more);
/// each file is written with mode 0600 to a temporary name and renamed into place, so a
/// reader never sees half a session and no other user can read the token at any moment.
public struct FileSessionStore: SessionStore {
    /// The directory holding the files.
    public let directory: URL

    /// A store in `directory` (created on first write).
    public init(directory: URL) {
        self.directory = directory
    }

    /// A store in the default directory for `serverURL` (see ``defaultDirectory(for:)``).
    public init(serverURL: URL) {
        self.init(directory: Self.defaultDirectory(for: serverURL))
    }

    /// `<Application Support>/Gatehouse/<host>-<port>`: on Linux `~/.local/share/Gatehouse/…`
    /// (or `$XDG_DATA_HOME`), on Apple platforms the app's Application Support directory.
    public static func defaultDirectory(for serverURL: URL) -> URL {
        let base: URL
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
            base = support
        } else {
            base = FileManager.default.temporaryDirectory
        }
        let host = serverURL.host ?? "local"
        let port = serverURL.port.map(String.init) ?? (serverURL.scheme == "https" ? "443" : "80")
        let name = "\(host)-\(port)".map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }
        return base.appendingPathComponent("Gatehouse", isDirectory: true).appendingPathComponent(String(name), isDirectory: true)
    }

    /// The file's bytes, or `nil` when there is no file.
    public func read(_ key: SessionStoreKey) throws -> Data? {
        let url = file(key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    /// Writes the file (mode 0600) atomically.
    public func write(_ data: Data, for key: SessionStoreKey) throws {
        try prepareDirectory()
        let target = file(key).path
        let temporary = target + ".tmp-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw StoreError.posix("open", errno) }
        var closed = false
        defer {
            if !closed { _ = close(fd) }
            unlink(temporary)  // no-op after the rename
        }
        // The umask can only remove bits; fchmod makes it exactly 0600 whatever it is.
        guard fchmod(fd, 0o600) == 0 else { throw StoreError.posix("fchmod", errno) }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws in
            var offset = 0
            while offset < buffer.count {
                let written = Glue.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StoreError.posix("write", errno)
                }
                offset += written
            }
        }
        guard fsync(fd) == 0 else { throw StoreError.posix("fsync", errno) }
        closed = true
        guard close(fd) == 0 else { throw StoreError.posix("close", errno) }
        guard rename(temporary, target) == 0 else { throw StoreError.posix("rename", errno) }
    }

    /// Deletes the file, if any.
    public func remove(_ key: SessionStoreKey) throws {
        if unlink(file(key).path) != 0 && errno != ENOENT { throw StoreError.posix("unlink", errno) }
    }

    private func file(_ key: SessionStoreKey) -> URL {
        directory.appendingPathComponent(key.rawValue, isDirectory: false)
    }

    private func prepareDirectory() throws {
        let path = directory.path
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            // Parents get the usual permissions; only the store's own directory is private.
            try FileManager.default.createDirectory(
                at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw StoreError.posix("mkdir", errno) }
        } else if !isDirectory.boolValue {
            throw StoreError.notADirectory(path)
        }
        guard chmod(path, 0o700) == 0 else { throw StoreError.posix("chmod", errno) }
    }

    /// A file system failure: the call and `strerror`.
    struct StoreError: Error, CustomStringConvertible {
        let description: String
        static func posix(_ call: String, _ code: Int32) -> StoreError {
            StoreError(description: "\(call): \(String(cString: strerror(code)))")
        }
        static func notADirectory(_ path: String) -> StoreError {
            StoreError(description: "\(path) is not a directory")
        }
    }
}

/// The C library's `write`, spelled so it does not clash with ``FileSessionStore/write(_:for:)``.
private enum Glue {
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(fd, buffer, count)
        #elseif canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Musl.write(fd, buffer, count)
        #endif
    }
}
