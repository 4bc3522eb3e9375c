import HTTPServer

/// Cross-origin resource sharing for browser clients: which origins may call the
/// server, and the answer to preflight `OPTIONS` requests (Fetch standard §3.2).
public struct CORSPolicy: Sendable {
    /// Allowed origins (`https://app.example.com`), or `["*"]` for any; empty: CORS off.
    public var allowedOrigins: [String]

    /// The request headers browsers may send: Parse's and the standard ones.
    public static let allowedHeaders = [
        "Content-Type", "Accept", "Authorization", "X-Parse-Application-Id", "X-Parse-Session-Token",
        "X-Parse-Installation-Id", "X-Parse-Master-Key", "X-Parse-Client-Version", "X-Parse-Revocable-Session",
        "X-Requested-With",
    ]

    public init(allowedOrigins: [String] = []) {
        self.allowedOrigins = allowedOrigins
    }

    /// The origin to echo back in `Access-Control-Allow-Origin`, if this one is allowed.
    public func allowedOrigin(for origin: String?) -> String? {
        guard let origin, !allowedOrigins.isEmpty else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    /// Whether `request` is a preflight (`OPTIONS` with `Access-Control-Request-Method`).
    public func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == "OPTIONS" && request.headers["Access-Control-Request-Method"] != nil
    }

    /// The answer to a preflight: 204, with the allowances when the origin is allowed.
    public func preflightResponse(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        guard let origin = allowedOrigin(for: request.headers["Origin"]) else { return response }
        response.headers.add(name: "Access-Control-Allow-Origin", value: origin)
        response.headers.add(name: "Access-Control-Allow-Methods", value: "GET, POST, OPTIONS")
        response.headers.add(name: "Access-Control-Allow-Headers", value: Self.allowedHeaders.joined(separator: ", "))
        response.headers.add(name: "Access-Control-Max-Age", value: "86400")
        if origin != "*" { response.headers.add(name: "Vary", value: "Origin") }
        return response
    }

    /// Adds `Access-Control-Allow-Origin` (and `Vary`) to an ordinary response.
    public func apply(to response: inout HTTPResponse, for request: HTTPRequest) {
        guard let origin = allowedOrigin(for: request.headers["Origin"]) else { return }
        response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: origin)
        if origin != "*" { response.headers.add(name: "Vary", value: "Origin") }
    }
}
