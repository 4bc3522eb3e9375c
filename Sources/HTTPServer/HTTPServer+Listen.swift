// The socket constants (SOCK_STREAM, SOCK_CLOEXEC) reach this file through the libmicrohttpd shim,
// whose headers (it includes <unistd.h> for the acceptor) own <sys/socket.h> in the module graph.
internal import CMicroHTTPD
internal import Glibc

extension HTTPServer {
    /// Binds and listens on `host:port` now and returns the socket, for
    /// ``Configuration/listenSocket``: a process started as root opens a port below 1024 this way
    /// before it gives root up. Same addresses as ``Configuration/host`` (`::` is dual stack).
    public static func openListeningSocket(host: String, port: Int) throws(HTTPServerError) -> Int32 {
        guard (0...Int(UInt16.max)).contains(port), var address = SocketAddress(host: host, port: UInt16(port)) else {
            throw .invalidHost(host)
        }
        let fd = socket(address.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .startFailed("socket: errno \(errno)") }
        var one: Int32 = 1, zero: Int32 = 0
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6Any { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size)) }
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, SOMAXCONN) == 0 else {
            let code = errno
            close(fd)
            switch code {
            case EADDRINUSE: throw .addressInUse(host: host, port: port)
            case EADDRNOTAVAIL: throw .addressNotAvailable(host: host, port: port)
            case EACCES: throw .permissionDenied(host: host, port: port)
            default: throw .startFailed(String(cString: strerror(code)))
            }
        }
        return fd
    }

    /// The local port of a listening socket (the one picked when it was bound to port 0).
    public static func port(ofListeningSocket fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer -> Int? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET: pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6: pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default: nil
            }
        }
    }
}
