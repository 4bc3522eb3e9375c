import Foundation
import HTTPServer
import IPNetworks
import Synchronization
import TestSupport
import Testing

@Suite("HTTPServer over loopback")
struct HTTPServerTests {
    @Test func getDecodesPathAndQueryInOrder() throws {
        try withServer { _, port, _ in
            let response = try HTTPConnection.get(
                "/caf%C3%A9/a+b?q=hello+world&check=%E2%9C%93&empty=&flag&a=1&a=2&bad=%zz%4", port: port)
            #expect(response.status == 200)
            let lines = response.text.split(separator: "\n").map(String.init)
            #expect(lines.contains("method=GET"))
            #expect(lines.contains("path=/café/a+b"))
            #expect(lines.contains("rawQuery=q=hello+world&check=%E2%9C%93&empty=&flag&a=1&a=2&bad=%zz%4"))
            let params = lines.filter { $0.hasPrefix("param ") }
            #expect(params == [
                "param q=hello world", "param check=✓", "param empty=", "param flag=",
                "param a=1", "param a=2", "param bad=%zz%4",
            ])
        }
    }

    @Test func postBodyIsEchoed() throws {
        try withServer { _, port, _ in
            let body = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let response = try HTTPConnection(port: port).request(
                "POST", "/echo", headers: [("Content-Type", "application/octet-stream")], body: body)
            #expect(response.status == 200)
            #expect(response.body == body)
            #expect(response.header("content-type") == "application/octet-stream")
        }
    }

    @Test func chunkedBodyWithinLimitIsEchoed() throws {
        try withServer(.init(maxBodySize: 4096)) { _, port, _ in
            let connection = try HTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            try connection.send("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello world")
        }
    }

    @Test func headerLookupIsCaseInsensitiveAndOrdered() throws {
        try withServer { _, port, _ in
            let response = try HTTPConnection.get(
                "/describe", port: port, headers: [("x-CUSTOM-header", "ignored"), ("X-Custom", "first"), ("x-custom", "second")])
            let lines = response.text.split(separator: "\n").map(String.init)
            #expect(lines.contains("lookup x-custom=first"))
            #expect(lines.contains("all x-custom=first,second"))
            let custom = lines.filter { $0.hasPrefix("header x-") || $0.hasPrefix("header X-") }
            #expect(custom == ["header x-CUSTOM-header=ignored", "header X-Custom=first", "header x-custom=second"])
        }
    }

    @Test func clientAddressIsReported() throws {
        try withServer { _, port, _ in
            let response = try HTTPConnection.get("/describe", port: port)
            #expect(response.text.split(separator: "\n").contains("client=127.0.0.1"))
        }
    }

    @Test func ipv6LoopbackIsServed() throws {
        try withServer(.init(host: "::1")) { _, port, _ in
            let response = try HTTPConnection(host: "::1", port: port).request("GET", "/describe")
            #expect(response.status == 200)
            #expect(response.text.split(separator: "\n").contains("client=::1"))
        }
    }

    @Test func declaredOversizedBodyGets413WithoutReadingIt() throws {
        try withServer(.init(maxBodySize: 1024)) { server, port, handler in
            let connection = try HTTPConnection(port: port)
            // Only the headers are sent: the answer must not wait for the body.
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.text == #"{"error":"request body too large"}"#)
            #expect(response.header("Content-Type") == "application/json")
            #expect(connection.isClosedByPeer())
            #expect(handler.state.callCount == 0)
        }
    }

    @Test func chunkedOversizedBodyGets413() throws {
        try withServer(.init(maxBodySize: 1024)) { _, port, handler in
            let connection = try HTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = "400\r\n" + String(repeating: "x", count: 1024) + "\r\n"
            for _ in 0..<4 { try connection.send(chunk) }
            try connection.send("0\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.text == #"{"error":"request body too large"}"#)
            #expect(handler.state.callCount == 0)
        }
    }

    /// A handler that answers 413 itself, from the request without its body.
    struct TooLargeHandler: HTTPHandler {
        func answer(_ request: HTTPRequest) -> HTTPAnswer { .now(.text("answered")) }

        func bodyTooLarge(_ request: HTTPRequest, limit: Int) -> HTTPResponse {
            let text = "\(request.method) \(request.path)?\(request.rawQuery) from \(request.clientAddress), "
                + "X-Custom \(request.headers["X-Custom"] ?? "nil"), \(request.body.count) bytes, limit \(limit)"
            return .text(text, status: .contentTooLarge)
        }
    }

    @Test(arguments: [
        "Content-Length: 100000\r\n\r\n",
        "Transfer-Encoding: chunked\r\n\r\n" + String(repeating: "400\r\n" + String(repeating: "x", count: 1024) + "\r\n", count: 4) + "0\r\n\r\n",
    ])
    func theHandlerMakesThe413(_ body: String) throws {
        let server = HTTPServer(configuration: .init(maxBodySize: 1024), handler: TooLargeHandler())
        try server.start()
        defer { server.stop(deadline: .now + .seconds(5)) }
        let connection = try HTTPConnection(port: server.boundPort!)
        try connection.send("POST /up%20load?a=1 HTTP/1.1\r\nHost: x\r\nX-Custom: yes\r\n" + body)
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(response.text == "POST /up load?a=1 from 127.0.0.1, X-Custom yes, 0 bytes, limit 1024")
    }

    @Test func endlessChunkedBodyGetsConnectionClosed() throws {
        try withServer(.init(maxBodySize: 1024)) { _, port, handler in
            let connection = try HTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array(("10000\r\n" + String(repeating: "y", count: 65536) + "\r\n").utf8)
            // 8 MiB, far past limit + discard allowance; the server hangs up part way.
            var sendFailed = false
            for _ in 0..<128 {
                do { try connection.send(chunk) } catch { sendFailed = true; break }
            }
            if !sendFailed {
                #expect(connection.isClosedByPeer())
            }
            #expect(handler.state.callCount == 0)
        }
    }

    @Test func contentLengthShorterThanDataOnlyPassesDeclaredBytes() throws {
        try withServer(.init(maxBodySize: 64)) { _, port, handler in
            let connection = try HTTPConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloEXTRA-NOT-HTTP\r\n\r\n")
            let first = try connection.readResponse()
            #expect(first.status == 200)
            #expect(first.text == "hello")
            // The surplus is parsed as a next request, which libmicrohttpd rejects
            // by closing the connection (no space in the "request line").
            #expect(connection.isClosedByPeer())
            #expect(handler.state.callCount == 1)
        }
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        try withServer { _, port, _ in
            let connection = try HTTPConnection(port: port)
            let first = try connection.request("GET", "/describe?n=1")
            let second = try connection.request("POST", "/echo", body: Array("second".utf8))
            #expect(first.status == 200)
            #expect(first.header("Connection")?.lowercased() != "close")
            #expect(first.text.contains("param n=1"))
            #expect(second.status == 200)
            #expect(second.text == "second")
        }
    }

    @Test func concurrentRequestsFromManyThreads() throws {
        try withServer(.init(workerThreads: 4)) { _, port, handler in
            let failures = Locked<[String]>([])
            let threads = (0..<8).map { thread in
                TestThread {
                    do {
                        let connection = try HTTPConnection(port: port)
                        for request in 0..<25 {
                            let body = Array("t\(thread)-r\(request)".utf8)
                            let response = try connection.request("POST", "/echo", body: body)
                            if response.status != 200 || response.body != body {
                                failures.modify { $0.append("thread \(thread) request \(request): \(response.status)") }
                            }
                        }
                        // And one fresh connection per thread at the end.
                        let fresh = try HTTPConnection.get("/describe", port: port)
                        if fresh.status != 200 { failures.modify { $0.append("thread \(thread) fresh: \(fresh.status)") } }
                    } catch {
                        failures.modify { $0.append("thread \(thread): \(error)") }
                    }
                }
            }
            for thread in threads { #expect(thread.join()) }
            #expect(failures.get() == [])
            #expect(handler.state.callCount == 8 * 26)
        }
    }

    @Test func perAddressConnectionLimitClosesExtraConnections() throws {
        try withServer(.init(maxConnectionsPerAddress: 1)) { server, port, _ in
            let first = try HTTPConnection(port: port)
            #expect(try first.request("GET", "/describe").status == 200)
            // `first` is still open (keep-alive), so a second one from 127.0.0.1 is dropped.
            let second = try HTTPConnection(port: port)
            try? second.send("GET /describe HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(second.isClosedByPeer())
            #expect(try first.request("GET", "/describe").status == 200)
            #expect(server.refusedConnectionCount == 1)
        }
    }

    @Test func uncappedNetworksAreNotCounted() throws {
        try withServer(.init(maxConnectionsPerAddress: 1, uncappedNetworks: [IPNetwork("127.0.0.0/30")!])) { server, port, _ in
            let first = try HTTPConnection(port: port, sourceHost: "127.0.0.1")
            let second = try HTTPConnection(port: port, sourceHost: "127.0.0.1")
            #expect(try first.request("GET", "/describe").status == 200)
            #expect(try second.request("GET", "/describe").status == 200)
            // 127.0.0.5 is outside the uncapped network: its second connection is closed.
            let capped = try HTTPConnection(port: port, sourceHost: "127.0.0.5")
            #expect(try capped.request("GET", "/describe").status == 200)
            let over = try HTTPConnection(port: port, sourceHost: "127.0.0.5")
            try? over.send("GET /describe HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(over.isClosedByPeer())
            #expect(server.refusedConnectionCount == 1)
        }
    }

    /// The request deadline covers the request's arrival only: an answer that takes longer than the
    /// deadline (a password hash waiting its turn) is still sent.
    @Test func requestDeadlineSparesRequestsBeingAnswered() throws {
        try withServer(.init(requestTimeout: 1)) { server, port, handler in
            let slow = try HTTPConnection(port: port)
            try slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(handler.state.entered.wait())
            // A connection opened after the slow request arrived, sending half a request: once the
            // deadline has closed it, the slow request has outlived the deadline too.
            let stalled = try HTTPConnection(port: port)
            try stalled.send("GET /describe HTTP/1.1\r\nHost: x\r\n")
            #expect(stalled.isClosedByPeer())
            #expect(server.timedOutRequestCount == 1)
            handler.state.release.open()
            #expect(try slow.readResponse().text == "slow done")
            // And the keep-alive connection serves its next request.
            #expect(try slow.request("GET", "/describe").status == 200)
        }
    }

    /// With event threads and with one thread per connection.
    @Test(arguments: [2, 0])
    func requestDeadlineClosesAConnectionThatSendsNothing(workerThreads: Int) throws {
        try withServer(.init(workerThreads: workerThreads, requestTimeout: 1)) { server, port, _ in
            let silent = try HTTPConnection(port: port)
            #expect(silent.isClosedByPeer())
            #expect(server.timedOutRequestCount == 1)
        }
    }

    @Test func portInUseIsAClearError() throws {
        try withServer { _, port, _ in
            let second = HTTPServer(configuration: .init(host: "127.0.0.1", port: port), handler: TestHandler())
            #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: port)) {
                try second.start()
            }
            let error = HTTPServerError.addressInUse(host: "127.0.0.1", port: port)
            #expect(error.description == "address 127.0.0.1:\(port) is already in use")
            #expect(second.boundPort == nil)
        }
    }

    @Test func invalidHostIsRejected() {
        let server = HTTPServer(configuration: .init(host: "localhost"), handler: TestHandler())
        #expect(throws: HTTPServerError.invalidHost("localhost")) { try server.start() }
    }

    @Test func startTwiceIsRejected() throws {
        try withServer { server, _, _ in
            _ = #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
        }
    }

    @Test func gracefulStopWaitsForInFlightRequestThenRefusesConnections() throws {
        let handler = TestHandler()
        // A port outside Linux's ephemeral range (32768-60999): once this server closes it,
        // no other test's port-0 server can be handed it, so a refusal is ours to see.
        func startOnFreePort() throws -> HTTPServer {
            for _ in 0..<20 {
                let candidate = HTTPServer(configuration: .init(port: Int.random(in: 20000...30000)), handler: handler)
                if (try? candidate.start()) != nil { return candidate }
            }
            throw HTTPServerError.startFailed("no free port found")
        }
        let server = try startOnFreePort()
        let port = try #require(server.boundPort)
        defer { handler.state.release.open(); server.stop(deadline: .now) }

        let slowResult = Locked<Result<RawResponse, HTTPClientError>?>(nil)
        let client = TestThread {
            let result = Result { () throws(HTTPClientError) -> RawResponse in try HTTPConnection.get("/slow", port: port) }
            slowResult.set(result)
        }
        #expect(handler.state.entered.wait())
        #expect(server.activeRequestCount == 1)

        let stopReturned = Gate()
        let drained = Gate()
        let stopper = TestThread {
            if server.stop(deadline: .now + .seconds(60)) { drained.open() }
            stopReturned.open()
        }
        // Once stop has shut the listener down (bounded wait: a loaded machine may be slow
        // to run the stopper), a new connection is refused.
        #expect(eventually { !server.isAcceptingConnections })
        var refused = false
        do {
            _ = try HTTPConnection(port: port)
        } catch {
            refused = error == .connectFailed(ECONNREFUSED)
        }
        #expect(refused)
        // The slow request cannot have finished: its handler is still held.
        #expect(!stopReturned.isOpen)

        handler.state.release.open()
        #expect(client.join())
        #expect(stopper.join())
        #expect(stopReturned.isOpen)
        #expect(drained.isOpen)
        let response = try #require(try slowResult.get()?.get())
        #expect(response.status == 200)
        #expect(response.text == "slow done")
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(server.boundPort == nil)
    }

    @Test func stopDeadlinePassesWithRequestStillInFlight() throws {
        let handler = TestHandler()
        let server = HTTPServer(configuration: .init(), handler: handler)
        try server.start()
        let port = try #require(server.boundPort)
        let client = TestThread { _ = try? HTTPConnection.get("/slow", port: port) }
        #expect(handler.state.entered.wait())
        // A deadline already past: the request is still held, so stop reports it
        // was not drained. libmicrohttpd joins its workers, so stop itself returns
        // only once the held handler does; release it once stop has given up waiting.
        let drained = Locked<Bool?>(nil)
        let stopper = TestThread { drained.set(server.stop(deadline: .now - .seconds(1))) }
        #expect(eventually { server.isClosingConnections })
        handler.state.release.open()
        #expect(stopper.join())
        #expect(drained.get() == false)
        #expect(client.join())
    }

    @Test func malformedRequestLineIsAnswered400ByLibmicrohttpd() throws {
        try withServer { _, port, handler in
            let connection = try HTTPConnection(port: port)
            try connection.send("GARBAGE /x\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(response.header("Connection")?.lowercased() == "close")
            // A request line with no space at all is not even answered: closed.
            let unsplittable = try HTTPConnection(port: port)
            try unsplittable.send("GARBAGE\r\n\r\n")
            #expect(unsplittable.isClosedByPeer())
            #expect(handler.state.callCount == 0)
        }
    }

    @Test func malformedHeaderIsAnswered400ByLibmicrohttpd() throws {
        try withServer { _, port, handler in
            let connection = try HTTPConnection(port: port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(handler.state.callCount == 0)
        }
    }

    @Test func oversizedHeaderIsAnswered431ByLibmicrohttpd() throws {
        try withServer(.init(connectionMemoryLimit: 16 * 1024)) { _, port, handler in
            let connection = try HTTPConnection(port: port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 40_000) + "\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 431)
            #expect(handler.state.callCount == 0)
        }
    }

    @Test func unusableResponseHeadersAndStatusesAreSanitized() throws {
        try withServer { _, port, _ in
            let bad = try HTTPConnection.get("/bad-header", port: port)
            #expect(bad.status == 200)
            #expect(bad.header("X-Good") == "yes")
            #expect(bad.header("X-Bad") == nil)
            #expect(bad.header("Injected") == nil)
            #expect(try HTTPConnection.get("/status/42", port: port).status == 500)
            #expect(try HTTPConnection.get("/status/404", port: port).status == 404)
        }
    }

    /// A request's context is released however it ends, at the latest when its connection's idle
    /// timeout closes it: libmicrohttpd (0.9.75, epoll) sometimes notices a client that closed
    /// right after sending part of a body only then (seen once in a full suite run, where the
    /// default 30 s timeout equalled this test's wait).
    @Test func everyRequestContextIsReleased() throws {
        try withServer(.init(maxBodySize: 1024, connectionMemoryLimit: 16 * 1024, connectionTimeout: 3)) { server, port, _ in
            _ = try HTTPConnection.get("/describe", port: port)
            #expect(eventually { server.activeRequestCount == 0 }, "completed request")

            _ = try? HTTPConnection.get("/x", port: port, headers: [("X-Big", String(repeating: "b", count: 40_000))])
            #expect(eventually { server.activeRequestCount == 0 }, "431 oversized header")

            do {
                let c = try HTTPConnection(port: port)
                try c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
                _ = try c.readResponse()
            }
            #expect(eventually { server.activeRequestCount == 0 }, "early 413")

            do {
                let c = try HTTPConnection(port: port)
                try c.send("GET / HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n")
                _ = try c.readResponse()
            }
            #expect(eventually { server.activeRequestCount == 0 }, "400 malformed header")

            do {
                // Abandoned mid-body: completed with an error when the client goes away.
                let c = try HTTPConnection(port: port)
                try c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
            }
            #expect(eventually { server.activeRequestCount == 0 }, "client gone mid-body")
        }
    }
}
