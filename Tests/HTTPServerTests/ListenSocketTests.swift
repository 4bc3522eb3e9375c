import Foundation
import HTTPServer
import Testing
import TestSupport

/// A socket opened before the server starts (as a process started as root does for a port below
/// 1024, before it gives root up) and handed over in ``HTTPServer/Configuration/listenSocket``.
@Suite struct ListenSocketTests {
    @Test func serverServesASocketOpenedBeforehand() throws {
        let socket = try HTTPServer.openListeningSocket(host: "127.0.0.1", port: 0)
        var configuration = HTTPServer.Configuration()
        configuration.listenSocket = socket
        try withServer(configuration) { _, port, handler in
            #expect(port != 0, "the bound port is read from the socket")
            let response = try HTTPConnection(port: port).request("GET", "/status/204")
            #expect(response.status == 204)
            #expect(handler.state.callCount == 1)
        }
    }

    @Test func openingATakenAddressOrABadHostFails() throws {
        let first = try HTTPServer.openListeningSocket(host: "127.0.0.1", port: 0)
        defer { close(first) }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(first, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: port)) {
            _ = try HTTPServer.openListeningSocket(host: "127.0.0.1", port: port)
        }
        #expect(throws: HTTPServerError.invalidHost("localhost")) {
            _ = try HTTPServer.openListeningSocket(host: "localhost", port: 80)
        }
    }
}
