import Synchronization

/// The state libmicrohttpd's callbacks reach through their `void *` context.
///
/// Owned (strongly) by ``HTTPServer``, which outlives its daemon; the daemon holds
/// only an unretained pointer. Immutable apart from atomics, so any worker may use it.
final class ServerCore: Sendable {
    let handler: any HTTPHandler
    let maxBodySize: Int
    let log: (@Sendable (String) -> Void)?

    /// Live ``RequestContext`` objects: requests whose request line arrived and
    /// whose completion libmicrohttpd has not yet reported.
    let activeRequests = Atomic<Int>(0)
    /// Set once graceful shutdown begins: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)
    /// Set once `stop` has shut the listening socket down.
    let listenerShut = Atomic<Bool>(false)
    /// The last message libmicrohttpd logged (used to explain a failed start).
    let lastLogMessage = Mutex<String>("")

    init(handler: any HTTPHandler, maxBodySize: Int, log: (@Sendable (String) -> Void)?) {
        self.handler = handler
        self.maxBodySize = maxBodySize
        self.log = log
    }
}

/// One request's state between libmicrohttpd callbacks.
///
/// Created in the URI-log callback (libmicrohttpd's first per-request hook), which
/// hands it back as the initial `*con_cls`; retained once there and released exactly
/// once in the request-completed callback. Only the worker thread that owns the
/// connection touches it, so it needs no lock.
final class RequestContext {
    let core: ServerCore
    /// The request target as sent (`/path?query`).
    let rawTarget: [UInt8]
    /// Whether the access handler has already been called once (two-phase pattern).
    var headersProcessed = false
    /// Whether a response has been queued (the handler ran, or 413 was sent).
    var responded = false
    var headers: [HTTPHeaders.Field] = []
    var body: [UInt8] = []
    /// Whether an upload without a declared length exceeded the body limit.
    var overflowed = false
    /// Bytes received (and dropped) for an overflowed body.
    var discarded = 0

    /// How far past the body limit an overflowing chunked upload is read (to be
    /// able to answer 413) before the connection is closed instead.
    static let overflowDiscardLimit = 1 << 20

    init(core: ServerCore, rawTarget: [UInt8]) {
        self.core = core
        self.rawTarget = rawTarget
        core.activeRequests.add(1, ordering: .relaxed)
    }

    deinit {
        core.activeRequests.subtract(1, ordering: .releasing)
    }
}
