import Foundation
import HTTPServer
import Synchronization
import TestSupport

/// A one-shot latch a test opens and a handler waits on (with a generous bound).
final class Gate: Sendable {
    private let opened = Atomic<Bool>(false)
    func open() { opened.store(true, ordering: .releasing) }
    var isOpen: Bool { opened.load(ordering: .acquiring) }

    /// Waits until opened or `seconds` pass; returns whether it opened.
    @discardableResult
    func wait(seconds: Double = 30) -> Bool {
        eventually(timeout: .milliseconds(Int(seconds * 1000))) { isOpen }
    }
}

/// Routes used by the tests:
/// - `/echo`: the request body back, with the request's Content-Type.
/// - `/describe`: a line-per-fact description of the request.
/// - `/slow`: opens `entered`, waits for `release`, then answers "slow done".
/// - `/status/N`: an empty response with status N.
/// - `/bad-header`: a response with a header value containing CR LF.
struct TestHandler: HTTPHandler {
    // Atomic is not copyable: the shared state lives in a class.
    final class State: Sendable {
        let calls = Atomic<Int>(0)
        let entered = Gate()
        let release = Gate()
        var callCount: Int { calls.load(ordering: .acquiring) }
    }
    let state = State()

    func answer(_ request: HTTPRequest) -> HTTPAnswer {
        state.calls.add(1, ordering: .relaxed)
        if request.path == "/slow" {
            return .blocking { [state] in
                state.entered.open()
                state.release.wait()
                return .text("slow done")
            }
        }
        return .now(respond(to: request))
    }

    private func respond(to request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/echo":
            var headers: HTTPHeaders = [:]
            if let type = request.headers["content-type"] { headers.add(name: "Content-Type", value: type) }
            return HTTPResponse(status: .ok, headers: headers, body: request.body)
        case "/bad-header":
            return HTTPResponse(status: .ok, headers: ["X-Good": "yes", "X-Bad": "a\r\nInjected: 1"], body: Array("ok".utf8))
        default:
            if request.path.hasPrefix("/status/"), let code = Int(request.path.dropFirst(8)) {
                return HTTPResponse(status: code)
            }
            var lines = [
                "method=\(request.method)",
                "path=\(request.path)",
                "rawQuery=\(request.rawQuery)",
                "client=\(request.clientAddress)",
                "bodyCount=\(request.body.count)",
            ]
            for item in request.queryItems { lines.append("param \(item.name)=\(item.value)") }
            for field in request.headers { lines.append("header \(field.name)=\(field.value)") }
            lines.append("lookup x-custom=\(request.headers["X-CUSTOM"] ?? "nil")")
            lines.append("all x-custom=\(request.headers.values(for: "x-Custom").joined(separator: ","))")
            return .text(lines.joined(separator: "\n"))
        }
    }
}

/// Starts a server on 127.0.0.1, port 0, runs `body`, and always stops the server.
func withServer<T>(
    _ configuration: HTTPServer.Configuration = .init(),
    handler: TestHandler = TestHandler(),
    _ body: (HTTPServer, Int, TestHandler) throws -> T
) throws -> T {
    let server = HTTPServer(configuration: configuration, handler: handler)
    try server.start()
    defer { server.stop(deadline: .now + .seconds(5)) }
    guard let port = server.boundPort else { throw HTTPClientError.malformed("no bound port") }
    return try body(server, port, handler)
}

/// Runs `body` on a new OS thread (never Swift's cooperative pool: the tests block).
final class TestThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let done = self.done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
    }

    /// Waits for the thread to finish (at most `seconds`); returns whether it did.
    func join(seconds: Int = 60) -> Bool {
        done.wait(timeout: .now() + .seconds(seconds)) == .success
    }
}

/// A value behind a lock, shareable with test threads.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func get() -> Value { mutex.withLock { $0 } }
    func set(_ value: Value) { mutex.withLock { $0 = value } }
    func modify(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}
