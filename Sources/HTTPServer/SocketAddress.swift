internal import Glibc
import IPNetworks

/// A numeric IPv4 or IPv6 socket address, parsed without name resolution.
struct SocketAddress {
    var storage = sockaddr_storage()
    var isIPv6: Bool

    /// Parses `host` (`127.0.0.1`, `0.0.0.0`, `::1`, `::`, optionally `[::1]`) and `port`.
    init?(host: String, port: UInt16) {
        var host = host
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { dst in
                withUnsafeBytes(of: v4) { dst.copyMemory(from: $0) }
            }
            isIPv6 = false
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { dst in
                withUnsafeBytes(of: v6) { dst.copyMemory(from: $0) }
            }
            isIPv6 = true
            return
        }
        return nil
    }

    /// Whether this is the IPv6 wildcard `::` (served dual-stack).
    var isIPv6Any: Bool {
        guard isIPv6 else { return false }
        return withUnsafeBytes(of: storage) { raw in
            let v6 = raw.load(as: sockaddr_in6.self)
            return withUnsafeBytes(of: v6.sin6_addr) { $0.allSatisfy { $0 == 0 } }
        }
    }

    /// The numeric text of a peer address (IPv4-mapped IPv6 shown as IPv4), or "".
    static func text(of address: UnsafePointer<sockaddr>) -> String {
        IPAddress(socketAddress: address)?.description ?? ""
    }
}
