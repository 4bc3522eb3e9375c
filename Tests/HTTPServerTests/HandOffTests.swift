import Foundation
import HTTPServer
import Synchronization
import TestSupport
import Testing

/// A handler that uses every kind of answer:
/// - `/inline`: answered now;
/// - `/block`: blocking work, which waits for `release`;
/// - `/wait/N`: a later answer, after N rounds of work on other threads;
/// - `/soon`: a later answer replied before `start` returns;
/// - `/hold`: a later answer replied from another thread once `release` opens.
struct HandOffHandler: HTTPHandler {
    final class State: Sendable {
        let release = Gate()
        let blockedEntered = Atomic<Int>(0)
        let lateReplies = Atomic<Int>(0)
    }
    let state = State()

    /// The OS thread's name, which `WorkerThreads` sets from the thread itself before its first
    /// job. (Not Foundation's `Thread.current.name`: a thread starts with its creator's name,
    /// "MHD-worker", and Foundation may cache that.)
    static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        return comm.trimmingCharacters(in: .newlines)
    }

    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        switch request.path {
        case "/inline":
            return .now(.text("inline"))
        case "/soon":
            return .later { reply in reply(.text("soon")) }
        case "/hold":
            return .later { [state] reply in
                Thread {
                    state.blockedEntered.add(1, ordering: .relaxed)
                    state.release.wait()
                    reply(.text("held"))
                    state.lateReplies.add(1, ordering: .releasing)
                }.start()
            }
        case "/block":
            return .blocking { [state] in
                state.blockedEntered.add(1, ordering: .relaxed)
                state.release.wait()
                return .text("handled /block on \(Self.threadName())")
            }
        default:
            guard request.path.hasPrefix("/wait/"), let rounds = Int(request.path.dropFirst(6)) else {
                return .now(HTTPResponse(status: 404))
            }
            return .later { reply in Self.work(rounds, done: [], reply) }
        }
    }

    /// Hops to a new thread `rounds` times, then replies with the rounds it did.
    private static func work(_ rounds: Int, done: [Int], _ reply: @escaping HTTPAnswer.Reply) {
        guard done.count < rounds else { return reply(.text("awaited \(done)")) }
        Thread { work(rounds, done: done + [done.count], reply) }.start()
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
        let connection = try HTTPConnection(port: server.boundPort!)
        for (path, expected) in [
            ("/inline", "inline"), ("/block", "handled /block on gh-http-block"),
            ("/wait/1", "awaited [0]"), ("/wait/3", "awaited [0, 1, 2]"), ("/soon", "soon"), ("/inline", "inline"),
        ] {
            let response = try connection.request("GET", path)
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
                let response = try? HTTPConnection.get("/block", port: port)
                #expect(response?.status == 200)
            }
        }
        #expect(eventually { handler.state.blockedEntered.load(ordering: .acquiring) == 8 })
        // While they wait, the event thread still answers others.
        for _ in 0..<20 {
            #expect(try HTTPConnection.get("/inline", port: port).text == "inline")
            #expect(try HTTPConnection.get("/wait/2", port: port).text == "awaited [0, 1]")
        }
        handler.state.release.open()
        for thread in blocked { #expect(thread.join()) }
    }

    @Test func stopAnswersRequestsStillHandedOffWith503() throws {
        let handler = HandOffHandler()
        let server = HTTPServer(configuration: .init(workerThreads: 2), handler: handler)
        try server.start()
        let port = server.boundPort!
        let clients = ["/block", "/hold"].map { path in
            TestThread {
                let response = try? HTTPConnection.get(path, port: port)
                #expect(response?.status == 503, "\(path)")
                #expect(response?.header("retry-after") == "1", "\(path)")
            }
        }
        #expect(eventually { handler.state.blockedEntered.load(ordering: .acquiring) == 2 })
        #expect(server.stop(deadline: .now + .milliseconds(200)) == false)
        for client in clients { #expect(client.join()) }
        // Replies made after the daemon is gone are dropped without touching their connections.
        handler.state.release.open()
        #expect(eventually { handler.state.lateReplies.load(ordering: .acquiring) == 1 })
    }

    @Test func onePerConnectionModeRunsEveryAnswerOnTheConnectionsThread() throws {
        let handler = HandOffHandler()
        handler.state.release.open()
        let server = HTTPServer(configuration: .init(workerThreads: 0), handler: handler)
        try server.start()
        defer { server.stop() }
        let connection = try HTTPConnection(port: server.boundPort!)
        for (path, expected) in [("/wait/2", "awaited [0, 1]"), ("/soon", "soon"), ("/inline", "inline")] {
            #expect(try connection.request("GET", path).text == expected, "\(path)")
        }
        let response = try HTTPConnection.get("/block", port: server.boundPort!)
        #expect(response.text.hasPrefix("handled /block on "))
        #expect(!response.text.hasSuffix("gh-http-block"))
    }
}
