import IPNetworks
import Sodium
import Signatures

/// The network a client address is counted as by the rate limits, so that one network cannot
/// lock an account's owner out (docs/operations.md, "Security notes").
enum ClientNetwork {
    /// The key of `address`'s network (``IPAddress/clientNetwork``): an IPv4 address as itself
    /// (`192.0.2.1`), an IPv6 address by its /64 (`2001:db8:1:2::/64`), an IPv4-mapped IPv6
    /// address as its IPv4 address. Brackets and a zone (`%eth0`) are ignored. Anything else (not
    /// an address) counts as itself, by its SHA-256 digest (`#` and 64 hex digits), so a key is
    /// never longer than 65 bytes.
    static func key(of address: String) -> String {
        var host = Substring(address)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if let zone = host.firstIndex(of: "%") { host = host[..<zone] }
        guard host.utf8.count <= 64, let parsed = IPAddress(host) else { return "#" + SHA256.hexDigest(address) }
        let network = parsed.clientNetwork
        return network.isIPv4 ? network.description : network.description + "/64"
    }

    /// The network a device signs in from, for the security notice of a new one: an IPv4
    /// address's /24 (`192.0.2.0/24`), an IPv6 address's /64, anything else as ``key(of:)``.
    static func deviceNetwork(of address: String) -> String {
        let key = key(of: address)
        let octets = key.split(separator: ".")
        guard octets.count == 4, !key.contains("/"), !key.hasPrefix("#") else { return key }
        return octets.prefix(3).joined(separator: ".") + ".0/24"
    }
}
