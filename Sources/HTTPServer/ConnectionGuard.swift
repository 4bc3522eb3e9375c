internal import CMicroHTTPD
internal import Glibc
import IPNetworks
import Threading
import Synchronization

/// The per-address connection cap and the whole-request deadline
/// (``HTTPServer/Configuration/maxConnectionsPerAddress`` and
/// ``HTTPServer/Configuration/requestTimeout``), kept from libmicrohttpd's connection
/// notifications (MHD_OPTION_NOTIFY_CONNECTION).
///
/// Cap: connections are counted per client network (an IPv4 address, an IPv6 /64: libmicrohttpd's
/// own per-IP limit counts each IPv6 address apart, and one host owns a whole /64); addresses in
/// `uncapped` (trusted proxies) are not counted. A connection over the cap is shut down as it
/// opens, so libmicrohttpd reads end-of-stream and closes it before any request.
///
/// Deadline: each connection records since when a request is being received. The clock starts
/// when the connection opens (the nearest point to its first byte libmicrohttpd reports), stops
/// once the request's body has arrived (an answer being worked out, e.g. a password hash, is
/// never cut), and after a response restarts at the next request line, or at the idle timeout if
/// that comes first (a keep-alive request line trickled byte by byte shows no line until it ends).
/// A sweeper thread shuts down, four times a second, every socket whose request has been
/// arriving for longer than the deadline. It calls `shutdown`, never `close`: the descriptor stays
/// libmicrohttpd's, which sees end-of-stream and closes it; and it does so with the table locked,
/// which the close notification needs first, so the descriptor cannot have been reused.
final class ConnectionGuard: Sendable {
    /// Most connections per client network (nil: no cap).
    let maxPerNetwork: Int?
    /// Peers never counted against the cap.
    let uncapped: [IPNetwork]
    /// Nanoseconds a request may take to arrive (0: no deadline).
    let requestTimeout: Int64
    /// Nanoseconds after a response within which a keep-alive connection's next request line
    /// counts as arriving then, not later (the idle timeout).
    let idleGrace: Int64

    /// What it shut down, and why.
    let counts: HTTPServer.ConnectionCounts

    private struct Table {
        var open: [ObjectIdentifier: TrackedConnection] = [:]
        var perNetwork: [IPAddress: Int] = [:]
    }
    private let table = Lock(Table())
    private let sweeper = WorkerThreads(name: "gh-http-sweep", maxThreads: 1)
    private let timer = ConditionMutex()
    private let wake = ConditionMutex.Condition()
    /// Set (with `timer` held) to end the sweeper.
    private let stopping = Atomic<Bool>(false)

    init(
        maxPerNetwork: Int?, uncapped: [IPNetwork], requestTimeoutSeconds: Int, idleTimeoutSeconds: Int,
        counts: HTTPServer.ConnectionCounts
    ) {
        self.counts = counts
        self.maxPerNetwork = maxPerNetwork
        self.uncapped = uncapped
        requestTimeout = Int64(requestTimeoutSeconds) * 1_000_000_000
        idleGrace = Int64(idleTimeoutSeconds) * 1_000_000_000
    }

    /// Starts the sweeper (when there is a deadline).
    func start() {
        guard requestTimeout > 0 else { return }
        sweeper.run { [self] in
            while timer.withLock({
                if !stopping.load(ordering: .relaxed) { _ = timer.wait(wake, seconds: 0.25) }
                return !stopping.load(ordering: .relaxed)
            }) {
                sweep()
            }
        }
    }

    /// Stops the sweeper and waits for it.
    func stop() {
        timer.withLock {
            stopping.store(true, ordering: .relaxed)
            wake.signal()
        }
        sweeper.shutDown(waiting: true)
    }

    /// MHD_CONNECTION_NOTIFY_STARTED: tracks the connection (retained in `*socketContext`) and
    /// shuts it down if its network is over the cap.
    func opened(_ connection: OpaquePointer, _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let fdInfo = gatehouse_mhd_connection_info(connection, .CONNECTION_INFO_CONNECTION_FD) else { return }
        let fd = fdInfo.pointee.connect_fd
        var network: IPAddress? = nil
        if maxPerNetwork != nil,
           let info = gatehouse_mhd_connection_info(connection, .CONNECTION_INFO_CLIENT_ADDRESS),
           let sockaddr = info.pointee.client_addr, let address = IPAddress(socketAddress: sockaddr),
           !uncapped.contains(where: { $0.contains(address) }) {
            network = address.clientNetwork
        }
        let tracked = TrackedConnection(fd: fd, network: network, since: Self.now())
        socketContext.pointee = Unmanaged.passRetained(tracked).toOpaque()
        let over = table.withLock { table in
            table.open[ObjectIdentifier(tracked)] = tracked
            guard let network, let maxPerNetwork else { return false }
            let count = table.perNetwork[network, default: 0] + 1
            table.perNetwork[network] = count
            return count > maxPerNetwork
        }
        if over {
            counts.refused.add(1, ordering: .relaxed)
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// MHD_CONNECTION_NOTIFY_CLOSED (before libmicrohttpd closes the socket): forgets the connection.
    func closed(_ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let raw = socketContext.pointee else { return }
        socketContext.pointee = nil
        let tracked = Unmanaged<TrackedConnection>.fromOpaque(raw).takeRetainedValue()
        table.withLock { table in
            table.open[ObjectIdentifier(tracked)] = nil
            if let network = tracked.network {
                let count = table.perNetwork[network, default: 1] - 1
                table.perNetwork[network] = count > 0 ? count : nil
            }
        }
    }

    /// The tracked connection of a libmicrohttpd connection (nil before it was tracked).
    static func tracked(_ connection: OpaquePointer) -> TrackedConnection? {
        guard let info = gatehouse_mhd_connection_info(connection, .CONNECTION_INFO_SOCKET_CONTEXT),
              let raw = info.pointee.socket_context else { return nil }
        return Unmanaged<TrackedConnection>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Shuts down every connection whose request has been arriving for longer than the deadline.
    private func sweep() {
        let now = Self.now()
        table.withLock { table in
            for tracked in table.open.values {
                let since = tracked.since.load(ordering: .relaxed)
                guard since != 0, now - since >= requestTimeout,
                      !tracked.cut.exchange(true, ordering: .relaxed) else { continue }
                counts.timedOut.add(1, ordering: .relaxed)
                shutdown(tracked.fd, Int32(SHUT_RDWR))
            }
        }
    }

    /// Monotonic nanoseconds from the coarse clock (a few milliseconds' resolution, no system call).
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// One open connection as ``ConnectionGuard`` sees it. `since` is written only by the thread that
/// serves the connection and read by the sweeper.
final class TrackedConnection: Sendable {
    let fd: Int32
    /// The client network counted against the cap (nil: not counted).
    let network: IPAddress?
    /// Since when (``ConnectionGuard/now()``) a request has been arriving; 0 while none is.
    let since: Atomic<Int64>
    /// Set once the sweeper has shut the connection down.
    let cut = Atomic<Bool>(false)

    init(fd: Int32, network: IPAddress?, since: Int64) {
        self.fd = fd
        self.network = network
        self.since = Atomic(since)
    }

    /// A request line arrived: its request has been arriving since now at the latest.
    func requestLineArrived() {
        let now = ConnectionGuard.now()
        let since = self.since.load(ordering: .relaxed)
        if since == 0 || since > now { self.since.store(now, ordering: .relaxed) }
    }

    /// The request's body has arrived: its answer is being worked out.
    func bodyReceived() {
        since.store(0, ordering: .relaxed)
    }

    /// A response was sent: the next request, if it comes, counts from its request line or from
    /// the end of the idle grace, whichever is first.
    func requestCompleted(idleGrace: Int64) {
        since.store(ConnectionGuard.now() + idleGrace, ordering: .relaxed)
    }
}
