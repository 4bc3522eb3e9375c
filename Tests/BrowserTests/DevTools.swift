import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A tiny Chrome DevTools Protocol client over `--remote-debugging-pipe`: Chromium reads
/// NUL-terminated JSON commands on its fd 3 and writes replies and events on its fd 4.
///
/// (The pipe rather than the WebSocket of `--remote-debugging-port`: Debian's libcurl, under
/// FoundationNetworking's URLSessionWebSocketTask, is built without WebSocket support.)
/// Commands go by id, optionally to an attached target's session (flat mode); events are ignored.
final class DevTools: @unchecked Sendable {
    struct ProtocolError: Error, CustomStringConvertible {
        let description: String
    }

    private let output: Int32  // our end of Chromium's fd 3
    private let input: Int32  // our end of Chromium's fd 4
    private let reader: Thread
    private let finished = DispatchSemaphore(value: 0)
    // Guarded by `lock`.
    private let lock = NSLock()
    private var nextId = 1
    private var pending: [Int: CheckedContinuation<Data, any Error>] = [:]
    private var failure: (any Error)? = nil

    /// Takes ownership of both descriptors; they are closed when the reader ends.
    init(writingTo output: Int32, readingFrom input: Int32) {
        self.output = output
        self.input = input
        let box = Unowned()
        reader = Thread { box.devTools?.readLoop() }
        box.devTools = self
        reader.start()
    }

    private final class Unowned: @unchecked Sendable {
        weak var devTools: DevTools?
    }

    /// Waits up to `seconds` for Chromium to close its end of the pipe; returns whether it did.
    func waitForEnd(seconds: Double) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }

    /// Sends `method` with `params` and returns the command's `result` object.
    func call(_ method: String, _ params: [String: Any] = [:], session sessionId: String? = nil) async throws -> [String: Any] {
        let id: Int = lock.withLock {
            defer { nextId += 1 }
            return nextId
        }
        var envelope: [String: Any] = ["id": id, "method": method, "params": params]
        if let sessionId { envelope["sessionId"] = sessionId }
        var message = try JSONSerialization.data(withJSONObject: envelope)
        message.append(0)
        let reply = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            let earlier: (any Error)? = lock.withLock {
                if failure == nil { pending[id] = continuation }
                return failure
            }
            if let earlier { continuation.resume(throwing: earlier); return }
            if let error = send(message) { complete(id, .failure(error)) }
        }
        let object = try JSONSerialization.jsonObject(with: reply) as? [String: Any] ?? [:]
        if let error = object["error"] as? [String: Any] {
            throw ProtocolError(description: "\(method): \(error["message"] ?? error)")
        }
        return object["result"] as? [String: Any] ?? [:]
    }

    private func send(_ message: Data) -> (any Error)? {
        lock.lock()  // one writer at a time: messages must not interleave
        defer { lock.unlock() }
        return message.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> (any Error)? in
            var offset = 0
            while offset < buffer.count {
                let written = write(output, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return ProtocolError(description: "write to chromium: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
            return nil
        }
    }

    private func readLoop() {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            buffer.append(contentsOf: chunk[0..<count])
            while let end = buffer.firstIndex(of: 0) {
                let data = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let id = object["id"] as? Int {
                    complete(id, .success(data))
                }
            }
        }
        close(input)
        close(output)
        fail(ProtocolError(description: "chromium closed the DevTools pipe"))
        finished.signal()
    }

    private func complete(_ id: Int, _ result: Result<Data, any Error>) {
        let continuation = lock.withLock { pending.removeValue(forKey: id) }
        continuation?.resume(with: result)
    }

    private func fail(_ error: any Error) {
        let waiting = lock.withLock {
            if failure == nil { failure = error }
            defer { pending.removeAll() }
            return Array(pending.values)
        }
        for continuation in waiting { continuation.resume(throwing: error) }
    }
}
