internal import CMicroHTTPD
internal import Glibc
import Threading

/// Accepts connections on the server's listening socket and hands each to libmicrohttpd
/// (MHD_add_connection), whose event threads serve it from then on.
///
/// The server accepts itself rather than letting libmicrohttpd listen so that it can stop
/// accepting without MHD_quiesce_daemon: in libmicrohttpd 0.9.75 that call removes the
/// listening socket from each event thread's epoll set while the thread may be removing it too,
/// and the one that loses the race aborts the process ("Failed to remove listen FD from epoll
/// set"). Here stopping is ours: ``stop()`` wakes the thread, waits for it, and closes the
/// socket, so connections are refused from then on.
///
/// It also keeps ``HTTPServer/Configuration/maxConnections``: a connection past it is closed as
/// it opens (libmicrohttpd's own limit is set out of reach, see `HTTPServer.startDaemon`).
final class Acceptor: Sendable {
    let listener: Int32
    private let maxConnections: Int
    private let core: ServerCore
    /// A pipe: ``stop()`` writes to it to wake the thread out of `poll`.
    private let wake: (read: Int32, write: Int32)
    private let thread = WorkerThreads(name: "gh-http-accept", maxThreads: 1, idleSeconds: .infinity)

    /// Takes ownership of `listener` (closed by ``stop()``).
    init(listener: Int32, maxConnections: Int, core: ServerCore) throws(HTTPServerError) {
        var pipe: [Int32] = [-1, -1]
        guard gatehouse_pipe2(&pipe, O_CLOEXEC) == 0 else { throw .startFailed("pipe: errno \(errno)") }
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        self.listener = listener
        self.maxConnections = maxConnections
        self.core = core
        self.wake = (pipe[0], pipe[1])
    }

    /// Starts accepting for `daemon` (started with MHD_USE_NO_LISTEN_SOCKET).
    func start(daemon: OpaquePointer) {
        let address = UInt(bitPattern: daemon)
        thread.run { [self] in run(daemon: OpaquePointer(bitPattern: address)!) }
    }

    /// Stops accepting and closes the listening socket; returns once the thread has ended, so
    /// no connection is handed to the daemon after this. Call once.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        thread.shutDown(waiting: true)
        discard()
    }

    /// Closes the sockets of an acceptor that never started.
    func discard() {
        close(listener)
        close(wake.read)
        close(wake.write)
    }

    private func run(daemon: OpaquePointer) {
        var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        // After running out of descriptors or memory, the listener is left alone for a moment
        // (the pending connection stays in the backlog) instead of being polled in a busy loop.
        var pause: Int32 = -1
        while true {
            fds[0].events = pause < 0 ? Int16(POLLIN) : 0
            if poll(&fds, 2, pause) < 0 {
                if errno != EINTR { pause = 100 }  // ENOMEM: try again in a moment
                continue
            }
            if fds[1].revents != 0 { return }
            pause = -1
            while true {
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let fd = withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        gatehouse_accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
                    }
                }
                if fd < 0 {
                    switch errno {
                    case EINTR, ECONNABORTED, EPROTO, EPERM: continue
                    case EMFILE, ENFILE, ENOBUFS, ENOMEM: pause = 100
                    default: break  // EAGAIN: nothing more waiting
                    }
                    break
                }
                // Over the cap, the connection is closed as it opens.
                guard core.openConnections.add(1, ordering: .relaxed).newValue <= maxConnections else {
                    core.openConnections.subtract(1, ordering: .relaxed)
                    close(fd)
                    continue
                }
                // libmicrohttpd owns the socket from here and reports its close (the count goes
                // down then); a connection it refuses at once it has closed already.
                let added = withUnsafePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MHD_add_connection(daemon, fd, $0, length) }
                }
                if added != .YES { core.openConnections.subtract(1, ordering: .relaxed) }
            }
        }
    }
}
