internal import CMicroHTTPD
import Dispatch
import Threading
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
    /// Connections handed to libmicrohttpd and not yet reported closed (``Acceptor``'s cap).
    let openConnections = Atomic<Int>(0)
    /// The last message libmicrohttpd logged (used to explain a failed start).
    let lastLogMessage = Mutex<String>("")
    /// Where `.blocking` answers run (nil with one thread per connection, whose thread runs them).
    let blocking: WorkerThreads?
    /// The per-address cap and the request deadline (nil when neither is configured).
    let connectionGuard: ConnectionGuard?

    /// Connections suspended until their request's reply.
    struct Suspended {
        var connections: [ObjectIdentifier: (state: RequestState, connection: OpaquePointer)] = [:]
        /// Set when the server stops: nothing is suspended from then on.
        var closed = false
    }
    let suspended = Lock(Suspended())

    init(
        handler: any HTTPHandler, maxBodySize: Int, blocking: WorkerThreads?, connectionGuard: ConnectionGuard?,
        log: (@Sendable (String) -> Void)?
    ) {
        self.handler = handler
        self.maxBodySize = maxBodySize
        self.blocking = blocking
        self.connectionGuard = connectionGuard
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

    /// Runs `start`; queues its reply at once when it came before `start` returned (a cache
    /// hit: no lock is taken), else suspends the connection until it comes.
    private func later(
        _ state: RequestState, _ connection: OpaquePointer, _ start: (@escaping HTTPAnswer.Reply) -> Void
    ) -> MHD_Result {
        start { [self] response in reply(state, response) }
        if state.phase.load(ordering: .acquiring) == RequestState.replied {
            return queue(state.early!, on: connection, core: self)
        }
        MHD_suspend_connection(connection)
        suspended.withLock { suspended in
            if suspended.closed {
                state.resumed = Self.shuttingDown
                MHD_resume_connection(connection)
            } else {
                suspended.connections[ObjectIdentifier(state)] = (state, connection)
            }
        }
        // A reply that came after `start` returned, before this, found the request not yet
        // suspended: it is resumed here.
        if !state.phase.compareExchange(
            expected: RequestState.starting, desired: RequestState.suspended, ordering: .acquiringAndReleasing
        ).exchanged {
            resume(state, with: state.early!)
        }
        return .YES
    }

    /// Hands `response` to its request: kept for `later` while the request is not suspended,
    /// else its connection resumes with it.
    private func reply(_ state: RequestState, _ response: HTTPResponse) {
        state.early = response
        if state.phase.exchange(RequestState.replied, ordering: .acquiringAndReleasing) == RequestState.suspended {
            resume(state, with: response)
        }
    }

    /// Resumes a suspended request's connection with `response` (the access handler then queues
    /// it: ``takeReply(_:)``), unless the server already resumed it when it stopped.
    private func resume(_ state: RequestState, with response: HTTPResponse) {
        suspended.withLock { suspended in
            guard let entry = suspended.connections.removeValue(forKey: ObjectIdentifier(state)) else { return }
            state.resumed = response
            MHD_resume_connection(entry.connection)
        }
    }

    /// The reply a resumed connection's request got (once).
    func takeReply(_ state: RequestState) -> HTTPResponse? {
        suspended.withLock { _ in
            defer { state.resumed = nil }
            return state.resumed
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
                state.resumed = Self.shuttingDown
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
/// touches it, except a reply's fields (see `phase`).
final class RequestState: @unchecked Sendable {
    // @unchecked: a reply made on another thread touches only `phase`, `early` and `resumed`.
    let core: ServerCore
    /// The request target as sent (`/path?query`).
    let rawTarget: [UInt8]
    /// Its connection's deadline bookkeeping (nil without a ``ConnectionGuard``).
    let connection: TrackedConnection?
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

    /// Where a `.later` or `.blocking` answer is: `starting` while `start` runs, `replied` once
    /// the reply is in `early`, `suspended` once the connection waits for it.
    let phase = Atomic<UInt8>(RequestState.starting)
    static let starting: UInt8 = 0, replied: UInt8 = 1, suspended: UInt8 = 2
    /// The reply; written before `phase` becomes `replied`, so read after seeing that.
    var early: HTTPResponse?
    /// The response a suspended connection resumes with; read and written with `core.suspended` held.
    var resumed: HTTPResponse?

    /// How far past the body limit an overflowing chunked upload is read (to be
    /// able to answer 413) before the connection is closed instead.
    static let overflowDiscardLimit = 1 << 20

    init(core: ServerCore, rawTarget: [UInt8], connection: TrackedConnection?) {
        self.core = core
        self.rawTarget = rawTarget
        self.connection = connection
        core.activeRequests.add(1, ordering: .relaxed)
    }

    deinit {
        core.activeRequests.subtract(1, ordering: .releasing)
    }
}
