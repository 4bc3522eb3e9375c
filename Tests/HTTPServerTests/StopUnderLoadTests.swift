import Foundation
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// Stopping a server while new connections keep arriving. Each new connection wakes every event
/// thread (the listening socket is in each one's epoll set), so the threads are inside their event
/// loop whenever the stop begins: a stop that races them for the listening socket aborts the
/// process (libmicrohttpd's quiesce removes the socket from each thread's epoll set while the
/// thread may be removing it too, and panics when it loses).
@Suite struct StopUnderLoadTests {
    @Test func stoppingWhileConnectionsArriveNeverAborts() throws {
        for _ in 0..<100 {
            let handler = TestHandler()
            let server = HTTPServer(configuration: .init(workerThreads: 8, maxConnections: 16), handler: handler)
            try server.start()
            let port = try #require(server.boundPort)
            let stopped = Atomic<Bool>(false)
            let clients = (0..<8).map { _ in
                TestThread {
                    while !stopped.load(ordering: .acquiring) {
                        _ = try? HTTPConnection.get("/status/204", port: port)
                    }
                }
            }
            #expect(eventually { handler.state.callCount >= 20 })
            server.stop(deadline: .now + .seconds(5))
            stopped.store(true, ordering: .releasing)
            for client in clients { #expect(client.join()) }
            // Once stopped, the port refuses connections.
            #expect(throws: HTTPClientError.connectFailed(ECONNREFUSED)) { try HTTPConnection(port: port) }
        }
    }
}
