import Foundation

/// A TCP socket listening on 127.0.0.1, on a port the kernel picks; closed on deinit. The kernel
/// completes handshakes whether or not anyone calls `accept` on ``fd``.
public final class LoopbackListener: Sendable {
    /// The listening socket.
    public let fd: Int32
    /// The port picked.
    public let port: Int

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 4) == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
