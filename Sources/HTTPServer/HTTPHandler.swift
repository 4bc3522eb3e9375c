/// Answers HTTP requests for an ``HTTPServer``.
///
/// Handlers are called synchronously on the server's threads, never on Swift concurrency's
/// cooperative pool, and many threads may call them at once.
///
/// - With one thread per connection (``HTTPServer/Configuration/workerThreads`` 0), every
///   request goes to `handle(_:)` on its connection's thread, so blocking there (libpq,
///   password hashing) holds up only that connection.
/// - With an event-loop pool (`workerThreads` ≥ 1), each request first goes to
///   `respondWithoutBlocking(to:awaited:)` on the event thread that serves many connections,
///   which answers, or asks for `handle(_:)` on a thread of the server's blocking pool, or
///   starts work that holds no thread and is offered the request again with its result.
///   Meanwhile the connection is suspended and the event thread serves the others.
public protocol HTTPHandler: Sendable {
    /// Returns the response for `request`; may block.
    func handle(_ request: HTTPRequest) -> HTTPResponse

    /// What to do with `request` on an event thread, where nothing may block (no database
    /// round trip, no password hash, no lock held for long). `awaited` is nil the first
    /// time, and what `.waiting` work delivered on the call after it.
    /// Default: `.response(handle(request))`, on the event thread.
    func respondWithoutBlocking(to request: HTTPRequest, awaited: (any Sendable)?) -> NonBlockingResponse
}

/// The outcome of ``HTTPHandler/respondWithoutBlocking(to:awaited:)``. Apart from
/// `.response`, the call must have had no side effect: the request is answered later.
public enum NonBlockingResponse: Sendable {
    /// The answer.
    case response(HTTPResponse)
    /// Run `handle(_:)` on a thread that may block.
    case needsBlocking
    /// `start` begins work that holds no thread (say, a database lookup batched with
    /// other requests') and calls its argument exactly once, from any thread, with the
    /// result; the request is then offered to `respondWithoutBlocking` again with it.
    case waiting(start: @Sendable (_ done: @escaping @Sendable (any Sendable) -> Void) -> Void)
}

extension HTTPHandler {
    public func respondWithoutBlocking(to request: HTTPRequest, awaited: (any Sendable)?) -> NonBlockingResponse {
        .response(handle(request))
    }
}

/// An ``HTTPHandler`` made from a closure (answered on the event thread in the pool mode).
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
