/// Whether `host` (a URL's host as curl's parser returns it) names this machine: `localhost`,
/// `::1` (bracketed or not) or an address in 127.0.0.0/8. Plain-text protocols are allowed only to
/// such a host, where no network lies between the two ends.
func isLoopbackHost(_ host: String) -> Bool {
    let host = host.lowercased()
    if host == "localhost" || host == "[::1]" || host == "::1" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
}
