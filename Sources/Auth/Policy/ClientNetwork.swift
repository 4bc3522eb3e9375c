internal import Glibc
import Sodium

/// The network a client address is counted as by the rate limits (contract, Hardening: "Limits
/// cannot lock the owner out").
enum ClientNetwork {
    /// The key of `address`'s network: an IPv4 address as itself (`192.0.2.1`); an IPv6 address
    /// by its /64 (`2001:db8:1:2::/64`), since one host usually holds a whole /64 and would
    /// otherwise have 2^64 counts; an IPv4-mapped IPv6 address as its IPv4 address. Brackets and
    /// a zone (`%eth0`) are ignored. Anything else (a garbled forwarded address) counts as itself,
    /// by its SHA-256 digest (`#` and 64 hex digits), so a key is never longer than 64 bytes.
    static func key(of address: String) -> String {
        var host = Substring(address)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if let zone = host.firstIndex(of: "%") { host = host[..<zone] }
        if host.utf8.count <= 64 {
            let text = String(host)
            var v4 = in_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                return withUnsafeBytes(of: v4) { ipv4($0[0..<4]) }
            }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, text, &v6) == 1 {
                let bytes = withUnsafeBytes(of: v6) { Array($0) }
                if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                    return ipv4(bytes[12..<16])
                }
                if let network = ipv6Network(bytes) { return network }
            }
        }
        return "#" + SHA256.hexDigest(address)
    }

    private static func ipv4(_ bytes: some Collection<UInt8>) -> String {
        bytes.map(String.init).joined(separator: ".")
    }

    /// `bytes`' first 64 bits in RFC 5952 text, with `/64`.
    private static func ipv6Network(_ bytes: [UInt8]) -> String? {
        var prefix = in6_addr()
        withUnsafeMutableBytes(of: &prefix) { out in
            for index in 0..<8 { out[index] = bytes[index] }
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &prefix, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/64"
    }
}
