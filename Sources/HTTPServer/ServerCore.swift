internal import CMicroHTTPD
import Locking
import Synchronization

/// The state libmicrohttpd's callbacks reach through their `void *` context.
///
/// Owned (strongly) by ``HTTPServer``, which outlives its daemon; the daemon holds
/// only an unretained pointer. Immutable apart from atomics and the `suspended` table
/// (behind its lock), so any thread may use it.
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
    /// Where handed-off requests run (nil with one thread per connection).
    let blocking: WorkerThreads?

    /// A connection suspended while its request runs on the blocking pool.
    struct Suspended: @unchecked Sendable {
        // @unchecked: the context is touched only with `suspended` held once it is here;
        // libmicrohttpd allows MHD_resume_connection from any thread.
        let context: RequestContext
        let connection: OpaquePointer
    }
    /// Suspended connections by request; an entry leaves when its connection is resumed.
    let suspended = Lock<[ObjectIdentifier: Suspended]>([:])

    init(handler: any HTTPHandler, maxBodySize: Int, blocking: WorkerThreads?, log: (@Sendable (String) -> Void)?) {
        self.handler = handler
        self.maxBodySize = maxBodySize
        self.blocking = blocking
        self.log = log
    }

    /// Offers `request` to the handler on this event thread (the access handler's): queues
    /// the answer, or suspends the connection until the blocking pool or the handler's
    /// `.waiting` work is done with it. Call only from the access handler (libmicrohttpd's
    /// rule for suspending), and only when there is a blocking pool.
    func dispatch(
        _ request: HTTPRequest, awaited: (any Sendable)?, context: RequestContext, connection: OpaquePointer
    ) -> MHD_Result {
        let next = handler.respondWithoutBlocking(to: request, awaited: awaited)
        if case .response(let response) = next { return queue(response, on: connection, core: self) }
        let id = ObjectIdentifier(context)
        context.suspendedRequest = request
        // Suspended before anyone can resume it: the work starts only after this.
        MHD_suspend_connection(connection)
        suspended.withLock { $0[id] = Suspended(context: context, connection: connection) }
        switch next {
        case .response: break
        case .needsBlocking:
            guard let pool = blocking else { preconditionFailure("dispatch is for servers with a blocking pool") }
            pool.run { [self] in resume(id, with: .response(handler.handle(request))) }
        case .waiting(let start):
            start { [self] value in resume(id, with: .awaited(value)) }
        }
        return .YES
    }

    /// Gives a suspended request what it waited for and resumes its connection, unless
    /// the server already abandoned it (stop passed its deadline).
    private func resume(_ id: ObjectIdentifier, with outcome: RequestContext.Resumed) {
        suspended.withLock { suspended in
            guard let entry = suspended.removeValue(forKey: id) else { return }
            entry.context.resumed = outcome
            MHD_resume_connection(entry.connection)
        }
    }

    /// What a resumed request's connection got (once).
    func takeResumed(_ context: RequestContext) -> RequestContext.Resumed? {
        suspended.withLock { _ in
            defer { context.resumed = nil }
            return context.resumed
        }
    }

    /// Before the daemon stops (libmicrohttpd forbids stopping with suspended
    /// connections): resumes every suspended connection with 503; their handlers'
    /// responses, when they come, are dropped. Returns how many there were.
    func abandonSuspended() -> Int {
        suspended.withLock { suspended in
            let count = suspended.count
            for entry in suspended.values {
                entry.context.resumed = .response(HTTPResponse(
                    status: 503, headers: ["Content-Type": "text/plain; charset=utf-8", "Retry-After": "1"],
                    body: Array("The server is shutting down.".utf8)))
                MHD_resume_connection(entry.connection)
            }
            suspended.removeAll()
            return count
        }
    }
}

/// One request's state between libmicrohttpd callbacks.
///
/// Created in the URI-log callback (libmicrohttpd's first per-request hook), which
/// hands it back as the initial `*con_cls`; retained once there and released exactly
/// once in the request-completed callback. Only the thread that owns the connection
/// touches it, so it needs no lock, except `resumed` (see there).
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
    /// The request while its connection is suspended (see `ServerCore.dispatch`).
    var suspendedRequest: HTTPRequest?
    /// What a suspended request got: set, with `ServerCore.suspended` held, before its
    /// connection is resumed.
    var resumed: Resumed?
    enum Resumed {
        /// From `handle(_:)` on the blocking pool, or 503 when the server stopped first.
        case response(HTTPResponse)
        /// What the handler's `.waiting` work delivered.
        case awaited(any Sendable)
    }

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
