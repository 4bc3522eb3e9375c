internal import Glibc

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
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
            return withUnsafeBytes(of: v4.sin_addr) { dottedQuad($0) }
        case AF_INET6:
            var v6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
            let mapped = withUnsafeBytes(of: v6.sin6_addr) { bytes -> String? in
                guard bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF else { return nil }
                return dottedQuad(UnsafeRawBufferPointer(rebasing: bytes[12...]))
            }
            if let mapped { return mapped }
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
                guard inet_ntop(AF_INET6, &v6.sin6_addr, buffer.baseAddress, socklen_t(buffer.count)) != nil else { return "" }
                return String(cString: buffer.baseAddress!)
            }
        default:
            return ""
        }
    }

    /// `a.b.c.d` for four address bytes, written digit by digit (once per request).
    private static func dottedQuad(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 15) { out in
            var count = 0
            for (position, byte) in bytes.prefix(4).enumerated() {
                if position > 0 { out[count] = UInt8(ascii: "."); count += 1 }
                if byte >= 100 { out[count] = 0x30 + byte / 100; count += 1 }
                if byte >= 10 { out[count] = 0x30 + byte / 10 % 10; count += 1 }
                out[count] = 0x30 + byte % 10
                count += 1
            }
            return count
        }
    }
}
