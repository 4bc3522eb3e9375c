internal import Glibc

/// An IPv4 or IPv6 address, held as 128 bits: IPv4 in its IPv4-mapped form (`::ffff:a.b.c.d`),
/// so that `1.2.3.4` and `::ffff:1.2.3.4` are one address.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address's 16 bytes in network order, as two integers (the first eight bytes in `high`).
    let high: UInt64
    let low: UInt64

    private static let mappedPrefix: UInt64 = 0xFFFF_0000_0000

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses a numeric address (`1.2.3.4`, `2001:db8::1`, `::ffff:1.2.3.4`) with `inet_pton`;
    /// nil for anything else, brackets, ports and zone ids included.
    public init?(_ text: some StringProtocol) {
        var v4 = in_addr()
        var v6 = in6_addr()
        let string = String(text)
        if inet_pton(AF_INET, string, &v4) == 1 {
            self = withUnsafeBytes(of: v4) { IPAddress(v4: $0) }
        } else if inet_pton(AF_INET6, string, &v6) == 1 {
            self = withUnsafeBytes(of: v6) { IPAddress(v6: $0) }
        } else {
            return nil
        }
    }

    /// The address in a `sockaddr` (`AF_INET` or `AF_INET6`), such as a connection's peer; nil
    /// for other families.
    public init?(socketAddress address: UnsafeRawPointer) {
        switch Int32(address.loadUnaligned(as: sockaddr.self).sa_family) {
        case AF_INET:
            let v4 = address.loadUnaligned(as: sockaddr_in.self)
            self = withUnsafeBytes(of: v4.sin_addr) { IPAddress(v4: $0) }
        case AF_INET6:
            let v6 = address.loadUnaligned(as: sockaddr_in6.self)
            self = withUnsafeBytes(of: v6.sin6_addr) { IPAddress(v6: $0) }
        default:
            return nil
        }
    }

    private init(v4 bytes: UnsafeRawBufferPointer) {
        high = 0
        low = Self.mappedPrefix | UInt64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
    }

    private init(v6 bytes: UnsafeRawBufferPointer) {
        high = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
        low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// Whether this is an IPv4 address (or the IPv4-mapped IPv6 form of one).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// Whether this is a loopback address: 127.0.0.0/8 (or its IPv4-mapped form) or `::1`.
    public var isLoopback: Bool {
        isIPv4 ? (low >> 24) & 0xFF == 127 : high == 0 && low == 1
    }

    /// The network one client is taken to own: the address itself for IPv4, its /64 for IPv6
    /// (the smallest network an IPv6 host is usually given).
    public var clientNetwork: IPAddress { isIPv4 ? self : IPAddress(high: high, low: 0) }

    /// Dotted quad for IPv4, `inet_ntop`'s text for IPv6.
    public var description: String {
        if isIPv4 { return Self.dottedQuad(UInt32(truncatingIfNeeded: low)) }
        var v6 = in6_addr()
        withUnsafeMutableBytes(of: &v6) { bytes in
            bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
            guard inet_ntop(AF_INET6, &v6, buffer.baseAddress, socklen_t(buffer.count)) != nil else { return "" }
            return String(cString: buffer.baseAddress!)
        }
    }

    /// `a.b.c.d`, written digit by digit (once per request).
    private static func dottedQuad(_ address: UInt32) -> String {
        String(unsafeUninitializedCapacity: 15) { out in
            var count = 0
            for position in 0..<4 {
                let byte = UInt8(truncatingIfNeeded: address >> (24 - 8 * position))
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

/// An IP network in CIDR notation: `10.0.0.0/8`, `2001:db8::/32`; a bare address is a network
/// of one (`/32` for IPv4, `/128` for IPv6). IPv4 networks also contain the IPv4-mapped IPv6
/// forms of their addresses.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address (host bits cleared).
    public let address: IPAddress
    /// The prefix length in the 128-bit space (an IPv4 `/n` is `96 + n`).
    let bits: Int

    /// Parses `address` or `address/prefix` (prefix 0...32 for IPv4, 0...128 for IPv6; host
    /// bits are cleared); nil for anything else.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let width = address.isIPv4 && !parts[0].contains(":") ? 32 : 128
        var prefix = width
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(digits), value <= width else { return nil }
            prefix = value
        }
        bits = 128 - width + prefix
        self.address = Self.masked(address, bits)
    }

    /// Whether `address` lies in this network.
    public func contains(_ address: IPAddress) -> Bool {
        Self.masked(address, bits) == self.address
    }

    /// `address/prefix`, IPv4 networks with their IPv4 prefix.
    public var description: String {
        "\(address)/\(address.isIPv4 && bits >= 96 ? bits - 96 : bits)"
    }

    private static func masked(_ address: IPAddress, _ bits: Int) -> IPAddress {
        let highMask: UInt64 = bits >= 64 ? .max : bits == 0 ? 0 : .max << (64 - bits)
        let lowMask: UInt64 = bits <= 64 ? 0 : bits == 128 ? .max : .max << (128 - bits)
        return IPAddress(high: address.high & highMask, low: address.low & lowMask)
    }
}
