/// Answers HTTP requests for an ``HTTPServer``.
///
/// `handle(_:)` is called synchronously on one of libmicrohttpd's worker threads,
/// never on Swift concurrency's cooperative pool, so blocking work (libpq, password
/// hashing) is fine and intended. While it runs, a pool worker serves no other
/// connection: size ``HTTPServer/Configuration/workerThreads`` for the expected
/// number of concurrently blocked handlers, or use one thread per connection (0).
/// Many threads may call it at once.
public protocol HTTPHandler: Sendable {
    /// Returns the response for `request`.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}

/// An ``HTTPHandler`` made from a closure.
public struct ClosureHTTPHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest) -> HTTPResponse

    /// Wraps `body`.
    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        self.body = body
    }

    /// Calls the closure.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        body(request)
    }
}
