internal import CMicroHTTPD
import Dispatch
import Locking
import Synchronization

/// The state libmicrohttpd's callbacks reach through their `void *` context.
///
/// Owned (strongly) by ``HTTPServer``, which outlives its daemon; the daemon holds
/// only an unretained pointer. Immutable apart from atomics and `suspended` (behind its
/// lock), so any thread may use it.
final class ServerCore: Sendable {
    let handler: any HTTPHandler
    let maxBodySize: Int
    let log: (@Sendable (String) -> Void)?

    /// Live ``RequestState`` objects: requests whose request line arrived and
    /// whose completion libmicrohttpd has not yet reported.
    let activeRequests = Atomic<Int>(0)
    /// Set once graceful shutdown begins: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)
    /// Set once `stop` has shut the listening socket down.
    let listenerShut = Atomic<Bool>(false)
    /// The last message libmicrohttpd logged (used to explain a failed start).
    let lastLogMessage = Mutex<String>("")
    /// Where `.blocking` answers run (nil with one thread per connection, whose thread runs them).
    let blocking: WorkerThreads?

    /// Connections suspended until their request's reply; also guards every ``RequestState/later``.
    struct Suspended {
        var connections: [ObjectIdentifier: (state: RequestState, connection: OpaquePointer)] = [:]
        /// Set when the server stops: nothing is suspended from then on.
        var closed = false
    }
    let suspended = Lock(Suspended())

    init(handler: any HTTPHandler, maxBodySize: Int, blocking: WorkerThreads?, log: (@Sendable (String) -> Void)?) {
        self.handler = handler
        self.maxBodySize = maxBodySize
        self.blocking = blocking
        self.log = log
    }

    /// Answers `request` as the handler says. Call only from the access handler (libmicrohttpd's
    /// rule for suspending a connection).
    func answer(_ request: HTTPRequest, state: RequestState, connection: OpaquePointer) -> MHD_Result {
        switch handler.answer(request) {
        case .now(let response):
            return queue(response, on: connection, core: self)
        case .blocking(let work):
            guard let pool = blocking else { return queue(work(), on: connection, core: self) }
            return later(state, connection) { reply in pool.run { reply(work()) } }
        case .later(let start):
            guard blocking != nil else { return queue(Self.wait(for: start), on: connection, core: self) }
            return later(state, connection, start)
        }
    }

    /// Runs `start`; queues its reply at once when it came before `start` returned, else
    /// suspends the connection until it comes.
    private func later(
        _ state: RequestState, _ connection: OpaquePointer, _ start: (@escaping HTTPAnswer.Reply) -> Void
    ) -> MHD_Result {
        suspended.withLock { _ in state.later = .starting }
        start { [self] response in reply(state, response) }
        let now: HTTPResponse? = suspended.withLock { suspended in
            if case .replied(let response) = state.later {
                state.later = .idle
                return response
            }
            if suspended.closed {
                state.later = .idle
                return Self.shuttingDown
            }
            // Suspended with the lock held, so a reply finds the connection suspended.
            MHD_suspend_connection(connection)
            state.later = .suspended(connection)
            suspended.connections[ObjectIdentifier(state)] = (state, connection)
            return nil
        }
        return now.map { queue($0, on: connection, core: self) } ?? .YES
    }

    /// Hands `response` to its request: kept for `later` while `start` runs, else its
    /// suspended connection resumes (and the access handler queues it: ``takeReply(_:)``).
    /// Dropped when the server abandoned the request.
    private func reply(_ state: RequestState, _ response: HTTPResponse) {
        suspended.withLock { suspended in
            switch state.later {
            case .starting:
                state.later = .replied(response)
            case .suspended(let connection):
                state.later = .replied(response)
                suspended.connections[ObjectIdentifier(state)] = nil
                MHD_resume_connection(connection)
            case .idle, .replied:
                break
            }
        }
    }

    /// The reply a resumed connection's request got (once).
    func takeReply(_ state: RequestState) -> HTTPResponse? {
        suspended.withLock { _ in
            guard case .replied(let response) = state.later else { return nil }
            state.later = .idle
            return response
        }
    }

    /// With one thread per connection: runs `start` and waits on this thread for its reply.
    private static func wait(for start: (@escaping HTTPAnswer.Reply) -> Void) -> HTTPResponse {
        final class Box: @unchecked Sendable {
            // @unchecked: written once before `done` is signalled, read after the wait.
            var response: HTTPResponse?
            let done = DispatchSemaphore(value: 0)
        }
        let box = Box()
        start { response in
            box.response = response
            box.done.signal()
        }
        box.done.wait()
        return box.response!
    }

    private static let shuttingDown = HTTPResponse(
        status: 503, headers: ["Content-Type": "text/plain; charset=utf-8", "Retry-After": "1"],
        body: Array("The server is shutting down.".utf8))

    /// Before the daemon stops (libmicrohttpd forbids stopping with suspended connections):
    /// resumes every suspended connection with 503 and suspends none from now on; their
    /// replies, when they come, are dropped. Returns how many there were.
    func abandonSuspended() -> Int {
        suspended.withLock { suspended in
            suspended.closed = true
            let count = suspended.connections.count
            for (state, connection) in suspended.connections.values {
                state.later = .replied(Self.shuttingDown)
                MHD_resume_connection(connection)
            }
            suspended.connections.removeAll()
            return count
        }
    }
}

/// One request's state between libmicrohttpd callbacks.
///
/// Created in the URI-log callback (libmicrohttpd's first per-request hook), which
/// hands it back as the initial `*con_cls`; retained once there and released exactly
/// once in the request-completed callback. Only the thread that owns the connection
/// touches it, except `later` (see there).
final class RequestState: @unchecked Sendable {
    // @unchecked: a reply made on another thread reaches it, touching only `later`.
    let core: ServerCore
    /// The request target as sent (`/path?query`).
    let rawTarget: [UInt8]
    /// Whether the access handler has already been called once (two-phase pattern).
    var headersProcessed = false
    /// Whether the request was answered (the handler was asked, or 413 was sent).
    var responded = false
    var headers: [HTTPHeaders.Field] = []
    var body: [UInt8] = []
    /// Whether an upload without a declared length exceeded the body limit.
    var overflowed = false
    /// Bytes received (and dropped) for an overflowed body.
    var discarded = 0

    /// Where a `.later` or `.blocking` answer is; read and written with `core.suspended` held.
    var later = Later.idle
    enum Later {
        case idle
        /// `start` is running on the connection's thread.
        case starting
        /// The connection is suspended until the reply.
        case suspended(OpaquePointer)
        /// The reply, for the connection's thread to queue.
        case replied(HTTPResponse)
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
