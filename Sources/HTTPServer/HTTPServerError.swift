/// Why ``HTTPServer/start()`` failed.
public enum HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host is not a numeric IPv4 or IPv6 address.
    case invalidHost(String)
    /// Another socket is already bound to the address.
    case addressInUse(host: String, port: Int)
    /// The address does not belong to this machine.
    case addressNotAvailable(host: String, port: Int)
    /// Binding needs privileges the process does not have (e.g. a port below 1024).
    case permissionDenied(host: String, port: Int)
    /// A configuration value is out of range.
    case invalidConfiguration(String)
    /// ``HTTPServer/start()`` was called on a server that is running or was stopped.
    case alreadyStarted
    /// libmicrohttpd refused to start for another reason (its log message, if any).
    case startFailed(String)

    /// A one-sentence explanation, e.g. `address 127.0.0.1:1337 is already in use`.
    public var description: String {
        switch self {
        case .invalidHost(let host):
            "host \"\(host)\" is not a numeric IPv4 or IPv6 address"
        case .addressInUse(let host, let port):
            "address \(Self.format(host, port)) is already in use"
        case .addressNotAvailable(let host, let port):
            "address \(Self.format(host, port)) is not available on this machine"
        case .permissionDenied(let host, let port):
            "permission denied to bind address \(Self.format(host, port))"
        case .invalidConfiguration(let detail):
            "invalid HTTP server configuration: \(detail)"
        case .alreadyStarted:
            "the HTTP server was already started"
        case .startFailed(let detail):
            "the HTTP server could not start: \(detail)"
        }
    }

    static func format(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
