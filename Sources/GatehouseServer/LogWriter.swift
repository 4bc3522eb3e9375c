import Foundation
import Locking

/// Standard error for log lines, without a `write(2)` per line: lines are appended to a buffer
/// that one thread writes out 20 ms after the first of them arrives (the request log is one
/// line per request; the syscall was ~10% of a `{ health }`'s CPU). ``flush()`` writes what is
/// waiting at once: `Logger` calls it after warnings and errors, the server when it stops.
/// Lines keep their order. A crash can lose the last 20 ms of lines.
final class LogWriter: @unchecked Sendable {
    // @unchecked: `buffer` and `threadStarted` are touched with `mutex` held; writes are
    // serialised by `writing`.
    static let standardError = LogWriter(fd: 2)

    private let fd: Int32
    private let mutex = ConditionMutex()
    private let linesWaiting = ConditionMutex.Condition()
    private let writing = Lock(())
    private var buffer: [UInt8] = []
    private var threadStarted = false
    /// Written at once instead when more than this is waiting.
    private let limit = 64 << 10

    init(fd: Int32) { self.fd = fd }

    func write(_ line: [UInt8]) {
        let full: Bool = mutex.withLock {
            if buffer.isEmpty {
                if !threadStarted {
                    threadStarted = true
                    Thread { [self] in run() }.start()
                }
                linesWaiting.signal()
            }
            buffer.append(contentsOf: line)
            return buffer.count > limit
        }
        if full { flush() }
    }

    /// Writes everything buffered, now.
    func flush() {
        writing.withLock { _ in
            let bytes: [UInt8] = mutex.withLock {
                defer { buffer.removeAll(keepingCapacity: true) }
                return buffer
            }
            bytes.withUnsafeBufferPointer { pointer in
                var offset = 0
                while offset < pointer.count {
                    let written = Foundation.write(fd, pointer.baseAddress! + offset, pointer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }

    private func run() {
        Thread.current.name = "gh-log"
        while true {
            mutex.withLock {
                while buffer.isEmpty { mutex.wait(linesWaiting) }
            }
            usleep(20_000)  // let the lines of the next 20 ms join these
            flush()
        }
    }
}
