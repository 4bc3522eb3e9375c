/// Answers HTTP requests for an ``HTTPServer``.
///
/// Handlers are called on the server's threads, never on Swift concurrency's cooperative pool,
/// and many threads may call them at once. `answer(_:)` itself must not block: with an event-loop
/// pool (``HTTPServer/Configuration/workerThreads`` ≥ 1) one thread serves many connections.
/// Work that blocks (libpq, password hashing) is answered ``HTTPAnswer/blocking(_:)``, and work
/// that completes on another thread ``HTTPAnswer/later(_:)``.
public protocol HTTPHandler: Sendable {
    /// What to answer `request` with: a response now, or one that comes later.
    func answer(_ request: HTTPRequest) -> HTTPAnswer

    /// The response to a request whose body is over `limit` bytes (``HTTPServer/Configuration/maxBodySize``),
    /// asked instead of ``answer(_:)``; `request` has no body. Called on an event thread: must not block.
    /// By default ``HTTPResponse/bodyTooLarge``.
    func bodyTooLarge(_ request: HTTPRequest, limit: Int) -> HTTPResponse
}

extension HTTPHandler {
    public func bodyTooLarge(_ request: HTTPRequest, limit: Int) -> HTTPResponse { .bodyTooLarge }
}

/// The answer to a request: a response now, or the work that makes it.
///
/// Meanwhile the connection is suspended and its thread serves other connections. With one
/// thread per connection (`workerThreads` 0) the connection's own thread waits instead, so a
/// handler answers the same way in both modes.
public enum HTTPAnswer: Sendable {
    /// Replies with a finished response, exactly once, from any thread.
    public typealias Reply = @Sendable (HTTPResponse) -> Void

    /// The response.
    case now(HTTPResponse)
    /// `start` begins work that holds no thread (say, a database lookup batched with other
    /// requests') and calls its argument exactly once, from any thread, with the response. A
    /// reply made before `start` returns is sent at once, without suspending the connection.
    case later(_ start: @Sendable (_ reply: @escaping Reply) -> Void)
    /// `work` may block: it runs on one of the server's blocking threads.
    case blocking(_ work: @Sendable () -> HTTPResponse)

    /// This answer with `transform` applied to its response, whenever that comes.
    public func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPAnswer {
        switch self {
        case .now(let response): .now(transform(response))
        case .later(let start): .later { reply in start { reply(transform($0)) } }
        case .blocking(let work): .blocking { transform(work()) }
        }
    }
}
