import Foundation
import Sodium

/// The embedded default's `GATEHOUSE_SECRET_KEY`: `secret-key` in the data directory, made
/// (random, mode 0600) on first start and read on later ones. Opened without following
/// symbolic links. Losing the file loses every sealed TOTP secret and signing key: back it up with the database.
enum SecretKeyFile {
    static let name = "secret-key"

    /// Why the file could not be read or made (names the path, never the key).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The key in `directory`'s key file, made first when there is none.
    static func readOrCreate(directory: String) throws(Failure) -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if created >= 0 {
            defer { close(created) }
            let key = SecretBox.newSecretKey()
            let bytes = Array((key + "\n").utf8)
            let written = bytes.withUnsafeBytes { write(created, $0.baseAddress, $0.count) }
            guard written == bytes.count, fsync(created) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw Failure(description: "cannot write \(path): \(reason)")
            }
            return key
        }
        guard errno == EEXIST else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        let file = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(file) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
        return String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
