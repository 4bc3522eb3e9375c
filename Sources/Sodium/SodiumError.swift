import Glibc

/// An error from libsodium or libxcrypt.
///
/// Descriptions name the operation and the numeric cause only: never a password, a hash,
/// a salt or a token, so they are safe to log.
public enum SodiumError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The argon2id cost is outside libsodium's limits (the limits are not secret).
    case invalidCost(opsLimit: UInt64, memLimit: Int)
    /// The operation could not allocate the memory it needs (argon2id holds `memLimit` bytes).
    case outOfMemory(operation: String)
    /// The C call failed for another reason; `errno` as the library left it.
    case failed(operation: String, code: Int32, errno: Int32)

    /// A log-safe description of the error.
    public var description: String {
        switch self {
        case let .invalidCost(opsLimit, memLimit):
            return "Invalid argon2id cost: opsLimit \(opsLimit), memLimit \(memLimit) bytes is outside libsodium's limits."
        case let .outOfMemory(operation):
            return "\(operation) failed: out of memory."
        case let .failed(operation, code, errno):
            return "\(operation) failed with result \(code) (errno \(errno))."
        }
    }
}

extension SodiumError {
    /// The one error funnel for libsodium calls that return 0 on success and -1 on failure.
    ///
    /// Call `clearErrno()` before the C call so a stale `errno` is not reported.
    static func check(_ result: Int32, _ operation: String) throws(SodiumError) {
        guard result != 0 else { return }
        let code = errno
        if code == ENOMEM { throw .outOfMemory(operation: operation) }
        throw .failed(operation: operation, code: result, errno: code)
    }

    /// Resets `errno` before a C call whose failure `check` will read.
    static func clearErrno() {
        errno = 0
    }
}
