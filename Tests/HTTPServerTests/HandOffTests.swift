import Foundation
import HTTPServer
import Synchronization
import Testing

/// A handler that uses all three answers of `respondWithoutBlocking`:
/// - `/inline`: answered on the event thread;
/// - `/block`: handed to the blocking pool, where `handle` waits for `release`;
/// - `/wait/N`: waits N times for work on another thread, then answers with what it got.
struct HandOffHandler: HTTPHandler {
    final class State: Sendable {
        let release = Gate()
        let blockedEntered = Atomic<Int>(0)
        let nonBlockingCalls = Atomic<Int>(0)
    }
    let state = State()

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path == "/block" {
            state.blockedEntered.add(1, ordering: .relaxed)
            state.release.wait()
        }
        return .text("handled \(request.path) on \(Self.threadName())")
    }

    /// The OS thread's name, which `WorkerThreads` sets from the thread itself before its first
    /// job. (Not Foundation's `Thread.current.name`: a thread starts with its creator's name,
    /// "MHD-worker", and Foundation may cache that.)
    static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        return comm.trimmingCharacters(in: .newlines)
    }

    func respondWithoutBlocking(to request: HTTPRequest, awaited: (any Sendable)?) -> NonBlockingResponse {
        state.nonBlockingCalls.add(1, ordering: .relaxed)
        switch request.path {
        case "/inline":
            return .response(.text("inline"))
        case "/block":
            return .needsBlocking
        default:
            guard request.path.hasPrefix("/wait/"), let rounds = Int(request.path.dropFirst(6)) else {
                return .response(HTTPResponse(status: 404))
            }
            let done = awaited as? [Int] ?? []
            if done.count == rounds { return .response(.text("awaited \(done)")) }
            return .waiting { finish in
                Thread { usleep(5_000); finish(done + [done.count]) }.start()
            }
        }
    }
}

@Suite("HTTPServer hand-off from event threads")
struct HandOffTests {
    @Test func eachKindOfAnswerArrivesOnOneKeptAliveConnection() throws {
        let handler = HandOffHandler()
        handler.state.release.open()
        let server = HTTPServer(configuration: .init(workerThreads: 2), handler: handler)
        try server.start()
        defer { server.stop() }
        let connection = try TestConnection(port: server.boundPort!)
        for (path, expected) in [
            ("/inline", "inline"), ("/block", "handled /block on gh-http-block"),
            ("/wait/1", "awaited [0]"), ("/wait/3", "awaited [0, 1, 2]"), ("/inline", "inline"),
        ] {
            try connection.send(TestConnection.request("GET", path))
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text == expected, "\(path)")
        }
    }

    @Test func blockedRequestsHoldUpNoEventThread() throws {
        let handler = HandOffHandler()
        let server = HTTPServer(configuration: .init(workerThreads: 1), handler: handler)
        try server.start()
        defer {
            handler.state.release.open()
            server.stop()
        }
        let port = server.boundPort!
        // Eight requests block in `handle` until released; one event thread serves them all.
        let blocked = (0..<8).map { _ in
            TestThread {
                let response = try? TestConnection.get("/block", port: port)
                #expect(response?.status == 200)
            }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while handler.state.blockedEntered.load(ordering: .acquiring) < 8 && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(handler.state.blockedEntered.load(ordering: .acquiring) == 8)
        // While they wait, the event thread still answers others.
        for _ in 0..<20 {
            #expect(try TestConnection.get("/inline", port: port).text == "inline")
            #expect(try TestConnection.get("/wait/2", port: port).text == "awaited [0, 1]")
        }
        handler.state.release.open()
        for thread in blocked { #expect(thread.join()) }
    }

    @Test func stopAnswersRequestsStillHandedOffWith503() throws {
        let handler = HandOffHandler()
        let server = HTTPServer(configuration: .init(workerThreads: 2), handler: handler)
        try server.start()
        let port = server.boundPort!
        let client = TestThread {
            let response = try? TestConnection.get("/block", port: port)
            #expect(response?.status == 503)
            #expect(response?.header("retry-after") == "1")
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while handler.state.blockedEntered.load(ordering: .acquiring) < 1 && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(server.stop(deadline: .now + .milliseconds(200)) == false)
        #expect(client.join())
        // The handler finishing after the daemon is gone must not touch its connection.
        handler.state.release.open()
        usleep(50_000)
    }

    @Test func onePerConnectionModeCallsOnlyHandle() throws {
        let handler = HandOffHandler()
        handler.state.release.open()
        let server = HTTPServer(configuration: .init(workerThreads: 0), handler: handler)
        try server.start()
        defer { server.stop() }
        let response = try TestConnection.get("/block", port: server.boundPort!)
        #expect(response.text.hasPrefix("handled /block on "))
        #expect(!response.text.hasSuffix("gh-http-block"))
        #expect(handler.state.nonBlockingCalls.load(ordering: .acquiring) == 0)
    }
}
