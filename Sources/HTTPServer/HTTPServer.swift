internal import CMicroHTTPD
internal import Glibc
import IPNetworks
import Threading
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that passes whole requests to an ``HTTPHandler``.
///
/// Threads: with ``Configuration/workerThreads`` ≥ 1, that many event threads (epoll), each
/// serving many connections and asking the handler for each request's ``HTTPAnswer``; a
/// `.blocking` answer runs on a pool of up to ``Configuration/blockingThreads`` threads and a
/// `.later` one wherever its work completes, while the connection is suspended. With
/// `workerThreads` 0, one thread per connection answers its requests and waits for those that
/// come later. Keep-alive, pipelining and chunked uploads are libmicrohttpd's.
///
/// Bad input is answered by libmicrohttpd before the handler sees it: a malformed
/// request line or header gets `400 Bad Request` and the connection is closed (a
/// request line without any space is not answered at all: the connection is just
/// closed); a
/// request line plus headers larger than ``Configuration/connectionMemoryLimit``
/// gets `431 Request Header Fields Too Large` (libmicrohttpd 0.9.75 answers `414
/// URI Too Long` instead when the request line alone does not fit); a body over
/// ``Configuration/maxBodySize`` gets the handler's ``HTTPHandler/bodyTooLarge(_:limit:)`` (413): with a
/// `Content-Length` it is sent before any of the body is read and the connection is
/// then closed; a chunked body is counted as it arrives, never buffered past the
/// limit, and answered 413 when it ends within 1 MiB past the limit (libmicrohttpd
/// accepts no response in the middle of a body); longer than that, the connection is
/// closed without a response. The handler never sees an oversized body.
///
/// Ownership: this class owns the `MHD_Daemon` handle (created by ``start()``,
/// destroyed by ``stop(deadline:)``) and the ``ServerCore`` the callbacks use, which
/// it keeps alive until the daemon is gone. `deinit` stops a running daemon without
/// waiting for in-flight requests. All methods may be called from any thread, but
/// never call ``stop(deadline:)`` from inside the handler (it would wait for itself).
public final class HTTPServer: Sendable {
    /// Listening address and limits.
    public struct Configuration: Sendable {
        /// Numeric address to bind: `127.0.0.1`, `0.0.0.0`, `::1`, or `::` (IPv6
        /// and IPv4, dual stack). Host names are not resolved.
        public var host: String
        /// TCP port; 0 picks a free port (read it from ``HTTPServer/boundPort``).
        public var port: Int
        /// Event threads in libmicrohttpd's pool (each serves many connections); 0: one
        /// thread per connection, which runs every request itself.
        public var workerThreads: Int
        /// Most threads running `.blocking` answers for the event threads (unused with one
        /// thread per connection). More wait for a free thread.
        public var blockingThreads: Int
        /// Largest accepted request body in bytes; larger bodies get 413.
        public var maxBodySize: Int
        /// Memory per connection for the request line, headers and read buffer
        /// (MHD_OPTION_CONNECTION_MEMORY_LIMIT); bigger headers get 431. libmicrohttpd zeroes
        /// all of it between keep-alive requests, so it costs time per request (32 KiB: as
        /// nginx's default header buffers).
        public var connectionMemoryLimit: Int
        /// Seconds of inactivity before a connection is closed (0: never).
        public var connectionTimeout: Int
        /// Seconds within which a request's line, headers and body must all arrive, however
        /// steadily they trickle, counted from the connection's opening (a keep-alive
        /// connection's later requests: from their request line, or from the idle timeout
        /// after the previous response if that is sooner); then the connection is closed.
        /// A request whose body has arrived is never cut. 0: no deadline.
        public var requestTimeout: Int
        /// Most connections open at once; further connections are closed on accept.
        public var maxConnections: Int
        /// Most connections open at once from one client network, an IPv4 address or an IPv6
        /// /64 (`nil`: no limit); further ones are closed as they open, before any request.
        public var maxConnectionsPerAddress: Int?
        /// Peers not counted against ``maxConnectionsPerAddress`` (trusted proxies, which carry
        /// many clients' connections).
        public var uncappedNetworks: [IPNetwork]
        /// Receives libmicrohttpd's diagnostic messages (`nil`: dropped).
        public var log: (@Sendable (String) -> Void)?
        /// A socket already bound and listening (``HTTPServer/openListeningSocket(host:port:)``)
        /// to serve instead of binding `host:port`; the server owns it from ``HTTPServer/start()`` on.
        public var listenSocket: Int32? = nil
        /// Where the server counts the connections it shuts down (give one to whoever reports them).
        public var connectionCounts = ConnectionCounts()

        /// Creates a configuration; defaults suit a loopback service.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            workerThreads: Int = 2,
            blockingThreads: Int = 256,
            maxBodySize: Int = 1 << 20,
            connectionMemoryLimit: Int = 32 << 10,
            connectionTimeout: Int = 30,
            requestTimeout: Int = 0,
            maxConnections: Int = 1000,
            maxConnectionsPerAddress: Int? = nil,
            uncappedNetworks: [IPNetwork] = [],
            log: (@Sendable (String) -> Void)? = nil
        ) {
            self.host = host
            self.port = port
            self.workerThreads = workerThreads
            self.blockingThreads = blockingThreads
            self.maxBodySize = maxBodySize
            self.connectionMemoryLimit = connectionMemoryLimit
            self.connectionTimeout = connectionTimeout
            self.requestTimeout = requestTimeout
            self.maxConnections = maxConnections
            self.maxConnectionsPerAddress = maxConnectionsPerAddress
            self.uncappedNetworks = uncappedNetworks
            self.log = log
        }
    }

    private enum Phase {
        case idle
        case running(daemon: OpaquePointer, port: Int, acceptor: Acceptor)
        case stopped
    }

    /// The configuration this server was created with.
    public let configuration: Configuration
    private let core: ServerCore
    private let phase = Mutex<Phase>(.idle)
    /// Set by `stop` once it no longer waits for in-flight requests.
    private let closing = Atomic<Bool>(false)

    /// Creates a stopped server; nothing is bound until ``start()``.
    public init(configuration: Configuration, handler: some HTTPHandler) {
        self.configuration = configuration
        self.core = ServerCore(
            handler: handler, maxBodySize: configuration.maxBodySize,
            blocking: configuration.workerThreads > 0 ? WorkerThreads(name: "gh-http-block", maxThreads: max(1, configuration.blockingThreads)) : nil,
            connectionGuard: configuration.maxConnectionsPerAddress != nil || configuration.requestTimeout > 0
                ? ConnectionGuard(
                    maxPerNetwork: configuration.maxConnectionsPerAddress, uncapped: configuration.uncappedNetworks,
                    requestTimeoutSeconds: configuration.requestTimeout, idleTimeoutSeconds: configuration.connectionTimeout,
                    counts: configuration.connectionCounts)
                : nil,
            log: configuration.log)
    }

    deinit {
        if case .running(let daemon, _, let acceptor) = phase.withLock({ $0 }) {
            acceptor.stop()
            _ = core.abandonSuspended()
            MHD_stop_daemon(daemon)
            core.connectionGuard?.stop()
        }
    }

    /// The TCP port actually bound while running (the real port when configured with 0).
    public var boundPort: Int? {
        phase.withLock { phase in
            if case .running(_, let port, _) = phase { port } else { nil }
        }
    }

    /// Requests received (request line read) whose completion has not been reported yet.
    public var activeRequestCount: Int {
        core.activeRequests.load(ordering: .acquiring)
    }

    /// Connections open now (accepted and not yet closed, idle or not); 0 when not running.
    /// libmicrohttpd's own count, read without its locks: a snapshot, for tests and diagnostics.
    public var openConnectionCount: Int {
        phase.withLock { phase in
            // Under the lock: `stop` cannot destroy the daemon during the call.
            guard case .running(let daemon, _, _) = phase,
                  let info = gatehouse_mhd_daemon_info(daemon, .DAEMON_INFO_CURRENT_CONNECTIONS) else { return 0 }
            return Int(info.pointee.num_connections)
        }
    }

    /// Connections the server shut down, by reason (``Configuration/connectionCounts``).
    public final class ConnectionCounts: Sendable {
        /// Closed as they opened for being over ``Configuration/maxConnectionsPerAddress``.
        public let refused = Atomic<Int>(0)
        /// Closed because a request had not arrived within ``Configuration/requestTimeout``.
        public let timedOut = Atomic<Int>(0)

        public init() {}
    }

    /// Connections closed as they opened for being over ``Configuration/maxConnectionsPerAddress``.
    public var refusedConnectionCount: Int { configuration.connectionCounts.refused.load(ordering: .relaxed) }

    /// Connections closed because a request had not arrived within ``Configuration/requestTimeout``.
    public var timedOutRequestCount: Int { configuration.connectionCounts.timedOut.load(ordering: .relaxed) }

    /// Whether ``stop(deadline:)`` has finished waiting for in-flight requests (they
    /// completed or its deadline passed) and has gone on to close the connections.
    public var isClosingConnections: Bool { closing.load(ordering: .acquiring) }

    /// Whether new connections are still accepted: false once ``stop(deadline:)`` has
    /// shut the listening socket down (connections are then refused).
    public var isAcceptingConnections: Bool {
        if case .idle = phase.withLock({ $0 }) { return false }  // never started
        return !core.listenerShut.load(ordering: .acquiring)
    }

    /// Binds the address (or takes ``Configuration/listenSocket``) and starts serving. A server
    /// starts at most once; a given listening socket is closed if the start fails.
    public func start() throws(HTTPServerError) {
        try phase.withLock { phase throws(HTTPServerError) in
            guard case .idle = phase else { throw .alreadyStarted }
            let config = configuration
            let acceptor: Acceptor
            do throws(HTTPServerError) {
                try Self.validate(config)
                let listener: Int32
                if let socket = config.listenSocket { listener = socket } else {
                    listener = try Self.openListeningSocket(host: config.host, port: config.port)
                }
                do throws(HTTPServerError) {
                    acceptor = try Acceptor(listener: listener, maxConnections: config.maxConnections, core: core)
                } catch {
                    close(listener)
                    throw error
                }
            } catch {
                if let socket = config.listenSocket { close(socket) }
                throw error
            }
            do throws(HTTPServerError) {
                guard let port = Self.port(ofListeningSocket: acceptor.listener) else {
                    throw .startFailed("could not read the bound port")
                }
                guard let daemon = Self.startDaemon(config: config, core: core) else {
                    let message = core.lastLogMessage.withLock { $0 }
                    throw .startFailed(message.isEmpty ? "libmicrohttpd returned no daemon (errno \(errno))" : message)
                }
                phase = .running(daemon: daemon, port: port, acceptor: acceptor)
                core.connectionGuard?.start()
                acceptor.start(daemon: daemon)
            } catch {
                acceptor.discard()
                throw error
            }
        }
    }

    private static func validate(_ config: Configuration) throws(HTTPServerError) {
        guard (0...65535).contains(config.port) else {
            throw .invalidConfiguration("port \(config.port) is outside 0...65535")
        }
        guard config.workerThreads >= 0, config.workerThreads <= 1024 else {
            throw .invalidConfiguration("workerThreads must be between 0 (one per connection) and 1024")
        }
        guard config.blockingThreads >= 1 else { throw .invalidConfiguration("blockingThreads must be at least 1") }
        guard config.maxBodySize >= 0 else { throw .invalidConfiguration("maxBodySize must not be negative") }
        guard config.connectionMemoryLimit >= 4096 else {
            throw .invalidConfiguration("connectionMemoryLimit must be at least 4096 bytes")
        }
        guard (0...Int(UInt32.max)).contains(config.connectionTimeout) else {
            throw .invalidConfiguration("connectionTimeout must be between 0 and \(UInt32.max) seconds")
        }
        guard (1...Int(UInt32.max)).contains(config.maxConnections) else {
            throw .invalidConfiguration("maxConnections must be at least 1")
        }
        guard (0...Int(UInt32.max)).contains(config.requestTimeout) else {
            throw .invalidConfiguration("requestTimeout must be between 0 and \(UInt32.max) seconds")
        }
        if let perAddress = config.maxConnectionsPerAddress, perAddress < 1 {
            throw .invalidConfiguration("maxConnectionsPerAddress must be at least 1")
        }
    }

    /// Graceful shutdown: stops accepting connections, waits until in-flight
    /// requests finish or `deadline` passes, then closes every connection.
    ///
    /// Responses sent while draining carry `Connection: close`. When the deadline
    /// passes, remaining connections are closed, but a handler already running cannot
    /// be interrupted: libmicrohttpd joins its worker threads, so this returns once
    /// running handlers return. Safe to call more than once and on a server never
    /// started.
    /// - Returns: `true` if no request was still in flight when the daemon stopped.
    @discardableResult
    public func stop(deadline: ContinuousClock.Instant = .now + .seconds(10)) -> Bool {
        let running: (OpaquePointer, Acceptor)? = phase.withLock { phase in
            switch phase {
            case .running(let daemon, _, let acceptor):
                phase = .stopped
                return (daemon, acceptor)
            case .idle:
                phase = .stopped
                return nil
            case .stopped:
                return nil
            }
        }
        guard let (daemon, acceptor) = running else {
            core.listenerShut.store(true, ordering: .releasing)
            return true
        }
        core.draining.store(true, ordering: .relaxed)
        // The listening socket is closed now: new connections are refused at once rather than
        // waiting in the backlog of a server that will not serve them.
        acceptor.stop()
        core.listenerShut.store(true, ordering: .releasing)
        while activeRequestCount > 0 && ContinuousClock.now < deadline {
            usleep(2_000)
        }
        let drained = activeRequestCount == 0
        closing.store(true, ordering: .releasing)
        if core.abandonSuspended() > 0 {
            // Give the event threads a moment to send those 503s before the daemon goes.
            let grace = ContinuousClock.now + .milliseconds(200)
            while activeRequestCount > 0 && ContinuousClock.now < grace { usleep(1_000) }
        }
        MHD_stop_daemon(daemon)
        core.connectionGuard?.stop()
        core.blocking?.shutDown(waiting: false)
        return drained
    }

    private static func startDaemon(
        config: Configuration, core: ServerCore
    ) -> OpaquePointer? {
        // The server accepts connections itself (``Acceptor``); libmicrohttpd serves them.
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
            | MHD_USE_NO_LISTEN_SOCKET.rawValue
        // Thread per connection cannot be combined with epoll; poll() serves its listener.
        flags |= config.workerThreads == 0
            ? MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
            : MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let coreContext = Unmanaged.passUnretained(core).toOpaque()
        let uriLog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = gatehouseURILog
        let completed: MHD_RequestCompletedCallback = gatehouseRequestCompleted
        let logger: MHD_LogCallback = gatehouseLog
        let access: MHD_AccessHandlerCallback = gatehouseAccessHandler
        let notify: MHD_NotifyConnectionCallback = gatehouseConnectionNotify

        var options: [MHD_OptionItem] = [
            // Two-pointer options pass the function as intptr_t (MHD_OPTION_ARRAY docs).
            MHD_OptionItem(option: .EXTERNAL_LOGGER, value: unsafeBitCast(logger, to: Int.self), ptr_value: coreContext),
            MHD_OptionItem(option: .URI_LOG_CALLBACK, value: unsafeBitCast(uriLog, to: Int.self), ptr_value: coreContext),
            MHD_OptionItem(option: .NOTIFY_COMPLETED, value: unsafeBitCast(completed, to: Int.self), ptr_value: coreContext),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: config.connectionMemoryLimit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: config.connectionTimeout, ptr_value: nil),
            // The cap is the acceptor's: libmicrohttpd 0.9.75 keeps a lock held when a connection
            // handed to it is over its own limit (new_connection_process_), and an event thread
            // then deadlocks. Its limit, split over the event threads, is set so that no thread's
            // share is ever reached.
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: (config.maxConnections + 1) * max(1, config.workerThreads), ptr_value: nil),
            MHD_OptionItem(option: .NOTIFY_CONNECTION, value: unsafeBitCast(notify, to: Int.self), ptr_value: coreContext),
        ]
        if config.workerThreads > 1 {
            options.append(MHD_OptionItem(option: .THREAD_POOL_SIZE, value: config.workerThreads, ptr_value: nil))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))

        return options.withUnsafeMutableBufferPointer { items in
            withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(flags, 0, nil, nil, access, coreContext, arguments)
            }
        }
    }
}
